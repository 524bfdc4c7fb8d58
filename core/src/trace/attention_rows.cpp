#include "trace/attention_rows.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "glassbox/error.hpp"
#include "model/head_ablation.hpp"
#include "model/layer_steps.hpp"
#include "model/linear.hpp"

namespace glassbox {
namespace {

Error not_kept(const ResidualTrace& residuals, int position) {
  if (residuals.n_positions() == 0 || residuals.first_kept() >= residuals.n_positions())
    return error(
        ErrorCode::NotRecorded, "position ", position,
        " was not kept: the residual trace is empty (tracing off, or one position is over its budget of ",
        residuals.budget_bytes() >> 20, " MiB)");
  return error(ErrorCode::NotRecorded, "position ", position,
               " was not kept: the residual trace holds positions ", residuals.first_kept(), "..",
               residuals.n_positions() - 1,
               residuals.capacity_positions() >= 0
                   ? cat(" (", residuals.capacity_positions(), " positions fit its budget of ",
                         residuals.budget_bytes() >> 20, " MiB)")
                   : std::string());
}

// The widest row linear() may decode (the query projection reads dim values), one token at a time.
DecodeScratch scratch_for(const Model& model, ThreadPool& pool) {
  return DecodeScratch(pool.size(),
                       static_cast<std::size_t>(std::max(model.config.dim, model.config.q_dim())), 1);
}

}  // namespace

Result<void> recompute_attention_rows(const Model& model, const RunState& s, const ResidualTrace& residuals,
                                      ThreadPool& pool, int layer, int head_begin, int head_end,
                                      int query_begin, int query_end, const AttentionRowFn& fn) {
  const ModelConfig& c = model.config;
  if (layer < 0 || layer >= c.n_layers)
    return error(ErrorCode::BadArgument, "layer ", layer, " does not exist (0..", c.n_layers - 1, ")");
  if (head_begin < 0 || head_end > c.n_heads || head_begin >= head_end)
    return error(ErrorCode::BadArgument, "heads ", head_begin, "..", head_end - 1, " are not a range of 0..",
                 c.n_heads - 1);
  if (query_begin < 0 || query_begin > query_end)
    return error(ErrorCode::BadArgument, "queries ", query_begin, "..", query_end - 1, " are not a range");
  for (int p : {query_begin, query_end - 1})
    if (query_begin < query_end && !residuals.kept(p)) return not_kept(residuals, p);

  const LayerWeights& w = model.weights.layers[static_cast<std::size_t>(layer)];
  const auto head_dim = static_cast<std::size_t>(c.head_dim), kv_dim = static_cast<std::size_t>(c.kv_dim());
  const int heads_per_kv = c.n_heads / c.n_kv_heads;
  const float* layer_keys = s.key_cache.data() + static_cast<std::size_t>(layer) * s.context_length * kv_dim;
  std::vector<float> normed(static_cast<std::size_t>(c.dim)), q(static_cast<std::size_t>(c.q_dim()));
  std::vector<float> row(static_cast<std::size_t>(query_end));
  DecodeScratch scratch = scratch_for(model, pool);

  for (int p = query_begin; p < query_end; ++p) {
    // The attention sub-block's input and the queries of every head, as forward() computes them.
    const float* attn_in = residuals.row(layer, p).data();
    if (c.pre_norm()) {
      normalize(c, normed.data(), attn_in, w.attn_norm, w.attn_norm_bias);
      attn_in = normed.data();
    }
    linear(q.data(), w.wq, w.bq, attn_in, pool, scratch);
    place_heads(c, s, q.data(), c.n_heads, w.q_norm, layer, p);
    const auto keys = static_cast<std::size_t>(p) + 1;
    const auto first_key = static_cast<std::size_t>(c.first_visible_key(layer, p));
    for (int h = head_begin; h < head_end; ++h) {
      const float* kv_head_keys = layer_keys + static_cast<std::size_t>(h / heads_per_kv) * head_dim;
      attention_probabilities(row.data(), q.data() + static_cast<std::size_t>(h) * head_dim, kv_head_keys,
                              kv_dim, first_key, keys, head_dim,
                              score_bias(c, static_cast<std::size_t>(h), static_cast<std::size_t>(p)));
      fn(h, p, std::span<const float>(row.data(), keys));
    }
  }
  return {};
}

Result<AttentionDetail> recompute_attention_detail(const Model& model, const RunState& s,
                                                   const ResidualTrace& residuals, ThreadPool& pool,
                                                   int layer, int head, int query) {
  const ModelConfig& c = model.config;
  if (layer < 0 || layer >= c.n_layers)
    return error(ErrorCode::BadArgument, "layer ", layer, " does not exist (0..", c.n_layers - 1, ")");
  if (head < 0 || head >= c.n_heads)
    return error(ErrorCode::BadArgument, "head ", head, " does not exist (0..", c.n_heads - 1, ")");
  if (query < 0) return error(ErrorCode::BadArgument, "query ", query, " is not a position");
  if (!residuals.kept(query)) return not_kept(residuals, query);

  const LayerWeights& w = model.weights.layers[static_cast<std::size_t>(layer)];
  const auto head_dim = static_cast<std::size_t>(c.head_dim), kv_dim = static_cast<std::size_t>(c.kv_dim());
  const auto keys = static_cast<std::size_t>(query) + 1;
  AttentionDetail d;
  d.layer = layer;
  d.head = head;
  d.query = query;
  d.kv_head = head / (c.n_heads / c.n_kv_heads);
  d.head_dim = c.head_dim;
  d.keys = static_cast<int>(keys);
  d.scale = std::sqrt(static_cast<float>(head_dim));
  if (!s.head_scales.empty())
    d.head_scale = s.head_scales[static_cast<std::size_t>(layer * c.n_heads + head)];
  if (!s.head_offsets.empty() && d.head_scale == 0.0f) {  // switched off, and given a fixed output
    const auto offset =
        s.head_offsets.begin() + static_cast<std::ptrdiff_t>(layer * c.q_dim() + head * c.head_dim);
    d.mean_ablated = std::any_of(offset, offset + c.head_dim, [](float v) { return v != 0.0f; });
  }

  // The query of every head, as forward() computes it; this head's slice is kept.
  std::vector<float> normed(static_cast<std::size_t>(c.dim)), q(static_cast<std::size_t>(c.q_dim()));
  const float* attn_in = residuals.row(layer, query).data();
  if (c.pre_norm()) {
    normalize(c, normed.data(), attn_in, w.attn_norm, w.attn_norm_bias);
    attn_in = normed.data();
  }
  DecodeScratch scratch = scratch_for(model, pool);
  linear(q.data(), w.wq, w.bq, attn_in, pool, scratch);
  normalize_heads(c, q.data(), c.n_heads, w.q_norm);
  const auto slice = q.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(head) * head_dim);
  d.query_unrotated.assign(slice, slice + static_cast<std::ptrdiff_t>(head_dim));
  if (c.position == PositionKind::RoPE) {
    const std::size_t half = static_cast<std::size_t>(c.rotary_dim()) / 2;
    const bool sliding = c.slides(layer);
    const float *cos_row = s.rope_cos_row(sliding, static_cast<std::size_t>(query)),
                *sin_row = s.rope_sin_row(sliding, static_cast<std::size_t>(query));
    rope_heads(c, q.data(), c.n_heads, cos_row, sin_row);
    for (std::size_t i = 0; i < half; ++i)
      d.rope_angles.push_back(std::atan2(sin_row[i], cos_row[i]));
  }
  d.q.assign(slice, slice + static_cast<std::ptrdiff_t>(head_dim));

