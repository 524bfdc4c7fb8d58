// Every head of a model measured: its attention statistics over a prompt, its induction score on a probe, its
// effective rank and the role those suggest. What the page's head table and the CLI show: measure_heads in
// one call, or HeadMeasurement a few heads at a time (the same numbers).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "glassbox/head_roles.hpp"
#include "glassbox/induction.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/session.hpp"

namespace glassbox {

class ThreadPool;

struct HeadReport {
  int layer = 0;
  int head = 0;
  // Over the prompt's attention (glassbox/head_stats.hpp, HeadStats):
  double entropy_bits = 0;
  double uniform_entropy_bits = 0;  // the entropy's ceiling on this prompt
  double sink = 0;
  double previous_token = 0;
  double local = 0;
  int effective_rank = 0;  // of the last min(n, rank_window) positions (glassbox/effective_rank.hpp)
  // On the probe (glassbox/induction.hpp):
  double induction = 0;
  HeadRole role = HeadRole::Mixed;
};

// The effective rank's window: the attention matrix of the last 256 positions (queries and keys both in the
// window, so rows whose query sees earlier keys hold less than 1 there). Its SVD costs about 75 ms a head at
// 256 (effective_rank.hpp); a whole prompt's matrix would grow as n^3.
inline constexpr int kRankWindow = 256;

struct MeasureHeadsOptions {
  int threads = 1;  // for the forward passes and the heads' SVDs; the numbers do not depend on it
  // The induction probe; for a real model pass induction_probe_for(tokenizer) (BOS first, ordinary tokens).
  InductionProbe probe = {};
  int rank_window = kRankWindow;
};

// A measurement of every head taken a few heads per step(), for a caller that must stay responsive in between
// (the page's worker reports progress and answers other requests: one head's SVD costs tens of milliseconds).
// Heads are measured in layer-major order; the last step runs the induction probe for all of them at once and
// assigns the roles. measure_heads is this run to the end, so both give the same numbers.
class HeadMeasurement {
 public:
  // Runs `tokens` (the prompt) through a session of its own (residual trace on, sized for the prompt and the
  // probe); the measurement keeps `model` alive. Fails on no tokens, a token outside the vocabulary, more
  // tokens than the model's context, threads < 1 or rank_window < 1.
  static Result<HeadMeasurement> begin(std::shared_ptr<const Model> model, std::span<const int> tokens,
                                       const MeasureHeadsOptions& options = {});
  HeadMeasurement(HeadMeasurement&&) noexcept;
  HeadMeasurement& operator=(HeadMeasurement&&) noexcept;
  ~HeadMeasurement();

  // Measures the next `heads` heads, fewer where their layer ends (a step stays in one layer, whose rows are
  // recomputed together; their SVDs run on options.threads threads), or, once every head is measured, runs
  // the probe. Fails with bad-argument on heads < 1 and invalid-state once done(); a failed step measures
  // nothing.
  Result<void> step(int heads = 1);

  // Progress in units of one head, plus one for the probe: total() is n_layers * n_heads + 1.
  int total() const;
  int completed() const;
  bool done() const { return probed_; }

  // The heads measured so far, layer-major: statistics and rank from their step; induction and role once
  // done().
  const std::vector<HeadReport>& reports() const { return reports_; }

 private:
  HeadMeasurement(Session session, int tokens, const MeasureHeadsOptions& options);
  Result<void> run_probe();

  Session session_;  // holds the prompt's trace; the probe replaces it in the last step
  std::unique_ptr<ThreadPool> pool_;
  int tokens_ = 0;  // the prompt's length
  int rank_window_ = kRankWindow;
  InductionProbe probe_;
  std::vector<HeadReport> reports_;
  bool probed_ = false;
};

// Runs `tokens` (the prompt) and the probe through one session of `model` (residual trace on) and measures
// every head, in layer-major order. The model must outlive the call only. Fails on no tokens, a token outside
// the vocabulary, more tokens than the model's context, a probe that does not fit, or threads < 1.
Result<std::vector<HeadReport>> measure_heads(const Model& model, std::span<const int> tokens,
                                              const MeasureHeadsOptions& options = {});

// A head's report from its statistics over the prompt and its effective rank (induction and role come later,
// from the probe): what measure_heads and a head-at-a-time measurement (the page's) both build.
HeadReport head_report(int layer, int head, const HeadStats& stats, int rank);

// How many heads have each role.
RoleCounts summarize_roles(std::span<const HeadReport> heads);

}  // namespace glassbox
