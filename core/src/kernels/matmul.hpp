// Matrix-matrix product for a batch of tokens: every output is the canonical dot product (kernels.hpp) of
// one weight row with one token's vector, so a batch gives bit for bit what dot() / matvec() give token by
// token, whatever the batch size, the SIMD width or the thread that computes it.
#pragma once

#include <cstddef>

namespace glassbox::kernels {

// out[t * out_stride + r] = dot(w + r * n, x + t * n, n) for r < n_rows, t < n_tokens. w is row-major
// [n_rows][n], x is [n_tokens][n]. Only those outputs are written, so threads can split the rows.
void matmul(float* out, std::size_t out_stride, const float* w, std::size_t n_rows, const float* x,
            std::size_t n_tokens, std::size_t n);

namespace reference {
// The textbook triple loop (one running sum per output): agrees with matmul to rounding, not bit for bit.
void matmul(float* out, std::size_t out_stride, const float* w, std::size_t n_rows, const float* x,
            std::size_t n_tokens, std::size_t n);
}  // namespace reference

}  // namespace glassbox::kernels
