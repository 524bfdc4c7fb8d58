#include "train/model_gradients.hpp"

#include <algorithm>
#include <numeric>

#include "glassbox/positions.hpp"
#include "kernels/quantized.hpp"
#include "model/dtype.hpp"
#include "train/backward_ops.hpp"
#include "train/forward_ops.hpp"

namespace glassbox::train {
namespace {

// What the backward pass reads back of one layer's forward pass, each [positions][width].
template <class T>
struct LayerActivations {
  std::vector<T> x_in;           // the residual stream entering the layer
  std::vector<T> attn_normed;    // norm(x_in), what q, k, v are projected from
  std::vector<T> q, k, v;        // q and k after RoPE (where the model has it)
  std::vector<T> probabilities;  // [heads][n][n]
  std::vector<T> attn_out;       // the heads' outputs, before wo
  std::vector<T> x_mid;          // the stream after the attention's residual add
  std::vector<T> ffn_normed;     // norm(x_mid)
  std::vector<T> gate, up, h;    // [n][hidden]; h = act(gate) * up (gated; gate empty otherwise) or act(up)
};

template <class T>
struct Activations {
  std::vector<LayerActivations<T>> layers;
  std::vector<T> x_final, final_normed, logits;
  std::vector<std::vector<T>> rope_cos, rope_sin;  // per position, RoPE only
};

struct Sizes {
  std::size_t n, dim, hidden, q_dim, kv_dim, vocab;
  AttentionShape attention;
};

Sizes sizes_of(const ModelConfig& c, std::size_t n) {
  const auto u = [](int v) { return static_cast<std::size_t>(v); };
  return {n,
          u(c.dim),
          u(c.hidden_dim),
          u(c.q_dim()),
          u(c.kv_dim()),
          u(c.vocab_size),
          {n, u(c.n_heads), u(c.n_kv_heads), u(c.head_dim)}};
}

// A tensor the ops read, or null where the model has none (a bias it lacks).
template <class T>
const T* or_null(const std::vector<T>& tensor) {
  return tensor.empty() ? nullptr : tensor.data();
}
template <class T>
T* or_null(std::vector<T>& tensor) {
  return tensor.empty() ? nullptr : tensor.data();
}

// RoPE of `heads` heads of each of the n rows of x (row width heads * head_dim), forward or backward.
template <class T>
void rope_rows_of(const ModelConfig& c, const Activations<T>& a, T* x, std::size_t n, std::size_t heads,
                  bool backward) {
  const auto head_dim = static_cast<std::size_t>(c.head_dim),
             rotary = static_cast<std::size_t>(c.rotary_dim());
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t h = 0; h < heads; ++h) {
      T* head = x + (t * heads + h) * head_dim;
      if (backward) {
        rope_backward(head, a.rope_cos[t].data(), a.rope_sin[t].data(), rotary, c.rope_pairing);
      } else {
        rope_forward(head, a.rope_cos[t].data(), a.rope_sin[t].data(), rotary, c.rope_pairing);
      }
    }
}

// n rows normalized with the model's kind of norm (RMSNorm, or LayerNorm with its bias where it has one).
template <class T>
void norm_rows(const ModelConfig& c, T* out, const T* x, const std::vector<T>& weight,
               const std::vector<T>& bias, std::size_t n, std::size_t dim) {
  const T eps = static_cast<T>(c.norm_eps);
  for (std::size_t t = 0; t < n; ++t) {
    if (c.norm == NormKind::RMSNorm) {
      rmsnorm_forward(out + t * dim, x + t * dim, weight.data(), dim, eps);
    } else {
      layernorm_forward(out + t * dim, x + t * dim, weight.data(), or_null(bias), dim, eps);
    }
  }
}

template <class T>
void norm_rows_backward(const ModelConfig& c, T* dx, std::vector<T>& dweight, std::vector<T>& dbias,
                        const T* dy, const T* x, const std::vector<T>& weight, std::size_t n,
                        std::size_t dim) {
  const T eps = static_cast<T>(c.norm_eps);
  for (std::size_t t = 0; t < n; ++t) {
    if (c.norm == NormKind::RMSNorm) {
      rmsnorm_backward(dx + t * dim, dweight.data(), dy + t * dim, x + t * dim, weight.data(), dim, eps);
    } else {
      layernorm_backward(dx + t * dim, dweight.data(), or_null(dbias), dy + t * dim, x + t * dim,
                         weight.data(), dim, eps);
    }
  }
}

template <class T>
void add_into(std::vector<T>& x, const std::vector<T>& y) {
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] += y[i];
}

