// Matrix products for a batch of tokens (a chunk of the prompt), over any weight DType.
#pragma once

#include <cstddef>
#include <span>

#include "glassbox/tensor.hpp"
#include "model/linear.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// out[t][rows] = w[rows][cols] * x[t][cols] (+ bias) for t < tokens, rows split across the pool's threads.
// Every output has the bits linear() gives that token alone; one token goes through linear() itself.
void linear_batch(float* out, const Tensor& w, const Tensor& bias, const float* x, std::size_t tokens,
                  ThreadPool& pool, DecodeScratch& scratch);
// The same for each projection, all of the same tokens x (every w has x's cols): x is quantized or packed
// once for all of them (linear(projections) for one token).
void linear_batch(std::span<const Projection> projections, const float* x, std::size_t tokens,
                  ThreadPool& pool, DecodeScratch& scratch);

}  // namespace glassbox
