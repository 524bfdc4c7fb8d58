// Scalar twins of the optimized kernels that compute the *same bits*, not just nearly the same value.
//
// reference.cpp holds the textbook formulas (one running sum, libm's exp): the optimized kernels agree with
// them to a tolerance. These functions instead spell out, one float operation at a time, the order the SIMD
// kernels commit to (kernels.hpp), so a test can demand bit equality from every instruction set of the build
// (AVX-512, AVX2, SSE, WebAssembly SIMD128) against one plain loop that does not depend on any SIMD width.
// See fixed_order_reference.cpp for the order itself.
#pragma once

#include <cstddef>

namespace glassbox::kernels::fixed_order {

// Reductions: kReductionLanes partial sums finished by the fixed pairwise tree.
float dot(const float* x, const float* y, std::size_t n);
float sum(const float* x, std::size_t n);
void matvec(float* out, const float* w, const float* x, std::size_t rows, std::size_t cols);
void dot_strided(float* out, const float* rows, std::size_t row_stride, std::size_t n_rows, const float* x,
                 std::size_t n);
// One running sum per output element, in order of t (this one is the textbook loop already).
void weighted_row_sum(float* out, const float* weights, const float* rows, std::size_t row_stride,
                      std::size_t n_rows, std::size_t n);

void rmsnorm(float* out, const float* x, const float* weight, std::size_t n, float eps);
void layernorm(float* out, const float* x, const float* weight, const float* bias, std::size_t n, float eps);
void softmax(float* x, std::size_t n, std::size_t limit);

// exp_approx.hpp, one lane: the polynomial every element-wise kernel builds on.
float exp_approx(float x);
void silu(float* x, std::size_t n);
void swiglu(float* gate, const float* up, std::size_t n);
void gelu_tanh(float* x, std::size_t n);
void gelu_erf(float* x, std::size_t n);
void relu(float* x, std::size_t n);

}  // namespace glassbox::kernels::fixed_order
