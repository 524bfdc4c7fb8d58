#pragma once

#include <span>

#include "glassbox/model.hpp"
#include "glassbox/residual_trace.hpp"
#include "glassbox/trace.hpp"
#include "model/run_state.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// Runs `tokens` (already checked: 1..state.batch valid ids) at positions first_position, first_position + 1,
// ... (all < the context), writing their keys and values into the cache and the logits for the token after
// the last one into state.logits. With a trace, records every head's attention at every one of those
// positions (the session called trace->begin_position for each, in order, beforehand). With a residual
// trace (begun the same way), copies each token's x entering every layer and leaving the last one.
void forward(const Model& model, RunState& state, std::span<const int> tokens, int first_position,
             AttentionTrace* trace, ResidualTrace* residuals, ThreadPool& pool);

// One token at one position: the decode step.
inline void forward(const Model& model, RunState& state, int token, int position, AttentionTrace* trace,
                    ResidualTrace* residuals, ThreadPool& pool) {
  forward(model, state, std::span<const int>(&token, 1), position, trace, residuals, pool);
}

}  // namespace glassbox
