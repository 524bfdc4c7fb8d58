#include "kernels/feature_attention.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/kernels.hpp"

namespace glassbox::kernels {

void add_feature_key(float* kv_sums, float* key_sums, float* log_scale, float* phi_k, float m, const float* v,
                     std::size_t features, std::size_t head_dim) {
  if (m > *log_scale) {
    const float shrink = std::exp(*log_scale - m);  // 0 while the sums are still empty (c = -inf)
    scale_in_place(kv_sums, shrink, features * head_dim);
    scale_in_place(key_sums, shrink, features);
    *log_scale = m;
  } else if (m < *log_scale) {
    scale_in_place(phi_k, std::exp(m - *log_scale), features);
  }
  for (std::size_t f = 0; f < features; ++f)
    axpy(kv_sums + f * head_dim, phi_k[f], v, head_dim);
  add_in_place(key_sums, phi_k, features);
}

void read_feature_sums(float* out, const float* kv_sums, const float* key_sums, const float* phi_q,
                       std::size_t features, std::size_t head_dim) {
  weighted_row_sum(out, phi_q, kv_sums, head_dim, features, head_dim);
  // Every feature is positive, so the normalizer is > 0 once a key has entered (the query's own, at least).
  scale_in_place(out, 1.0f / dot(phi_q, key_sums, features), head_dim);
}

namespace reference {

void add_feature_key(float* kv_sums, float* key_sums, float* log_scale, float* phi_k, float m, const float* v,
                     std::size_t features, std::size_t head_dim) {
  const float c = std::max(*log_scale, m);
  for (std::size_t f = 0; f < features; ++f) {
    const float previous = *log_scale == c ? 1.0f : std::exp(*log_scale - c);
    phi_k[f] *= m == c ? 1.0f : std::exp(m - c);
    for (std::size_t i = 0; i < head_dim; ++i)
      kv_sums[f * head_dim + i] = kv_sums[f * head_dim + i] * previous + phi_k[f] * v[i];
    key_sums[f] = key_sums[f] * previous + phi_k[f];
  }
  *log_scale = c;
}

void read_feature_sums(float* out, const float* kv_sums, const float* key_sums, const float* phi_q,
                       std::size_t features, std::size_t head_dim) {
  double normalizer = 0;
  for (std::size_t f = 0; f < features; ++f)
    normalizer += static_cast<double>(phi_q[f]) * key_sums[f];
  for (std::size_t i = 0; i < head_dim; ++i) {
    double total = 0;
    for (std::size_t f = 0; f < features; ++f)
      total += static_cast<double>(phi_q[f]) * kv_sums[f * head_dim + i];
    out[i] = static_cast<float>(total / normalizer);
  }
}

}  // namespace reference
}  // namespace glassbox::kernels
