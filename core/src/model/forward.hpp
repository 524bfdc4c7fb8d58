#pragma once

#include "glassbox/model.hpp"
#include "glassbox/trace.hpp"
#include "model/run_state.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// Runs `token` at `position` (already checked: a valid id, position < context), writing its keys and values
// into the cache and the next-token logits into state.logits. With a trace, records every head's attention.
void forward(const Model& model, RunState& state, int token, int position, AttentionTrace* trace,
             ThreadPool& pool);

}  // namespace glassbox
