#include "train/float_products.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/accumulate_products.hpp"
#include "kernels/kernels.hpp"
#include "kernels/matmul.hpp"
#include "model/layer_steps.hpp"

namespace glassbox::train {
namespace {

// Buffers reused by every call on one thread (the trainer's rows run on a pool of threads; each row's ops
// on one of them): a step makes thousands of products, which would otherwise each allocate megabytes.
struct Scratch {
  std::vector<float> packed, partials, row;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

float* sized(std::vector<float>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// out[t * out_stride + r] = dot(rows + r * n, tokens + t * n, n) for r < n_rows, t < n_tokens: the
// forward pass's batched product (kernels::matmul), with this thread's buffers.
void product(float* out, std::size_t out_stride, const float* rows, std::size_t n_rows, const float* tokens,
             std::size_t n_tokens, std::size_t n) {
  Scratch& s = scratch();
  const kernels::PackedTokens packed =
      kernels::pack_tokens(tokens, n_tokens, n, sized(s.packed, kernels::packed_tokens_floats(n_tokens, n)));
  float* partials = sized(s.partials, kernels::matmul_scratch_floats());
  const std::size_t tile = kernels::matmul_tile_rows();
  for (std::size_t r = 0; r < n_rows; r += tile) {
    const float* tile_rows[kernels::kMaxMatmulTileRows];
    const std::size_t count = std::min(tile, n_rows - r);
    for (std::size_t i = 0; i < count; ++i)
      tile_rows[i] = rows + (r + i) * n;
    kernels::matmul_rows(out + r, out_stride, tile_rows, count, packed, partials);
  }
}

}  // namespace

void linear_forward_f32(float* y, const float* x, const float* weight, const float* bias, std::size_t n,
                        std::size_t in_dim, std::size_t out_dim) {
  if (n == 0 || out_dim == 0) return;
  product(y, out_dim, weight, out_dim, x, n, in_dim);
  if (bias)
    for (std::size_t t = 0; t < n; ++t)
      kernels::add_in_place(y + t * out_dim, bias, out_dim);
}

void linear_backward_f32(float* dx, float* dweight, float* dbias, const float* dy, const float* x,
                         const float* weight, std::size_t n, std::size_t in_dim, std::size_t out_dim) {
  if (n == 0 || in_dim == 0 || out_dim == 0) return;
  if (dbias)
    for (std::size_t t = 0; t < n; ++t)
      kernels::add_in_place(dbias, dy + t * out_dim, out_dim);
  // dx[t] += sum_o dy[t][o] W[o]: a's rows are dy's, its steps along them.
  if (dx) kernels::accumulate_products(dx, in_dim, dy, out_dim, 1, weight, in_dim, n, in_dim, out_dim);
  // dW[o] += sum_t dy[t][o] x[t]: a is dy read down its column o.
  kernels::accumulate_products(dweight, in_dim, dy, 1, out_dim, x, in_dim, out_dim, in_dim, n);
}

void attention_forward_f32(float* out, float* probabilities, const float* q, const float* k, const float* v,
                           const AttentionShape& s) {
  const std::size_t per_kv = s.n_heads / s.n_kv_heads;
  for (std::size_t h = 0; h < s.n_heads; ++h) {
    const std::size_t kv = (h / per_kv) * s.head_dim;
    for (std::size_t i = 0; i < s.n; ++i) {
      float* p = probabilities + (h * s.n + i) * s.n;
      // The scores of keys 0..i, then their probabilities and weighted sum by the forward pass's own steps
      // (model/layer_steps.hpp): inference's bits.
      kernels::dot_strided(p, k + kv, s.kv_width(), i + 1, q + i * s.q_width() + h * s.head_dim, s.head_dim);
      probabilities_from_scores(p, 0, i + 1, s.head_dim);
      std::fill(p + i + 1, p + s.n, 0.0f);
      attention_output(out + i * s.q_width() + h * s.head_dim, p, v + kv, s.kv_width(), 0, i + 1, s.head_dim);
    }
  }
}

void attention_backward_f32(float* dq, float* dk, float* dv, const float* dout, const float* probabilities,
                            const float* q, const float* k, const float* v, const AttentionShape& s) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  const std::size_t per_kv = s.n_heads / s.n_kv_heads;
  Scratch& scr = scratch();
  float* dscores = sized(scr.row, s.n + s.head_dim);
  float* dq_new = dscores + s.n;
  for (std::size_t h = 0; h < s.n_heads; ++h) {
    const std::size_t kv = (h / per_kv) * s.head_dim;
    for (std::size_t i = 0; i < s.n; ++i) {
      const float* p = probabilities + (h * s.n + i) * s.n;
      const float* dout_i = dout + i * s.q_width() + h * s.head_dim;
      kernels::dot_strided(dscores, v + kv, s.kv_width(), i + 1, dout_i, s.head_dim);  // dP_ij
      float weighted = 0;                                                              // sum_k P_ik dP_ik
      for (std::size_t j = 0; j <= i; ++j) {
        kernels::axpy(dv + j * s.kv_width() + kv, p[j], dout_i, s.head_dim);
        weighted += p[j] * dscores[j];
      }
      for (std::size_t j = 0; j <= i; ++j)
        dscores[j] = p[j] * (dscores[j] - weighted) * scale;  // dS_ij, times the scale
      const float* q_i = q + i * s.q_width() + h * s.head_dim;
      kernels::weighted_row_sum(dq_new, dscores, k + kv, s.kv_width(), i + 1, s.head_dim);
      kernels::add_in_place(dq + i * s.q_width() + h * s.head_dim, dq_new, s.head_dim);
      for (std::size_t j = 0; j <= i; ++j)
        kernels::axpy(dk + j * s.kv_width() + kv, dscores[j], q_i, s.head_dim);
    }
  }
}

}  // namespace glassbox::train
