// The forward pass: one token at one position in, logits for the next token out. One function for every
// supported architecture; the config decides norm kind and placement, how positions enter, the feed-forward
// shape, and which optional biases exist.
//
//   x = embed(token) (+ position embedding)
//   for each layer:
//     x = x + attention(norm(x))          Pre-LN      |  x = norm(x + attention(x))     Post-LN
//     x = x + feed_forward(norm(x))                   |  x = norm(x + feed_forward(x))
//   logits = classifier(norm(x))          (the final norm only in Pre-LN models)
#include "model/forward.hpp"

#include <cmath>

#include "kernels/kernels.hpp"
#include "model/linear.hpp"

namespace glassbox {
namespace {

void normalize(const ModelConfig& c, float* out, const float* x, const Tensor& weight, const Tensor& bias) {
  if (c.norm == NormKind::RMSNorm) {
    kernels::rmsnorm(out, x, weight.f32(), static_cast<std::size_t>(c.dim), c.norm_eps);
  } else {
    kernels::layernorm(out, x, weight.f32(), bias.present() ? bias.f32() : nullptr,
                       static_cast<std::size_t>(c.dim), c.norm_eps);
  }
}

// The fixed sin/cos position code of "Attention Is All You Need": PE(p, 2i) = sin(p / 10000^(2i/d)),
// PE(p, 2i+1) = cos(p / 10000^(2i/d)), added to the token embedding.
void add_sinusoidal_position(float* x, int dim, int position) {
  for (int i = 0; i < dim; i += 2) {
    const double angle = position / std::pow(10000.0, static_cast<double>(i) / dim);
    x[i] += static_cast<float>(std::sin(angle));
    if (i + 1 < dim) x[i + 1] += static_cast<float>(std::cos(angle));
  }
}

void activate(Activation activation, float* x, std::size_t n) {
  switch (activation) {
    case Activation::SiLU:
      kernels::silu(x, n);
      break;
    case Activation::GELU:
      kernels::gelu_tanh(x, n);
      break;
    case Activation::ReLU:
      kernels::relu(x, n);
      break;
  }
}

// Multi-head causal self-attention of the query at `position` over the cached keys and values 0..position.
// Query head h reads kv head h / (n_heads / n_kv_heads): grouped-query attention (MHA and MQA are the two
// ends of it).
void attend(const ModelConfig& c, RunState& s, int layer, int position, AttentionTrace* trace,
            ThreadPool& pool) {
  const auto head_dim = static_cast<std::size_t>(c.head_dim), kv_dim = static_cast<std::size_t>(c.kv_dim());
  const auto heads_per_kv = static_cast<std::size_t>(c.n_heads / c.n_kv_heads);
  const float scale = std::sqrt(static_cast<float>(head_dim));
  const auto keys = static_cast<std::size_t>(position) + 1;

  auto heads = [&](std::size_t head_begin, std::size_t head_end, int /*worker*/) {
    for (std::size_t h = head_begin; h < head_end; ++h) {
      const float* q = s.q.data() + h * head_dim;
      const std::size_t kv_offset = (h / heads_per_kv) * head_dim;
      float* scores = s.scores.data() + h * s.context_length;
      kernels::dot_strided(scores, s.keys(layer, 0, kv_dim) + kv_offset, kv_dim, keys, q, head_dim);
      for (std::size_t t = 0; t < keys; ++t)
        scores[t] /= scale;
      kernels::softmax(scores, keys);
      if (trace) std::copy(scores, scores + keys, trace->slot(position, layer, static_cast<int>(h)));
      kernels::weighted_row_sum(s.attention.data() + h * head_dim, scores,
                                s.values(layer, 0, kv_dim) + kv_offset, kv_dim, keys, head_dim);
    }
  };
  // Splitting heads across threads pays off only once there are enough keys to read.
  if (pool.size() > 1 && keys >= 64) {
    pool.parallel_for(static_cast<std::size_t>(c.n_heads), heads);
  } else {
    heads(0, static_cast<std::size_t>(c.n_heads), 0);
  }
}

}  // namespace

void forward(const Model& model, RunState& s, int token, int position, AttentionTrace* trace,
             ThreadPool& pool) {
  const ModelConfig& c = model.config;
  const ModelWeights& w = model.weights;
  const auto dim = static_cast<std::size_t>(c.dim);
  const auto hidden = static_cast<std::size_t>(c.hidden_dim);
  const bool pre_norm = c.norm_placement == NormPlacement::PreNorm;
  float* x = s.x.data();

  embedding_row(x, w.token_embedding, token);
  if (c.position == PositionKind::Learned) {
    embedding_row(s.xb.data(), w.position_embedding, position);
    kernels::add_in_place(x, s.xb.data(), dim);
  } else if (c.position == PositionKind::Sinusoidal) {
    add_sinusoidal_position(x, c.dim, position);
  }

  const Tensor none;
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerWeights& layer = w.layers[static_cast<std::size_t>(l)];

    // --- attention sub-block ---
    const float* attn_in = x;
    if (pre_norm) {
      normalize(c, s.xb.data(), x, layer.attn_norm, layer.attn_norm_bias);
      attn_in = s.xb.data();
    }
    float* k = s.keys(l, position, c.kv_dim());
    float* v = s.values(l, position, c.kv_dim());
    linear(s.q.data(), layer.wq, layer.bq, attn_in, pool, s.decode);
    linear(k, layer.wk, layer.bk, attn_in, pool, s.decode);
    linear(v, layer.wv, layer.bv, attn_in, pool, s.decode);
    if (c.position == PositionKind::RoPE) {
      const std::size_t half = static_cast<std::size_t>(c.rotary_dim()) / 2;
      const float* cos_table = s.rope_cos.data() + static_cast<std::size_t>(position) * half;
      const float* sin_table = s.rope_sin.data() + static_cast<std::size_t>(position) * half;
      for (int h = 0; h < c.n_heads; ++h)
        kernels::rope(s.q.data() + h * c.head_dim, cos_table, sin_table, 2 * half, c.rope_pairing);
      for (int h = 0; h < c.n_kv_heads; ++h)
        kernels::rope(k + h * c.head_dim, cos_table, sin_table, 2 * half, c.rope_pairing);
    }
    attend(c, s, l, position, trace, pool);
    linear(s.xb2.data(), layer.wo, layer.bo, s.attention.data(), pool, s.decode);
    kernels::add_in_place(x, s.xb2.data(), dim);
    if (!pre_norm) normalize(c, x, x, layer.attn_norm, layer.attn_norm_bias);

    // --- feed-forward sub-block ---
    const float* ffn_in = x;
    if (pre_norm) {
      normalize(c, s.xb.data(), x, layer.ffn_norm, layer.ffn_norm_bias);
      ffn_in = s.xb.data();
    }
    float* hidden_out = s.hb.data();  // what the down projection reads
    if (c.gated_ffn) {
      linear(s.hb.data(), layer.ffn_gate, layer.ffn_gate_bias, ffn_in, pool, s.decode);
      linear(s.hb2.data(), layer.ffn_up, layer.ffn_up_bias, ffn_in, pool, s.decode);
      if (c.activation == Activation::SiLU) {
        kernels::swiglu(s.hb.data(), s.hb2.data(), hidden);  // silu(gate) * up, fused
      } else {
        activate(c.activation, s.hb.data(), hidden);
        for (std::size_t i = 0; i < hidden; ++i)
          s.hb[i] *= s.hb2[i];
      }
    } else {
      linear(s.hb.data(), layer.ffn_up, layer.ffn_up_bias, ffn_in, pool, s.decode);
      activate(c.activation, s.hb.data(), hidden);
    }
    linear(s.xb2.data(), layer.ffn_down, layer.ffn_down_bias, hidden_out, pool, s.decode);
    kernels::add_in_place(x, s.xb2.data(), dim);
    if (!pre_norm) normalize(c, x, x, layer.ffn_norm, layer.ffn_norm_bias);
  }

  if (w.final_norm.present()) normalize(c, x, x, w.final_norm, w.final_norm_bias);
  linear(s.logits.data(), w.output, none, x, pool, s.decode);
}

}  // namespace glassbox
