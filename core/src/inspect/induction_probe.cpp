// The induction probe: a seeded run of random tokens, repeated, fed through a session whose attention rows
// are then scored by InductionAccumulator.
#include <algorithm>

#include "glassbox/error.hpp"
#include "glassbox/induction.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/session.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox {

InductionProbe induction_probe_for(const Tokenizer& tokenizer, int length) {
  InductionProbe probe;
  probe.length = length;
  if (tokenizer.bos_id() >= 0) probe.prefix.push_back(tokenizer.bos_id());
  for (int id = 0; id < tokenizer.vocab_size(); ++id)
    if (tokenizer.type(id) != TokenType::Normal) probe.excluded.push_back(id);
  for (int id : {tokenizer.bos_id(), tokenizer.eos_id()})
    if (id >= 0) probe.excluded.push_back(id);  // vocabularies that type them as normal
  return probe;
}

Result<InductionSequence> make_induction_sequence(const InductionProbe& probe, int vocab_size,
                                                  int context_length) {
  const int end_id = probe.end_id > 0 ? std::min(probe.end_id, vocab_size) : vocab_size;
  for (int id : probe.prefix)
    if (id < 0 || id >= vocab_size)
      return error(ErrorCode::BadArgument, "induction probe: prefix token ", id,
                   " is outside the vocabulary (0..", vocab_size - 1, ")");
  std::vector<char> allowed(static_cast<std::size_t>(std::max(vocab_size, 0)), 0);
  for (int id = std::max(probe.first_id, 0); id < end_id; ++id)
    allowed[static_cast<std::size_t>(id)] = 1;
  for (const std::vector<int>* banned : {&probe.excluded, &probe.prefix})
    for (int id : *banned)
      if (id >= 0 && id < vocab_size) allowed[static_cast<std::size_t>(id)] = 0;
  std::vector<int> pool;
  for (int id = 0; id < vocab_size; ++id)
    if (allowed[static_cast<std::size_t>(id)]) pool.push_back(id);

  const int prefix = static_cast<int>(probe.prefix.size());
  const int length = std::min({probe.length, static_cast<int>(pool.size()), (context_length - prefix) / 2});
  if (length < 2)
    return error(ErrorCode::BadArgument, "induction probe: room for a run of ", length,
                 " tokens (needs 2: ", pool.size(), " ids allowed, a context of ", context_length,
                 " positions, a prefix of ", prefix, ")");

  // Distinct tokens: the first `length` entries of a seeded Fisher-Yates shuffle. (next_u32() % n has a bias
  // of under n / 2^32, irrelevant here.)
  Rng rng(probe.seed);
  for (int i = 0; i < length; ++i) {
    const int remaining = static_cast<int>(pool.size()) - i;
    const int pick = i + static_cast<int>(rng.next_u32() % static_cast<uint32_t>(remaining));
    std::swap(pool[static_cast<std::size_t>(i)], pool[static_cast<std::size_t>(pick)]);
  }
  InductionSequence out;
  out.layout = {.offset = prefix, .length = length};
  out.tokens = probe.prefix;
  for (int copy = 0; copy < 2; ++copy)
    out.tokens.insert(out.tokens.end(), pool.begin(), pool.begin() + length);
  return out;
}

Result<std::vector<double>> induction_scores(Session& session, const InductionProbe& probe) {
  const ModelConfig& c = session.model().config;
  GLASSBOX_ASSIGN(const InductionSequence sequence,
                  make_induction_sequence(probe, c.vocab_size, session.context_length()));
  session.reset();
  session.set_residual_trace(true);
  GLASSBOX_TRY(session.prefill(sequence.tokens));

  const InductionLayout layout = sequence.layout;
  std::vector<double> scores;
  scores.reserve(static_cast<std::size_t>(c.n_layers) * static_cast<std::size_t>(c.n_heads));
  for (int layer = 0; layer < c.n_layers; ++layer) {
    std::vector<InductionAccumulator> heads(static_cast<std::size_t>(c.n_heads),
                                            InductionAccumulator(layout));
    GLASSBOX_TRY(session.attention_rows(layer, 0, c.n_heads, layout.first_query(), layout.end_query(),
                                        [&](int head, int query, std::span<const float> row) {
                                          heads[static_cast<std::size_t>(head)].add(query, row);
                                        }));
    for (const InductionAccumulator& h : heads)
      scores.push_back(h.mean());
  }
  return scores;
}

}  // namespace glassbox
