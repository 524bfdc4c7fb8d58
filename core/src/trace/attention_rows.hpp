// Attention rows recomputed on demand from the residual trace and the KV cache, instead of stored: a head's
// row at query p is softmax(q_p · K / sqrt(d_k)) over the cached keys 0..p, and q_p follows from the residual
// entering the layer (norm, query projection and bias, RoPE at p). Every step is the forward pass's own
// function (model/layer_steps.hpp, linear()), so a recomputed row is bit for bit the row the forward pass
// used. Memory: one query vector and one row at a time, whatever the sequence length.
#pragma once

#include <span>

#include "glassbox/attention_detail.hpp"
#include "glassbox/model.hpp"
#include "glassbox/residual_trace.hpp"
#include "glassbox/result.hpp"
#include "model/run_state.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// Calls `fn` for every head in [head_begin, head_end) of `layer`, query by query over [query_begin,
// query_end) (all heads of one query before the next query). Fails with BadArgument on a layer or head out of
// range and NotRecorded when a query's residual was not kept.
Result<void> recompute_attention_rows(const Model& model, const RunState& state,
                                      const ResidualTrace& residuals, ThreadPool& pool, int layer,
                                      int head_begin, int head_end, int query_begin, int query_end,
                                      const AttentionRowFn& fn);

// One head's attention at one query with every intermediate number (glassbox/attention_detail.hpp).
Result<AttentionDetail> recompute_attention_detail(const Model& model, const RunState& state,
                                                   const ResidualTrace& residuals, ThreadPool& pool,
                                                   int layer, int head, int query);

// What the residual entering `layer` (n_layers: leaving the last layer) at `position` predicts for the next
// token: the final norm and the unembedding applied to it (the logit lens). For layer n_layers these are the
// model's own logits, bit for bit. `logits` holds vocab_size floats.
Result<void> recompute_layer_logits(const Model& model, const ResidualTrace& residuals, ThreadPool& pool,
                                    int layer, int position, std::span<float> logits);

// The same for a residual row given (dim floats, as the trace holds it): the final norm and the unembedding.
Result<void> residual_logits(const Model& model, ThreadPool& pool, std::span<const float> residual,
                             std::span<float> logits);

}  // namespace glassbox