template <class T>
void forward(const ModelConfig& c, const ModelParameters<T>& p, const std::vector<int>& inputs,
             Activations<T>& a) {
  const Sizes s = sizes_of(c, inputs.size());
  const std::size_t n = s.n;
  const bool rope = c.position == PositionKind::RoPE;
  if (rope) {
    a.rope_cos.resize(n);
    a.rope_sin.resize(n);
    for (std::size_t t = 0; t < n; ++t)
      rope_rows(c, static_cast<int>(t), -1, a.rope_cos[t], a.rope_sin[t]);
  }

  std::vector<T> x(n * s.dim), projected(n * s.dim);
  embedding_forward(x.data(), p.token_embedding.data(), inputs.data(), n, s.dim);
  if (c.position == PositionKind::Learned) {  // each row starts at position 0
    std::vector<int> positions(n);
    std::iota(positions.begin(), positions.end(), 0);
    embedding_forward(projected.data(), p.position_embedding.data(), positions.data(), n, s.dim);
    add_into(x, projected);
  } else if (c.position == PositionKind::Sinusoidal) {
    // The forward pass's own fixed table (glassbox/positions.hpp), in float as it adds it; no weights, so
    // the backward pass has nothing to do for it.
    std::vector<float> code(s.dim);
    for (std::size_t t = 0; t < n; ++t) {
      sinusoidal_code(static_cast<int>(t), code);
      for (std::size_t i = 0; i < s.dim; ++i)
        x[t * s.dim + i] += static_cast<T>(code[i]);
    }
  }
  a.layers.resize(p.layers.size());
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    const LayerParameters<T>& w = p.layers[l];
    LayerActivations<T>& L = a.layers[l];
    L.x_in = x;
    L.attn_normed.resize(n * s.dim);
    norm_rows(c, L.attn_normed.data(), x.data(), w.attn_norm, w.attn_norm_bias, n, s.dim);
    L.q.resize(n * s.q_dim), L.k.resize(n * s.kv_dim), L.v.resize(n * s.kv_dim);
    linear_forward(L.q.data(), L.attn_normed.data(), w.wq.data(), or_null(w.bq), n, s.dim, s.q_dim);
    linear_forward(L.k.data(), L.attn_normed.data(), w.wk.data(), or_null(w.bk), n, s.dim, s.kv_dim);
    linear_forward(L.v.data(), L.attn_normed.data(), w.wv.data(), or_null(w.bv), n, s.dim, s.kv_dim);
    if (rope) {
      rope_rows_of(c, a, L.q.data(), n, s.attention.n_heads, false);
      rope_rows_of(c, a, L.k.data(), n, s.attention.n_kv_heads, false);
    }
    L.probabilities.resize(s.attention.n_heads * n * n);
    L.attn_out.resize(n * s.q_dim);
    attention_forward(L.attn_out.data(), L.probabilities.data(), L.q.data(), L.k.data(), L.v.data(),
                      s.attention);
    linear_forward(projected.data(), L.attn_out.data(), w.wo.data(), or_null(w.bo), n, s.q_dim, s.dim);
    add_into(x, projected);
    L.x_mid = x;

    L.ffn_normed.resize(n * s.dim);
    norm_rows(c, L.ffn_normed.data(), x.data(), w.ffn_norm, w.ffn_norm_bias, n, s.dim);
    L.up.resize(n * s.hidden), L.h.resize(n * s.hidden);
    if (c.gated_ffn) {
      L.gate.resize(n * s.hidden);
      linear_forward(L.gate.data(), L.ffn_normed.data(), w.ffn_gate.data(), or_null(w.ffn_gate_bias), n,
                     s.dim, s.hidden);
    }
    linear_forward(L.up.data(), L.ffn_normed.data(), w.ffn_up.data(), or_null(w.ffn_up_bias), n, s.dim,
                   s.hidden);
    feed_forward_middle(c, L.h.data(), L.gate.data(), L.up.data(), n);
    linear_forward(projected.data(), L.h.data(), w.ffn_down.data(), or_null(w.ffn_down_bias), n, s.hidden,
                   s.dim);
    add_into(x, projected);
  }
  a.x_final = x;
  a.final_normed.resize(n * s.dim);
  norm_rows(c, a.final_normed.data(), x.data(), p.final_norm, p.final_norm_bias, n, s.dim);
  a.logits.resize(n * s.vocab);
  const std::vector<T>& classifier = p.output.empty() ? p.token_embedding : p.output;
  linear_forward(a.logits.data(), a.final_normed.data(), classifier.data(), static_cast<const T*>(nullptr), n,
                 s.dim, s.vocab);
}

