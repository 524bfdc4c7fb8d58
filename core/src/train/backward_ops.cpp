#include "train/backward_ops.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "train/float_activations.hpp"
#include "train/float_products.hpp"

namespace glassbox::train {

template <class T>
void embedding_backward(T* dtable, const T* dout, const int* tokens, std::size_t n, std::size_t dim) {
  for (std::size_t t = 0; t < n; ++t) {
    T* row = dtable + static_cast<std::size_t>(tokens[t]) * dim;
    for (std::size_t i = 0; i < dim; ++i)
      row[i] += dout[t * dim + i];
  }
}

template <class T>
void rmsnorm_backward(T* dx, T* dweight, const T* dy, const T* x, const T* weight, std::size_t n, T eps) {
  T mean_square = 0;
  for (std::size_t i = 0; i < n; ++i)
    mean_square += x[i] * x[i];
  mean_square /= static_cast<T>(n);
  const T r = T(1) / std::sqrt(mean_square + eps);
  T g_dot_x = 0;
  for (std::size_t i = 0; i < n; ++i)
    g_dot_x += dy[i] * weight[i] * x[i];
  const T pull = r * r * r * g_dot_x / static_cast<T>(n);
  for (std::size_t i = 0; i < n; ++i) {
    dweight[i] += dy[i] * x[i] * r;
    dx[i] += r * dy[i] * weight[i] - pull * x[i];
  }
}

template <class T>
void layernorm_backward(T* dx, T* dweight, T* dbias, const T* dy, const T* x, const T* weight, std::size_t n,
                        T eps) {
  const auto [mean, r] = layernorm_statistics(x, n, eps);
  T mean_g = 0, mean_g_xhat = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const T g = dy[i] * weight[i];
    mean_g += g;
    mean_g_xhat += g * (x[i] - mean) * r;
  }
  mean_g /= static_cast<T>(n);
  mean_g_xhat /= static_cast<T>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const T xhat = (x[i] - mean) * r;
    if (dbias) dbias[i] += dy[i];
    dweight[i] += dy[i] * xhat;
    dx[i] += r * (dy[i] * weight[i] - mean_g - xhat * mean_g_xhat);
  }
}

template <class T>
void linear_backward(T* dx, T* dweight, T* dbias, const T* dy, const T* x, const T* weight, std::size_t n,
                     std::size_t in_dim, std::size_t out_dim) {
  if constexpr (std::is_same_v<T, float>) {  // training: the engine's batched product (float_products.hpp)
    linear_backward_f32(dx, dweight, dbias, dy, x, weight, n, in_dim, out_dim);
    return;
  }
  for (std::size_t t = 0; t < n; ++t) {
    const T* dy_t = dy + t * out_dim;
    const T* x_t = x + t * in_dim;
    for (std::size_t o = 0; o < out_dim; ++o) {
      const T g = dy_t[o];
      if (dbias) dbias[o] += g;
      T* dw_row = dweight + o * in_dim;
      const T* w_row = weight + o * in_dim;
      for (std::size_t i = 0; i < in_dim; ++i)
        dw_row[i] += g * x_t[i];
      if (dx)
        for (std::size_t i = 0; i < in_dim; ++i)
          dx[t * in_dim + i] += g * w_row[i];
    }
  }
}

template <class T>
void rope_backward(T* d, const T* cos_row, const T* sin_row, std::size_t rotary_dim, RopePairing pairing) {
  const std::size_t half = rotary_dim / 2;
  for (std::size_t i = 0; i < half; ++i) {
    const std::size_t a = pairing == RopePairing::Adjacent ? 2 * i : i;
    const std::size_t b = pairing == RopePairing::Adjacent ? 2 * i + 1 : i + half;
    const T d0 = d[a], d1 = d[b];
    d[a] = d0 * cos_row[i] + d1 * sin_row[i];
    d[b] = -d0 * sin_row[i] + d1 * cos_row[i];
  }
}

template <class T>
void attention_backward(T* dq, T* dk, T* dv, const T* dout, const T* probabilities, const T* q, const T* k,
                        const T* v, const AttentionShape& s) {
  if constexpr (std::is_same_v<T, float>) {  // training: on the engine's kernels (float_products.hpp)
    attention_backward_f32(dq, dk, dv, dout, probabilities, q, k, v, s);
    return;
  }
  const T scale = T(1) / std::sqrt(static_cast<T>(s.head_dim));
  const std::size_t per_kv = s.n_heads / s.n_kv_heads;
  std::vector<T> dscores(s.n);
  for (std::size_t h = 0; h < s.n_heads; ++h) {
    const std::size_t kv = (h / per_kv) * s.head_dim;
    for (std::size_t i = 0; i < s.n; ++i) {
      const T* p = probabilities + (h * s.n + i) * s.n;
      const T* dout_i = dout + i * s.q_width() + h * s.head_dim;
      T weighted = 0;  // sum_k P_ik dP_ik
      for (std::size_t j = 0; j <= i; ++j) {
        T dp = 0;
        const T* v_j = v + j * s.kv_width() + kv;
        T* dv_j = dv + j * s.kv_width() + kv;
        for (std::size_t d = 0; d < s.head_dim; ++d) {
          dp += dout_i[d] * v_j[d];
          dv_j[d] += p[j] * dout_i[d];
        }
        dscores[j] = dp;
        weighted += p[j] * dp;
      }
      const T* q_i = q + i * s.q_width() + h * s.head_dim;
      T* dq_i = dq + i * s.q_width() + h * s.head_dim;
      for (std::size_t j = 0; j <= i; ++j) {
        const T ds = p[j] * (dscores[j] - weighted) * scale;
        const T* k_j = k + j * s.kv_width() + kv;
        T* dk_j = dk + j * s.kv_width() + kv;
        for (std::size_t d = 0; d < s.head_dim; ++d) {
          dq_i[d] += ds * k_j[d];
          dk_j[d] += ds * q_i[d];
        }
      }
    }
  }
}

