// Induction heads (Olsson et al., 2022): a head that, at a token seen before, attends to the token that
// followed it last time, so the model can copy the continuation. Measured the usual way: give the model a
// run of random tokens twice and see how much weight the second copy puts on "what came next" in the first.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "glassbox/result.hpp"

namespace glassbox {

class Session;
class Tokenizer;

// A probe sequence: `offset` tokens of prefix (BOS, say), then random tokens r[0..length-1], then the same
// tokens again: r[j] stands at offset + j and at offset + length + j.
struct InductionLayout {
  int offset = 0;
  int length = 0;

  int sequence_length() const { return offset + 2 * length; }
  // The scored queries: the second copy's r[0..length-2], positions [first_query(), end_query()).
  int first_query() const { return offset + length; }
  int end_query() const { return offset + 2 * length - 1; }
  // Where the query's induction target stands: r[j + 1] in the first copy, for the query at r[j]'s second
  // position. -1 for a query that is not scored.
  int target(int query) const;
};

// The induction score of a head: the mean, over the scored queries, of the weight each puts on its target.
// 1: a perfect induction head; about 1 / position for attention spread evenly. Fed one row at a time, in any
// order (rows of unscored queries are ignored), so recomputed rows need not be kept.
class InductionAccumulator {
 public:
  explicit InductionAccumulator(InductionLayout layout) : layout_(layout) {}
  // A row is the query's probabilities over keys 0..query.
  void add(int query, std::span<const float> row);
  double mean() const { return rows_ > 0 ? sum_ / static_cast<double>(rows_) : 0.0; }

 private:
  InductionLayout layout_;
  double sum_ = 0;
  long rows_ = 0;
};

// The same over a whole n x n row-major attention matrix (row q: query q over keys 0..n-1).
double induction_score(std::span<const float> matrix, int n, InductionLayout layout);

// How to build a probe.
struct InductionProbe {
  // What comes first: {BOS} for a model trained with one (induction_probe_for does so).
  std::vector<int> prefix = {};
  int length = 32;  // L: long enough for a stable mean, short enough for small contexts
  // Ids the random run draws from: [first_id, end_id) (end_id 0: the vocabulary's size), minus `excluded`
  // (special tokens) and the prefix's own ids. The run's tokens are distinct, so each has one target.
  int first_id = 0;
  int end_id = 0;
  std::vector<int> excluded = {};
  uint64_t seed = 1;  // drives the core's Rng (glassbox/sampler.hpp)
};

// A probe for a model read with this tokenizer: BOS first when the vocabulary has one, and only ordinary
// tokens drawn (no control, unknown, unused, user-defined or raw-byte tokens: text a model has seen).
InductionProbe induction_probe_for(const Tokenizer& tokenizer, int length = 32);

struct InductionSequence {
  std::vector<int> tokens;
  InductionLayout layout;
};
// The probe's tokens. L is shortened to what fits: the number of ids allowed and
// (context_length - prefix) / 2.
// Fails with bad-argument when fewer than 2 tokens remain for the run (nothing to score).
Result<InductionSequence> make_induction_sequence(const InductionProbe& probe, int vocab_size,
                                                  int context_length);

// Runs the probe through `session` and scores every head: scores[layer * n_heads + head]. The session is
// reset first and left holding the probe, with residual tracing on (attention rows are recomputed from it).
Result<std::vector<double>> induction_scores(Session& session, const InductionProbe& probe);

}  // namespace glassbox