// The backward pass's buffers of derivatives, each [positions][width].
template <class T>
struct Derivatives {
  std::vector<T> dlogits, dnormed, dx, dh, dgate, dup, dattn, dq, dk, dv;
};

// One thread's buffers, kept from one call to the next: the trainer runs a row at a time on each thread,
// and allocating these afresh for every row (megabytes, which the kernel maps, zeroes and unmaps again)
// took a tenth of a small model's step.
template <class T>
struct Workspace {
  Activations<T> activations;
  Derivatives<T> derivatives;
};
template <class T>
Workspace<T>& workspace() {
  thread_local Workspace<T> w;
  return w;
}

// v as `size` zeros.
template <class T>
std::vector<T>& zeros(std::vector<T>& v, std::size_t size) {
  v.assign(size, T(0));
  return v;
}

template <class T>
void backward(const ModelConfig& c, const ModelParameters<T>& p, const std::vector<int>& inputs,
              const std::vector<int>& targets, const Activations<T>& a, ModelParameters<T>& g,
              Derivatives<T>& d) {
  const Sizes s = sizes_of(c, inputs.size());
  const std::size_t n = s.n;
  const bool rope = c.position == PositionKind::RoPE;

  std::vector<T>& dlogits = zeros(d.dlogits, n * s.vocab);
  cross_entropy_backward(dlogits.data(), a.logits.data(), targets.data(), n, s.vocab);
  const bool tied = p.output.empty();
  std::vector<T>& dnormed = zeros(d.dnormed, n * s.dim);
  linear_backward(dnormed.data(), (tied ? g.token_embedding : g.output).data(), static_cast<T*>(nullptr),
                  dlogits.data(), a.final_normed.data(), (tied ? p.token_embedding : p.output).data(), n,
                  s.dim, s.vocab);
  std::vector<T>& dx = zeros(d.dx, n * s.dim);  // dLoss / d(the residual stream) at the current depth
  norm_rows_backward(c, dx.data(), g.final_norm, g.final_norm_bias, dnormed.data(), a.x_final.data(),
                     p.final_norm, n, s.dim);

  // Each zeroed again before each use below.
  std::vector<T>& dh = zeros(d.dh, n * s.hidden);
  std::vector<T>& dgate = zeros(d.dgate, c.gated_ffn ? n * s.hidden : 0);
  std::vector<T>& dup = zeros(d.dup, n * s.hidden);
  std::vector<T>& dattn = zeros(d.dattn, n * s.q_dim);
  std::vector<T>& dq = zeros(d.dq, n * s.q_dim);
  std::vector<T>& dk = zeros(d.dk, n * s.kv_dim);
  std::vector<T>& dv = zeros(d.dv, n * s.kv_dim);
  for (std::size_t l = p.layers.size(); l-- > 0;) {
    const LayerParameters<T>& w = p.layers[l];
    LayerParameters<T>& gw = g.layers[l];
    const LayerActivations<T>& L = a.layers[l];

    // x_out = x_mid + w_down h + b_down: dx passes to x_mid unchanged (the residual), and into the
    // feed-forward.
    std::fill(dh.begin(), dh.end(), T(0));
    linear_backward(dh.data(), gw.ffn_down.data(), or_null(gw.ffn_down_bias), dx.data(), L.h.data(),
                    w.ffn_down.data(), n, s.hidden, s.dim);
    std::fill(dup.begin(), dup.end(), T(0));
    std::fill(dnormed.begin(), dnormed.end(), T(0));
    if (c.gated_ffn) {
      std::fill(dgate.begin(), dgate.end(), T(0));
      gated_backward(dgate.data(), dup.data(), dh.data(), L.gate.data(), L.up.data(), n * s.hidden,
                     c.activation);
      linear_backward(dnormed.data(), gw.ffn_gate.data(), or_null(gw.ffn_gate_bias), dgate.data(),
                      L.ffn_normed.data(), w.ffn_gate.data(), n, s.dim, s.hidden);
    } else {
      activation_backward(dup.data(), dh.data(), L.up.data(), n * s.hidden, c.activation);
    }
    linear_backward(dnormed.data(), gw.ffn_up.data(), or_null(gw.ffn_up_bias), dup.data(),
                    L.ffn_normed.data(), w.ffn_up.data(), n, s.dim, s.hidden);
    norm_rows_backward(c, dx.data(), gw.ffn_norm, gw.ffn_norm_bias, dnormed.data(), L.x_mid.data(),
                       w.ffn_norm, n, s.dim);

    // x_mid = x_in + wo attention(...) + bo: the same split at the attention's residual add.
    std::fill(dattn.begin(), dattn.end(), T(0));
    linear_backward(dattn.data(), gw.wo.data(), or_null(gw.bo), dx.data(), L.attn_out.data(), w.wo.data(), n,
                    s.q_dim, s.dim);
    std::fill(dq.begin(), dq.end(), T(0));
    std::fill(dk.begin(), dk.end(), T(0));
    std::fill(dv.begin(), dv.end(), T(0));
    attention_backward(dq.data(), dk.data(), dv.data(), dattn.data(), L.probabilities.data(), L.q.data(),
                       L.k.data(), L.v.data(), s.attention);
    if (rope) {
      rope_rows_of(c, a, dq.data(), n, s.attention.n_heads, true);
      rope_rows_of(c, a, dk.data(), n, s.attention.n_kv_heads, true);
    }
    std::fill(dnormed.begin(), dnormed.end(), T(0));
    linear_backward(dnormed.data(), gw.wq.data(), or_null(gw.bq), dq.data(), L.attn_normed.data(),
                    w.wq.data(), n, s.dim, s.q_dim);
    linear_backward(dnormed.data(), gw.wk.data(), or_null(gw.bk), dk.data(), L.attn_normed.data(),
                    w.wk.data(), n, s.dim, s.kv_dim);
    linear_backward(dnormed.data(), gw.wv.data(), or_null(gw.bv), dv.data(), L.attn_normed.data(),
                    w.wv.data(), n, s.dim, s.kv_dim);
    norm_rows_backward(c, dx.data(), gw.attn_norm, gw.attn_norm_bias, dnormed.data(), L.x_in.data(),
                       w.attn_norm, n, s.dim);
  }
  embedding_backward(g.token_embedding.data(), dx.data(), inputs.data(), n, s.dim);
  if (c.position == PositionKind::Learned) {  // position t's row gathers the stream's derivative at t
    std::vector<int> positions(n);
    std::iota(positions.begin(), positions.end(), 0);
    embedding_backward(g.position_embedding.data(), dx.data(), positions.data(), n, s.dim);
  }
}

