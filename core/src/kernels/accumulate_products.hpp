// A matrix product added into its output, for training's backward products (train/float_products.hpp):
//
//   c[m * ldc + j] += sum over k < depth of a[m * a_row + k * a_step] * b[k * ldb + j]
//
// for m < rows, j < cols. b's rows are read where they lie and a is read through two strides, so both
// backward products of a projection y = W x need no transposed copy: dx += dy W (a = dy, one row per token)
// and dW += dy^T x (a = dy read down its columns).
//
// Each output's terms are summed in order of k into a sum that starts at 0, and that sum is then added to
// c: the scalar reference's order exactly, so the kernel gives the reference's bits whatever the SIMD width
// (SIMD lanes run over j, never over k) and whichever thread runs it. Unlike the forward pass's matmul it does
// not give dot()'s bits (no 8 partial sums): nothing in inference computes these products.
#pragma once

#include <cstddef>

namespace glassbox::kernels {

void accumulate_products(float* c, std::size_t ldc, const float* a, std::size_t a_row, std::size_t a_step,
                         const float* b, std::size_t ldb, std::size_t rows, std::size_t cols,
                         std::size_t depth);

namespace reference {
void accumulate_products(float* c, std::size_t ldc, const float* a, std::size_t a_row, std::size_t a_step,
                         const float* b, std::size_t ldb, std::size_t rows, std::size_t cols,
                         std::size_t depth);
}  // namespace reference

}  // namespace glassbox::kernels
