#pragma once

#include <span>

#include "glassbox/model.hpp"
#include "glassbox/residual_trace.hpp"
#include "glassbox/trace.hpp"
#include "model/run_state.hpp"
#include "model/visible_keys.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// Prompt tokens per forward pass in Session::prefill(), unless SessionOptions::prefill_batch says
// otherwise. Each weight row is read from memory (and, for the integer kernels, decoded) once per chunk, so
// those costs per token fall as 1/batch. On Zen 4 a 256-token prompt of the stories15M shape in Q4_0 ran
// 5,300 tokens/s in chunks of 64 (decoded per 32 tokens), 7,500 in chunks of 128 and 7,900 in one of 256;
// the 110M shapes gained 0-15%. The price is the activations of 256 tokens: about 8 MiB for the 110M shape,
// plus 3.5 MiB of DecodeScratch.
inline constexpr int kPrefillBatch = 256;

// Runs `tokens` (already checked: 1..state.batch valid ids) at positions first_position, first_position + 1,
// ... (all < the context), writing their keys and values into the cache and the logits for the token after
// the last one into state.logits. With a trace, records every head's attention at every one of those
// positions (the session called trace->begin_position for each, in order, beforehand). With a residual
// trace (begun the same way), copies each token's x entering every layer and leaving the last one.
// An encoder (ModelConfig::causal false) reads a whole text per call and leaves its final states in
// state.residual ([n][dim]), writing no logits. `texts` puts several texts side by side (an encoder's padded
// batch, model/visible_keys.hpp; first_position 0; an attention trace only with one text, its rows begun
// with the text's length).
void forward(const Model& model, RunState& state, std::span<const int> tokens, int first_position,
             AttentionTrace* trace, ResidualTrace* residuals, ThreadPool& pool,
             const TextBatch* texts = nullptr);

// One token at one position: the decode step.
inline void forward(const Model& model, RunState& state, int token, int position, AttentionTrace* trace,
                    ResidualTrace* residuals, ThreadPool& pool) {
  forward(model, state, std::span<const int>(&token, 1), position, trace, residuals, pool);
}

}  // namespace glassbox