// The inputs (every token but the last) and their targets (every token but the first), after checking them.
Result<void> split_tokens(const ModelConfig& c, std::span<const int> tokens, std::vector<int>& inputs,
                          std::vector<int>& targets) {
  if (tokens.size() < 2)
    return error(ErrorCode::BadArgument, "training needs at least 2 tokens, got ", tokens.size());
  if (tokens.size() > static_cast<std::size_t>(c.max_seq_len))
    return error(ErrorCode::PromptTooLong, "a training sequence of ", tokens.size(),
                 " tokens is longer than the model's context of ", c.max_seq_len);
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= c.vocab_size)
      return error(ErrorCode::BadArgument, "token ", tokens[i], " at ", i, " is outside the vocabulary of ",
                   c.vocab_size);
  inputs.assign(tokens.begin(), tokens.end() - 1);
  targets.assign(tokens.begin() + 1, tokens.end());
  return {};
}

}  // namespace

bool names_norm_gain(std::string_view name) {
  return name.ends_with("norm");
}

bool names_bias(std::string_view name) {
  // glassbox::LayerWeights' short names for the attention's biases; the others say "bias".
  return name.find("bias") != std::string_view::npos || name.ends_with(".bq") || name.ends_with(".bk") ||
         name.ends_with(".bv") || name.ends_with(".bo");
}

