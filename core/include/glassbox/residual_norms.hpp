// How long the residual stream is as it runs through the model: |x| entering each layer and leaving the
// last, at each position. The stream is what every sub-block reads from and adds to, so its length says how
// much each layer writes relative to what is already there (it grows through a trained model's layers, and
// a position where it jumps is one the model treats specially, such as an attention sink).
#pragma once

#include <vector>

#include "glassbox/result.hpp"

namespace glassbox {

class Session;

// [(n_layers + 1)][end - begin] lengths (Euclidean, computed in double, stored as float), row l the stream
// entering layer l, row n_layers the stream leaving the last layer (before the final norm). From the
// session's residual trace: NotRecorded for a position it did not keep, BadArgument for a range outside the
// positions read.
Result<std::vector<float>> residual_norms(const Session& session, int begin, int end);

}  // namespace glassbox
