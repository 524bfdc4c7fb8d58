// Weight-type dispatch for the forward pass: matrix-vector products and embedding lookups over any DType.
#pragma once

#include <cstddef>
#include <vector>

#include "glassbox/tensor.hpp"
#include "kernels/quantized_activations.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// Scratch for the matrix products, sized once with the session (from the widest matrix row), so a product
// never allocates: per-worker rows for decoding 16-bit and quantized weights, and the quantized activations
// of up to kQuantizedTokens tokens for the integer kernels (kernels/quantized_int_dot.hpp).
class DecodeScratch {
 public:
  static constexpr std::size_t kQuantizedTokens = 16;

  DecodeScratch(int workers, std::size_t max_cols)
      : stride_(max_cols),
        rows_(workers * max_cols),
        q_(kQuantizedTokens * max_cols),
        d_(kQuantizedTokens * max_cols / kernels::kActivationBlock),
        sums16_(kQuantizedTokens * max_cols / 16) {}
  float* row(int worker) { return rows_.data() + static_cast<std::size_t>(worker) * stride_; }
  std::size_t max_cols() const { return stride_; }

  // Quantizes x (cols values, a multiple of 32, at most max_cols) into token slot `slot` (< kQuantizedTokens).
  // Called on the thread that then shares the result with the workers, which only read it.
  kernels::QuantizedActivations quantize(std::size_t slot, const float* x, std::size_t cols) {
    int8_t* q = q_.data() + slot * stride_;
    float* d = d_.data() + slot * (stride_ / kernels::kActivationBlock);
    int32_t* sums16 = sums16_.data() + slot * (stride_ / 16);
    kernels::quantize_activations(x, cols, q, d, sums16);
    return {q, d, sums16};
  }

 private:
  std::size_t stride_;
  std::vector<float> rows_;
  std::vector<int8_t> q_;
  std::vector<float> d_;
  std::vector<int32_t> sums16_;
};

// Whether a product with w takes the integer kernels: its type has them and its rows are whole activation
// blocks (every such type's blocks are).
bool uses_int_dot(const Tensor& w);

// out[rows] = w[rows][cols] * x[cols] (+ bias), rows split across the pool's threads.
void linear(float* out, const Tensor& w, const Tensor& bias, const float* x, ThreadPool& pool,
            DecodeScratch& scratch);

// out[cols] = row `row` of w, decoded to float.
void embedding_row(float* out, const Tensor& w, int64_t row);

}  // namespace glassbox