Result<void> check_trainable(const ModelConfig& c) {
  const auto unsupported = [](const char* what) {
    return error(ErrorCode::UnsupportedArchitecture,
                 "training supports Llama- and GPT-2-architecture models only: ", what);
  };
  if (!c.causal) return unsupported("the model is an encoder");
  if (c.norm_placement != NormPlacement::PreNorm) return unsupported("the norms are not Pre-LN");
  if (c.position != PositionKind::RoPE && c.position != PositionKind::Learned &&
      c.position != PositionKind::Sinusoidal)
    return unsupported("positions are neither RoPE, learned nor sinusoidal");
  if (c.qk_norm) return unsupported("the model normalizes q and k");
  if (c.sliding_window > 0) return unsupported("the model has sliding-window layers");
  if (c.final_logit_softcap > 0) return unsupported("the model soft-caps its logits");
  if (c.scaled_embeddings) return unsupported("the model scales its embeddings");
  if (c.embedding_norm || c.n_token_types > 0) return unsupported("the model normalizes its embeddings");
  return {};
}

template <class T>
Result<ModelParameters<T>> model_parameters(const Model& model, std::vector<StoredTypeCount>* stored_types) {
  const ModelConfig& c = model.config;
  if (auto ok = check_trainable(c); !ok.ok()) return ok.error();
  const ModelWeights& w = model.weights;
  std::vector<StoredTypeCount> types;
  std::vector<float> row;
  // Copies a tensor the model has, row by row through the engine's decoder (F32 rows are copied as they
  // are); one it lacks stays empty. The name only says at the call which tensor it is.
  const auto copy = [&](const char* /*name*/, const Tensor& t, std::vector<T>& out) {
    if (!t.present()) return;
    const auto cols = static_cast<std::size_t>(t.cols);
    const auto row_bytes = static_cast<std::size_t>(tensor_bytes(t.type, 1, t.cols));
    row.resize(cols);
    out.resize(static_cast<std::size_t>(t.elements()));
    for (std::size_t r = 0; r < static_cast<std::size_t>(t.rows); ++r) {
      kernels::dequantize_row(t.type, t.data + r * row_bytes, row.data(), cols);
      std::copy(row.begin(), row.end(), out.begin() + static_cast<std::ptrdiff_t>(r * cols));
    }
    const auto seen =
        std::find_if(types.begin(), types.end(), [&](const StoredTypeCount& s) { return s.type == t.type; });
    if (seen != types.end())
      ++seen->tensors;
    else
      types.push_back({t.type, 1});
  };
  // An RMSNorm's bias, which the forward pass ignores (layer_steps.hpp's normalize), is no weight to train.
  const auto rms_bias = [&](const Tensor& bias) { return c.norm == NormKind::RMSNorm && bias.present(); };
  const Error ignored_bias =
      error(ErrorCode::UnsupportedArchitecture, "training: the model's RMSNorm has a bias, which it ignores");
  ModelParameters<T> p;
  copy("token_embedding", w.token_embedding, p.token_embedding);
  if (c.position == PositionKind::Learned) {
    if (w.position_embedding.rows < c.max_seq_len || w.position_embedding.cols != c.dim)
      return error(ErrorCode::UnsupportedArchitecture, "training needs a learned position table of ",
                   c.max_seq_len, " rows of ", c.dim, " values (the context), found ",
                   w.position_embedding.rows, " x ", w.position_embedding.cols);
    copy("position_embedding", w.position_embedding, p.position_embedding);
  }
  for (const LayerWeights& L : w.layers) {
    if (rms_bias(L.attn_norm_bias) || rms_bias(L.ffn_norm_bias)) return ignored_bias;
    LayerParameters<T>& out = p.layers.emplace_back();
    copy("attn_norm", L.attn_norm, out.attn_norm);
    copy("attn_norm_bias", L.attn_norm_bias, out.attn_norm_bias);
    copy("wq", L.wq, out.wq);
    copy("wk", L.wk, out.wk);
    copy("wv", L.wv, out.wv);
    copy("bq", L.bq, out.bq);
    copy("bk", L.bk, out.bk);
    copy("bv", L.bv, out.bv);
    copy("wo", L.wo, out.wo);
    copy("bo", L.bo, out.bo);
    copy("ffn_norm", L.ffn_norm, out.ffn_norm);
    copy("ffn_norm_bias", L.ffn_norm_bias, out.ffn_norm_bias);
    if (c.gated_ffn) {
      copy("ffn_gate", L.ffn_gate, out.ffn_gate);
      copy("ffn_gate_bias", L.ffn_gate_bias, out.ffn_gate_bias);
    }
    copy("ffn_up", L.ffn_up, out.ffn_up);
    copy("ffn_up_bias", L.ffn_up_bias, out.ffn_up_bias);
    copy("ffn_down", L.ffn_down, out.ffn_down);
    copy("ffn_down_bias", L.ffn_down_bias, out.ffn_down_bias);
  }
  if (rms_bias(w.final_norm_bias)) return ignored_bias;
  copy("final_norm", w.final_norm, p.final_norm);
  copy("final_norm_bias", w.final_norm_bias, p.final_norm_bias);
  if (w.output.data != w.token_embedding.data) copy("output", w.output, p.output);
  if (stored_types) *stored_types = std::move(types);
  return p;
}