  const std::size_t offset = static_cast<std::size_t>(d.kv_head) * head_dim;
  const std::size_t layer_rows = static_cast<std::size_t>(layer) * static_cast<std::size_t>(s.context_length);
  const float* key_cache = s.key_cache.data() + layer_rows * kv_dim + offset;
  const float* value_cache = s.value_cache.data() + layer_rows * kv_dim + offset;
  for (std::size_t j = 0; j < keys; ++j) {
    d.key_rows.insert(d.key_rows.end(), key_cache + j * kv_dim, key_cache + j * kv_dim + head_dim);
    d.value_rows.insert(d.value_rows.end(), value_cache + j * kv_dim, value_cache + j * kv_dim + head_dim);
  }
  // The same kernels as attention_probabilities() and forward()'s weighted sum, so the same bits.
  // Keys outside a sliding window are shown with their dot products but masked (probability 0), as causal
  // masking hides the future.
  const auto first_key = static_cast<std::size_t>(c.first_visible_key(layer, query));
  d.first_visible_key = static_cast<int>(first_key);
  d.dots.resize(keys);
  kernels::dot_strided(d.dots.data(), key_cache, kv_dim, keys, d.q.data(), head_dim);
  // The scores as the softmax reads them: scaled, and with ALiBi's bias where the model has one.
  const ScoreBias bias = score_bias(c, static_cast<std::size_t>(head), static_cast<std::size_t>(query));
  d.scores = d.dots;
  for (std::size_t j = 0; j < keys; ++j)
    d.scores[j] = d.scores[j] / d.scale - bias.slope * static_cast<float>(keys - 1 - j);
  d.probabilities.resize(keys);
  attention_probabilities(d.probabilities.data(), d.q.data(), key_cache, kv_dim, first_key, keys, head_dim,
                          bias);
  d.output.resize(head_dim);
  attention_output(d.output.data(), d.probabilities.data(), value_cache, kv_dim, first_key, keys, head_dim);
  // As the forward pass leaves it: scaled, or replaced by the head's mean (mean ablation).
  ablate_head_output(c, s.head_scales, s.head_offsets, layer, static_cast<std::size_t>(head),
                     d.output.data());
  return d;
}

