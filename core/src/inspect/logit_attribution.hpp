// The engine side of direct logit attribution (glassbox/logit_attribution.hpp): the parts recomputed from a
// session's residual trace and KV cache with the forward pass's own steps. Session::logit_attribution calls it.
#pragma once

#include "glassbox/logit_attribution.hpp"
#include "glassbox/model.hpp"
#include "glassbox/residual_trace.hpp"
#include "glassbox/result.hpp"
#include "model/run_state.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// The logit of `token` at `position` (predicting position + 1), split into its parts. Errors: BadArgument for
// a Post-LN model, a token outside the vocabulary, or another attention than exact; NotRecorded when the
// residual trace did not keep the position.
Result<LogitAttribution> attribute_logit(const Model& model, const RunState& state,
                                         const ResidualTrace& residuals, ThreadPool& pool, int position,
                                         int token);

}  // namespace glassbox