template <class T>
ModelParameters<T> zeros_like(const ModelParameters<T>& parameters) {
  ModelParameters<T> zeros = parameters;
  zeros.for_each(
      [](const std::string&, std::vector<T>& tensor) { std::fill(tensor.begin(), tensor.end(), T(0)); });
  return zeros;
}

// The loss of the forward pass's logits, its log-probabilities into `log_probabilities` when given.
template <class T>
double loss_of(const ModelConfig& config, const Activations<T>& a, const std::vector<int>& targets,
               std::vector<double>* log_probabilities) {
  std::vector<double> lp(targets.size());
  target_log_probabilities(a.logits.data(), targets.data(), targets.size(),
                           static_cast<std::size_t>(config.vocab_size), lp.data());
  const double loss = mean_negative(lp);
  if (log_probabilities) *log_probabilities = std::move(lp);
  return loss;
}

template <class T>
Result<double> model_loss(const ModelConfig& config, const ModelParameters<T>& parameters,
                          std::span<const int> tokens) {
  std::vector<int> inputs, targets;
  if (auto ok = split_tokens(config, tokens, inputs, targets); !ok.ok()) return ok.error();
  Activations<T>& a = workspace<T>().activations;
  forward(config, parameters, inputs, a);
  return loss_of(config, a, targets, nullptr);
}

template <class T>
Result<double> model_loss_and_gradients(const ModelConfig& config, const ModelParameters<T>& parameters,
                                        std::span<const int> tokens, ModelParameters<T>& gradients,
                                        std::vector<double>* log_probabilities) {
  std::vector<int> inputs, targets;
  if (auto ok = split_tokens(config, tokens, inputs, targets); !ok.ok()) return ok.error();
  Workspace<T>& w = workspace<T>();
  forward(config, parameters, inputs, w.activations);
  backward(config, parameters, inputs, targets, w.activations, gradients, w.derivatives);
  return loss_of(config, w.activations, targets, log_probabilities);
}

#define GLASSBOX_MODEL_GRADIENTS(T)                                                                     \
  template Result<ModelParameters<T>> model_parameters<T>(const Model&, std::vector<StoredTypeCount>*); \
  template ModelParameters<T> zeros_like<T>(const ModelParameters<T>&);                                 \
  template Result<double> model_loss<T>(const ModelConfig&, const ModelParameters<T>&,                  \
                                        std::span<const int>);                                          \
  template Result<double> model_loss_and_gradients<T>(const ModelConfig&, const ModelParameters<T>&,    \
                                                      std::span<const int>, ModelParameters<T>&,        \
                                                      std::vector<double>*);
GLASSBOX_MODEL_GRADIENTS(float)
GLASSBOX_MODEL_GRADIENTS(double)
#undef GLASSBOX_MODEL_GRADIENTS

}  // namespace glassbox::train