template <class T>
T activation_derivative(Activation activation, T x) {
  switch (activation) {
    case Activation::SiLU: {
      const T sigma = T(1) / (T(1) + std::exp(-x));
      return sigma * (T(1) + x * (T(1) - sigma));
    }
    case Activation::GELU: {
      const T c = static_cast<T>(0.7978845608028654), a = static_cast<T>(0.044715);
      const T th = std::tanh(c * (x + a * x * x * x));
      return T(0.5) * (T(1) + th) + T(0.5) * x * (T(1) - th * th) * c * (T(1) + T(3) * a * x * x);
    }
    case Activation::GELUExact: {
      const T cdf = T(0.5) * (T(1) + std::erf(x * static_cast<T>(0.7071067811865476)));
      const T pdf = std::exp(T(-0.5) * x * x) * static_cast<T>(0.3989422804014327);  // 1/sqrt(2 pi)
      return cdf + x * pdf;
    }
    case Activation::ReLU:
      return x > T(0) ? T(1) : T(0);
  }
  return T(1);
}

template <class T>
void activation_backward(T* dx, const T* dy, const T* x, std::size_t n, Activation activation) {
  if constexpr (std::is_same_v<T, float>) {  // training: SIMD lanes (train/float_activations.hpp)
    if (has_float_activation_path(activation)) return activation_backward_f32(dx, dy, x, n, activation);
  }
  for (std::size_t i = 0; i < n; ++i)
    dx[i] += dy[i] * activation_derivative(activation, x[i]);
}

template <class T>
void gated_backward(T* dgate, T* dup, const T* dh, const T* gate, const T* up, std::size_t n,
                    Activation activation) {
  if constexpr (std::is_same_v<T, float>) {  // training: SIMD lanes (train/float_activations.hpp)
    if (has_float_activation_path(activation))
      return gated_backward_f32(dgate, dup, dh, gate, up, n, activation);
  }
  for (std::size_t i = 0; i < n; ++i) {
    dgate[i] += dh[i] * up[i] * activation_derivative(activation, gate[i]);
    dup[i] += dh[i] * activation_value(activation, gate[i]);
  }
}

template <class T>
void residual_backward(T* da, const T* dy, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    da[i] += dy[i];
}

template <class T>
void cross_entropy_backward(T* dlogits, const T* logits, const int* targets, std::size_t n, std::size_t vocab,
                            T dloss) {
  const T per_position = dloss / static_cast<T>(n);
  std::vector<double> exps(vocab);  // each logit's exponential, taken once
  for (std::size_t t = 0; t < n; ++t) {
    const T* row = logits + t * vocab;
    T* drow = dlogits + t * vocab;
    const double largest = *std::max_element(row, row + vocab);
    double sum = 0;
    for (std::size_t i = 0; i < vocab; ++i)
      sum += exps[i] = std::exp(static_cast<double>(row[i]) - largest);
    for (std::size_t i = 0; i < vocab; ++i) {
      const double p = exps[i] / sum;
      drow[i] += static_cast<T>(p - (static_cast<int>(i) == targets[t] ? 1.0 : 0.0)) * per_position;
    }
  }
}

#define GLASSBOX_BACKWARD_OPS(T)                                                                       \
  template void embedding_backward<T>(T*, const T*, const int*, std::size_t, std::size_t);             \
  template void rmsnorm_backward<T>(T*, T*, const T*, const T*, const T*, std::size_t, T);             \
  template void layernorm_backward<T>(T*, T*, T*, const T*, const T*, const T*, std::size_t, T);       \
  template void linear_backward<T>(T*, T*, T*, const T*, const T*, const T*, std::size_t, std::size_t, \
                                   std::size_t);                                                       \
  template void rope_backward<T>(T*, const T*, const T*, std::size_t, RopePairing);                    \
  template void attention_backward<T>(T*, T*, T*, const T*, const T*, const T*, const T*, const T*,    \
                                      const AttentionShape&);                                          \
  template T activation_derivative<T>(Activation, T);                                                  \
  template void activation_backward<T>(T*, const T*, const T*, std::size_t, Activation);               \
  template void gated_backward<T>(T*, T*, const T*, const T*, const T*, std::size_t, Activation);      \
  template void residual_backward<T>(T*, const T*, std::size_t);                                       \
  template void cross_entropy_backward<T>(T*, const T*, const int*, std::size_t, std::size_t, T);
GLASSBOX_BACKWARD_OPS(float)
GLASSBOX_BACKWARD_OPS(double)
#undef GLASSBOX_BACKWARD_OPS

}  // namespace glassbox::train
