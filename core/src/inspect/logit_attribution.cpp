// Direct logit attribution (glassbox/logit_attribution.hpp). The stream entering each layer at the position
// comes from the residual trace; each layer's attention and feed-forward are recomputed from it with the
// forward pass's own steps (model/layer_steps.hpp, linear()) over the session's KV cache, so the stream they
// rebuild is the one the model computed. Only the split of a block's output into parts (a head's columns of
// W_o, the bias apart) and the norms held fixed are new arithmetic, in double.
#include "inspect/logit_attribution.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "glassbox/error.hpp"
#include "kernels/quantized_activations.hpp"
#include "model/head_ablation.hpp"
#include "model/layer_steps.hpp"
#include "model/linear.hpp"

namespace glassbox {
namespace {

using Vector = std::vector<double>;

Vector as_doubles(std::span<const float> x) {
  return Vector(x.begin(), x.end());
}

// A norm with its scale held fixed at what it was for `input`, the vector it really normalized: applied to a
// part v of that input it gives weight * (v - mean(v)) / sigma (LayerNorm) or weight * v / rms (RMSNorm),
// which summed over the parts is the norm's output less its bias.
class FixedNorm {
 public:
  FixedNorm(const ModelConfig& c, std::span<const float> input, const Tensor& weight)
      : centre_(c.norm == NormKind::LayerNorm), factor_(input.size()) {
    const auto n = static_cast<double>(input.size());
    double mean = 0.0;
    if (centre_) {
      for (float v : input)
        mean += v;
      mean /= n;
    }
    double square = 0.0;
    for (float v : input)
      square += (v - mean) * (v - mean);
    const double scale = 1.0 / std::sqrt(square / n + static_cast<double>(c.norm_eps));
    for (std::size_t i = 0; i < factor_.size(); ++i)
      factor_[i] = static_cast<double>(weight.f32()[i]) * scale;
  }

  Vector operator()(const Vector& v) const {
    double mean = 0.0;
    if (centre_) {
      for (double x : v)
        mean += x;
      mean /= static_cast<double>(v.size());
    }
    Vector out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      out[i] = factor_[i] * (v[i] - mean);
    return out;
  }

 private:
  bool centre_;
  Vector factor_;  // weight / sigma
};

// What a vector added to the stream before the final norm contributes to the token's logit: the final norm
// held fixed at the position, then the token's unembedding row. The final norm's bias is no part's.
class LogitOfPart {
 public:
  LogitOfPart(const ModelConfig& c, const ModelWeights& w, std::span<const float> final_stream, int token)
      : unembedding_(static_cast<std::size_t>(c.dim)) {
    std::vector<float> row(unembedding_.size());
    embedding_row(row.data(), w.output, token);
    unembedding_ = as_doubles(row);
    if (w.final_norm.present()) norm_.emplace_back(c, final_stream, w.final_norm);
  }

  double operator()(const Vector& part) const {
    const Vector normed = norm_.empty() ? part : norm_.front()(part);
    double logit = 0.0;
    for (std::size_t i = 0; i < normed.size(); ++i)
      logit += unembedding_[i] * normed[i];
    return logit;
  }

  // The token's logit for an already-normed stream (or a bias added after the norm).
  double of_normed(std::span<const float> normed) const {
    double logit = 0.0;
    for (std::size_t i = 0; i < normed.size(); ++i)
      logit += unembedding_[i] * normed[i];
    return logit;
  }

