#include "glassbox/logit_lens.hpp"

#include "glassbox/error.hpp"
#include "glassbox/session.hpp"
#include "glassbox/top_tokens.hpp"

namespace glassbox {

Result<LogitLens> logit_lens(const Session& session, int begin, int end, int k) {
  const ModelConfig& c = session.model().config;
  if (begin < 0 || end < begin || end > session.position())
    return error(ErrorCode::BadArgument, "logit lens: positions ", begin, "..", end, " are outside 0..",
                 session.position());
  if (k < 1 || k > c.vocab_size)
    return error(ErrorCode::BadArgument, "logit lens: k must be 1..", c.vocab_size, ", found ", k);
  LogitLens lens{.layers = c.n_layers + 1, .begin = begin, .size = end - begin, .k = k};
  std::vector<float> logits(static_cast<std::size_t>(c.vocab_size));
  for (int layer = 0; layer <= c.n_layers; ++layer)
    for (int position = begin; position < end; ++position) {
      GLASSBOX_TRY(session.layer_logits(layer, position, logits));
      for (const TokenProbability& t : top_tokens(logits, k)) {
        lens.ids.push_back(t.id);
        lens.probabilities.push_back(t.probability);
        lens.logits.push_back(t.logit);
      }
    }
  return lens;
}

}  // namespace glassbox
