#include "model/run_state.hpp"

#include <algorithm>
#include <cmath>

#include "glassbox/positions.hpp"
#include "kernels/matmul.hpp"
#include "model/feature_maps.hpp"

namespace glassbox {

namespace {
// The widest row any matrix product decodes: wq/wk/wv/gate/up/output read dim values, wo q_dim, down hidden.
std::size_t widest_row(const ModelConfig& c) {
  return static_cast<std::size_t>(std::max({c.dim, c.q_dim(), c.hidden_dim}));
}

// phi's width for the feature attentions, 0 for the others.
std::size_t feature_count(const ModelConfig& c, const AttentionVariant& v) {
  if (v.kind == AttentionKind::Linear) return static_cast<std::size_t>(c.head_dim);
  if (v.kind == AttentionKind::Performer) return static_cast<std::size_t>(v.features);
  return 0;
}

// Floats of the variant's state: the running sums, Performer's projection, the workers' phi rows, or the
// low-rank heads' matrices.
int64_t attention_state_floats(const ModelConfig& c, const AttentionVariant& v, int workers, int batch) {
  const auto f = static_cast<int64_t>(feature_count(c, v));
  const int64_t sums = int64_t{c.n_layers} * c.n_kv_heads * (f * (c.head_dim + 1) + 1);
  const int64_t projection = v.kind == AttentionKind::Performer ? f * c.head_dim : 0;
  const int64_t matrices = v.kind == AttentionKind::LowRank ? int64_t{c.n_heads} * batch * batch : 0;
  return sums + projection + int64_t{workers} * 2 * f + matrices;
}
}  // namespace

RunState::RunState(const ModelConfig& c, int context, int workers, int batch_size)
    : context_length(context),
      batch(batch_size),
      workers(static_cast<std::size_t>(workers)),
      decode(workers, widest_row(c), static_cast<std::size_t>(batch_size)) {
  const auto ctx = static_cast<std::size_t>(context), rows = static_cast<std::size_t>(batch_size);
  residual.resize(rows * c.dim);
  normed_input.resize(rows * c.dim);
  block_output.resize(rows * c.dim);
  q.resize(rows * c.q_dim());
  head_outputs.resize(rows * c.q_dim());
  scores.resize(static_cast<std::size_t>(c.n_heads) * ctx);
  if (batch_size > 1) {
    packed_queries.resize(this->workers * kernels::packed_tokens_floats(rows, c.head_dim));
    query_tile_scores.resize(this->workers * kernels::matmul_tile_tokens() * ctx);
  }
  ffn_hidden.resize(rows * c.hidden_dim);
  ffn_up.resize(rows * c.hidden_dim);
  logits.resize(c.vocab_size);
  key_cache.resize(static_cast<std::size_t>(c.n_layers) * ctx * c.kv_dim());
  value_cache.resize(key_cache.size());

  if (c.position == PositionKind::RoPE) {
    // Angle of pair i at position p (glassbox/positions.hpp), computed in double and rounded once: a table
    // for the global layers and, where some layers slide, one for those.
    const std::size_t half = static_cast<std::size_t>(c.rotary_dim()) / 2;
    rope_half = half;
    int sliding_layer = -1;
    for (int l = 0; l < c.n_layers && sliding_layer < 0; ++l)
      if (c.slides(l)) sliding_layer = l;
    const std::size_t tables = sliding_layer >= 0 ? 2 : 1;
    rope_cos.resize(tables * ctx * half);
    rope_sin.resize(tables * ctx * half);
    for (std::size_t table = 0; table < tables; ++table) {
      const int layer = table == 0 ? -1 : sliding_layer;
      for (std::size_t p = 0; p < ctx; ++p) {
        for (std::size_t i = 0; i < half; ++i) {
          const double angle = rope_angle(c, static_cast<int>(i), static_cast<int>(p), layer);
          const std::size_t at = (table * ctx + p) * half + i;
          // YaRN scales q and k as it turns them (rope_magnitude; 1 otherwise), as ggml's rope does.
          rope_cos[at] = static_cast<float>(std::cos(angle)) * c.rope_magnitude;
          rope_sin[at] = static_cast<float>(std::sin(angle)) * c.rope_magnitude;
        }
      }
    }
  }
}

void RunState::use_attention(const ModelConfig& c, const AttentionVariant& variant) {
  attention = variant;
  features = feature_count(c, variant);
  const std::size_t sums =
      static_cast<std::size_t>(c.n_layers) * static_cast<std::size_t>(c.n_kv_heads) * features;
  feature_kv_sums.assign(sums * static_cast<std::size_t>(c.head_dim), 0.0f);
  feature_key_sums.assign(sums, 0.0f);
  feature_log_scales.assign(features > 0 ? static_cast<std::size_t>(c.n_layers * c.n_kv_heads) : 0, 0.0f);
  feature_scratch.assign(workers * 2 * features, 0.0f);
  feature_projection.clear();
  if (variant.kind == AttentionKind::Performer)
    feature_projection = performer_projection(variant.features, c.head_dim, variant.seed);
  head_matrices.clear();
  if (variant.kind == AttentionKind::LowRank)
    head_matrices.assign(static_cast<std::size_t>(c.n_heads) * static_cast<std::size_t>(batch) *
                             static_cast<std::size_t>(batch),
                         0.0f);
}

bool any_sliding_layer(const ModelConfig& c) {
  for (int l = 0; l < c.n_layers; ++l)
    if (c.slides(l)) return true;
  return false;
}

int64_t run_state_bytes(const ModelConfig& c, int context, int workers, int batch,
                        const AttentionVariant& attention) {
  const int64_t ctx = context;
  int64_t floats = batch * (3 * int64_t{c.dim} + 2 * int64_t{c.q_dim()} + 2 * int64_t{c.hidden_dim}) +
                   c.n_heads * ctx + c.vocab_size + 2 * int64_t{c.n_layers} * ctx * c.kv_dim();
  if (c.position == PositionKind::RoPE) floats += (any_sliding_layer(c) ? 2 : 1) * ctx * c.rotary_dim();
  floats += attention_state_floats(c, attention, workers, batch);
  if (batch > 1) {
    const auto rows = static_cast<std::size_t>(batch), head_dim = static_cast<std::size_t>(c.head_dim);
    floats += workers * static_cast<int64_t>(kernels::packed_tokens_floats(rows, head_dim) +
                                             kernels::matmul_tile_tokens() * static_cast<std::size_t>(ctx));
  }
  return floats * static_cast<int64_t>(sizeof(float)) +
         DecodeScratch::bytes(workers, widest_row(c), static_cast<std::size_t>(batch));
}

}  // namespace glassbox
