// Weight-type dispatch for the forward pass: matrix-vector products and embedding lookups over any DType.
#pragma once

#include "glassbox/tensor.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// out[rows] = w[rows][cols] * x[cols] (+ bias), rows split across the pool's threads.
void linear(float* out, const Tensor& w, const Tensor& bias, const float* x, ThreadPool& pool);

// out[cols] = row `row` of w, decoded to float.
void embedding_row(float* out, const Tensor& w, int64_t row);

}  // namespace glassbox