 private:
  Vector unembedding_;
  std::vector<FixedNorm> norm_;  // none where the model has no final norm
};

Vector bias_or_zero(const Tensor& bias, std::size_t n) {
  if (!bias.present()) return Vector(n, 0.0);
  return as_doubles(std::span<const float>(bias.f32(), n));
}

// o as the product with W_o reads it: where W_o's type takes the integer kernels, each block of 32 values
// rounded to 8 bits as the forward pass rounds it (kernels/quantized_activations.hpp), so that the heads'
// parts add up to the product the model computed; else o itself.
std::vector<float> product_input(const Tensor& wo, const std::vector<float>& o) {
  if (!uses_int_dot(wo)) return o;
  const std::size_t n = o.size();
  std::vector<int8_t> q(n);
  std::vector<float> d(n / kernels::kActivationBlock), rounded(n);
  std::vector<int32_t> sums16(n / 16), sums32(n / kernels::kActivationBlock);
  kernels::quantize_activations(o.data(), n, q.data(), d.data(), sums16.data(), sums32.data());
  for (std::size_t j = 0; j < n; ++j)
    rounded[j] = static_cast<float>(q[j]) * d[j / kernels::kActivationBlock];
  return rounded;
}

// Each head's slice of o through its columns of W_o: [n_heads][dim], in double from W_o's decoded rows.
std::vector<Vector> head_parts(const ModelConfig& c, const Tensor& wo,
                               const std::vector<float>& head_outputs) {
  const auto dim = static_cast<std::size_t>(c.dim), head_dim = static_cast<std::size_t>(c.head_dim);
  const std::vector<float> o = product_input(wo, head_outputs);
  std::vector<Vector> parts(static_cast<std::size_t>(c.n_heads), Vector(dim, 0.0));
  std::vector<float> row(static_cast<std::size_t>(c.q_dim()));
  for (std::size_t i = 0; i < dim; ++i) {
    embedding_row(row.data(), wo, static_cast<int64_t>(i));
    for (std::size_t h = 0; h < parts.size(); ++h) {
      double sum = 0.0;
      for (std::size_t j = h * head_dim; j < (h + 1) * head_dim; ++j)
        sum += static_cast<double>(row[j]) * o[j];
      parts[h][i] = sum;
    }
  }
  return parts;
}

}  // namespace

double LogitAttribution::sum_of_parts() const {
  double sum = embedding + bias;
  for (double h : heads)
    sum += h;
  for (double m : mlp)
    sum += m;
  return sum;
}

LogitAttribution logit_difference(const LogitAttribution& a, const LogitAttribution& b) {
  LogitAttribution d = a;
  d.baseline_token = b.token;
  d.logit -= b.logit;
  d.embedding -= b.embedding;
  d.bias -= b.bias;
  for (std::size_t i = 0; i < d.heads.size() && i < b.heads.size(); ++i)
    d.heads[i] -= b.heads[i];
  for (std::size_t i = 0; i < d.mlp.size() && i < b.mlp.size(); ++i)
    d.mlp[i] -= b.mlp[i];
  return d;
}

Result<LogitAttribution> attribute_logit(const Model& model, const RunState& s,
                                         const ResidualTrace& residuals, ThreadPool& pool, int position,
                                         int token) {
  const ModelConfig& c = model.config;
  const ModelWeights& w = model.weights;
  if (c.norm_placement == NormPlacement::PostNorm)
    return error(ErrorCode::BadArgument,
                 "direct logit attribution needs the residual stream to be a sum of the blocks' outputs, and "
                 "this model is Post-LN: it normalizes the stream after every block, so no part reaches the "
                 "classifier on its own");
  if (!s.attention.is_exact())
    return error(ErrorCode::BadArgument,
                 "direct logit attribution recomputes exact attention, and this "
                 "session runs '",
                 to_string(s.attention), "'");
  if (token < 0 || token >= c.vocab_size)
    return error(ErrorCode::BadArgument, "token ", token, " is not in the vocabulary (0..", c.vocab_size - 1,
                 ")");
  if (!residuals.kept(position))
    return error(ErrorCode::NotRecorded, "position ", position,
                 " is not in the residual trace (it holds positions ", residuals.first_kept(), "..",
                 residuals.n_positions() - 1, ")");

  const auto dim = static_cast<std::size_t>(c.dim), head_dim = static_cast<std::size_t>(c.head_dim);
  const auto kv_dim = static_cast<std::size_t>(c.kv_dim()), q_dim = static_cast<std::size_t>(c.q_dim());
  const auto heads_per_kv = static_cast<std::size_t>(c.n_heads / c.n_kv_heads);
  const std::span<const float> final_stream = residuals.row(c.n_layers, position);
  const LogitOfPart logit_of(c, w, final_stream, token);
  DecodeScratch scratch(pool.size(), static_cast<std::size_t>(std::max({c.dim, c.q_dim(), c.hidden_dim})), 1);
  const Tensor none;

  LogitAttribution a;
  a.position = position;
  a.token = token;
  a.n_layers = c.n_layers;
  a.n_heads = c.n_heads;
  // The model's own logit: the final norm as the forward pass takes it, then the unembedding row.
  std::vector<float> normed(dim), x(dim), block(dim);
  if (w.final_norm.present()) {
    normalize(c, normed.data(), final_stream.data(), w.final_norm, w.final_norm_bias);
    a.logit = logit_of.of_normed(normed);
    if (w.final_norm_bias.present())
      a.bias += logit_of.of_normed(std::span<const float>(w.final_norm_bias.f32(), dim));
  } else {
    a.logit = logit_of.of_normed(final_stream);
  }
  a.embedding = logit_of(as_doubles(residuals.row(0, position)));

  std::vector<float> q(q_dim), o(q_dim), probabilities(static_cast<std::size_t>(position) + 1);
  std::vector<float> hidden(static_cast<std::size_t>(c.hidden_dim)), up(hidden.size());
  const bool sandwich = c.norm_placement == NormPlacement::Sandwich;
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerWeights& layer = w.layers[static_cast<std::size_t>(l)];
    const auto row = residuals.row(l, position);
    std::copy(row.begin(), row.end(), x.begin());

    // Attention, as forward() computes it for this one position over the cached keys and values.
    normalize(c, normed.data(), x.data(), layer.attn_norm, layer.attn_norm_bias);
    linear(q.data(), layer.wq, layer.bq, normed.data(), pool, scratch);
    place_heads(c, s, q.data(), c.n_heads, layer.q_norm, l, position);
    const std::size_t layer_rows = static_cast<std::size_t>(l) * static_cast<std::size_t>(s.context_length);
    const float* keys = s.key_cache.data() + layer_rows * kv_dim;
    const float* values = s.value_cache.data() + layer_rows * kv_dim;
    const auto first_key = static_cast<std::size_t>(c.first_visible_key(l, position));
    const auto n_keys = static_cast<std::size_t>(position) + 1;
    for (std::size_t h = 0; h < static_cast<std::size_t>(c.n_heads); ++h) {
      const std::size_t kv_offset = (h / heads_per_kv) * head_dim;
      attention_probabilities(probabilities.data(), q.data() + h * head_dim, keys + kv_offset, kv_dim,
                              first_key, n_keys, head_dim,
                              score_bias(c, h, static_cast<std::size_t>(position)));
      float* out = o.data() + h * head_dim;
      attention_output(out, probabilities.data(), values + kv_offset, kv_dim, first_key, n_keys, head_dim);
      ablate_head_output(c, s.head_scales, s.head_offsets, l, h, out);
    }
    linear(block.data(), layer.wo, layer.bo, o.data(), pool, scratch);
    std::vector<Vector> heads = head_parts(c, layer.wo, o);
    Vector bias = bias_or_zero(layer.bo, dim);
    if (sandwich) {
      const FixedNorm post(c, block, layer.attn_post_norm);
      for (Vector& part : heads)
        part = post(part);
      bias = post(bias);
      normalize(c, block.data(), block.data(), layer.attn_post_norm, none);
    }
    for (const Vector& part : heads)
      a.heads.push_back(logit_of(part));
    a.bias += logit_of(bias);
    kernels::add_in_place(x.data(), block.data(), dim);  // the stream between the two sub-blocks

    // The feed-forward, the same way.
    normalize(c, normed.data(), x.data(), layer.ffn_norm, layer.ffn_norm_bias);
    if (c.gated_ffn) {
      linear(hidden.data(), layer.ffn_gate, layer.ffn_gate_bias, normed.data(), pool, scratch);
      linear(up.data(), layer.ffn_up, layer.ffn_up_bias, normed.data(), pool, scratch);
    } else {
      linear(hidden.data(), layer.ffn_up, layer.ffn_up_bias, normed.data(), pool, scratch);
    }
    feed_forward_hidden(c, hidden.data(), up.data());
    linear(block.data(), layer.ffn_down, none, hidden.data(), pool, scratch);
    Vector mlp = as_doubles(block);
    bias = bias_or_zero(layer.ffn_down_bias, dim);
    if (sandwich) {
      if (layer.ffn_down_bias.present()) kernels::add_in_place(block.data(), layer.ffn_down_bias.f32(), dim);
      const FixedNorm post(c, block, layer.ffn_post_norm);
      mlp = post(mlp);
      bias = post(bias);
    }
    a.mlp.push_back(logit_of(mlp));
    a.bias += logit_of(bias);
  }
  return a;
}

}  // namespace glassbox