Result<void> recompute_layer_logits(const Model& model, const ResidualTrace& residuals, ThreadPool& pool,
                                    int layer, int position, std::span<float> logits) {
  const ModelConfig& c = model.config;
  if (layer < 0 || layer > c.n_layers)
    return error(ErrorCode::BadArgument, "layer ", layer, " does not exist (0..", c.n_layers, ", where ",
                 c.n_layers, " is the output of the last layer)");
  if (logits.size() != static_cast<std::size_t>(c.vocab_size))
    return error(ErrorCode::BadArgument, "logit lens: room for ", logits.size(),
                 " logits, the vocabulary has ", c.vocab_size);
  if (!residuals.kept(position)) return not_kept(residuals, position);
  return residual_logits(model, pool, residuals.row(layer, position), logits);
}

Result<void> residual_logits(const Model& model, ThreadPool& pool, std::span<const float> residual,
                             std::span<float> logits) {
  const ModelConfig& c = model.config;
  if (residual.size() != static_cast<std::size_t>(c.dim) ||
      logits.size() != static_cast<std::size_t>(c.vocab_size))
    return error(ErrorCode::BadArgument, "logits of a residual: ", residual.size(),
                 " values in and room for ", logits.size(), " out; the model has ", c.dim, " and ",
                 c.vocab_size);
  const ModelWeights& w = model.weights;
  std::vector<float> x(residual.begin(), residual.end());
  if (w.final_norm.present()) normalize(c, x.data(), x.data(), w.final_norm, w.final_norm_bias);
  DecodeScratch scratch = scratch_for(model, pool);
  linear(logits.data(), w.output, Tensor{}, x.data(), pool, scratch);
  softcap_logits(c, logits.data(), logits.size());
  return {};
}

}  // namespace glassbox
