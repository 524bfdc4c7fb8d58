// Weight-type dispatch for the forward pass: matrix-vector products and embedding lookups over any DType.
#pragma once

#include <cstddef>
#include <vector>

#include "glassbox/tensor.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// Per-worker scratch rows for decoding 16-bit and quantized weights: sized once with the session (workers x
// the widest matrix row), so a matrix product never allocates.
class DecodeScratch {
 public:
  DecodeScratch(int workers, std::size_t max_cols) : stride_(max_cols), rows_(workers * max_cols) {}
  float* row(int worker) { return rows_.data() + static_cast<std::size_t>(worker) * stride_; }
  std::size_t max_cols() const { return stride_; }

 private:
  std::size_t stride_;
  std::vector<float> rows_;
};

// out[rows] = w[rows][cols] * x[cols] (+ bias), rows split across the pool's threads.
void linear(float* out, const Tensor& w, const Tensor& bias, const float* x, ThreadPool& pool,
            DecodeScratch& scratch);

// out[cols] = row `row` of w, decoded to float.
void embedding_row(float* out, const Tensor& w, int64_t row);

}  // namespace glassbox
