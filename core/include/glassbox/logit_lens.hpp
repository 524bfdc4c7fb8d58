// The logit lens (nostalgebraist, 2020): what each layer's residual stream would predict if the model stopped
// there (final norm and unembedding applied to it), read from a session's residual trace.
#pragma once

#include <vector>

#include "glassbox/result.hpp"

namespace glassbox {

class Session;

// The `k` most likely next tokens at every layer and position; every array is [layer][position][k], most
// likely first. Layer 0 is the embedding, layer n_layers the model's own prediction.
struct LogitLens {
  int layers = 0;  // n_layers + 1
  int begin = 0;   // the first position
  int size = 0;    // positions: end - begin
  int k = 0;
  std::vector<int> ids;
  std::vector<float> probabilities;  // softmax at temperature 1 over the whole vocabulary
  std::vector<float> logits;
};

// Positions [begin, end) of what `session` has computed. Fails with bad-argument on positions outside
// 0..position() or k outside 1..vocab_size, and with not-recorded where the trace did not keep a position.
Result<LogitLens> logit_lens(const Session& session, int begin, int end, int k);

}  // namespace glassbox
