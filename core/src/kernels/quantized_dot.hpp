// Fused decode-and-dot products over encoded weight rows (every type the element table decodes but F32:
// F16, BF16 and the block types): the weights are decoded in registers and multiplied by x straight away,
// never written to a float row.
//
// The contract: every result is bit-identical to decoding the row with dequantize_row (blocks/<type>.cpp) and
// taking the canonical dot() (kernels.hpp) of the decoded row with x. Each weight is computed with the same
// float expression as its decoder (e.g. Q4_K's d1 * q - m1 with d1 = d * scale), and its product with x
// lands in the same one of the kReductionLanes partial sums, in the same order, finished by the same tree.
// So switching between the fused and the decode-then-dot paths changes no output bit, natively or in WASM.
// tests/quantized_dot_test.cpp checks this bit for bit.
#pragma once

#include <cstddef>

#include "glassbox/tensor.hpp"

namespace glassbox::kernels {

// Whether the fused kernels handle `type`: every type the element table can decode except F32 (whose rows
// need no decoding: use matvec / dot).
bool has_fused_dot(DType type);

// out[r] = dot(decoded row r of w, x) for r in [row_begin, row_end): w is the whole matrix, rows row_bytes
// apart, cols values each (a whole number of blocks). Only rows in the range are written, so threads can
// split the rows. Neither w nor x needs any alignment.
void fused_matvec(float* out, DType type, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                  const float* x, std::size_t row_begin, std::size_t row_end);

// dot(decoded row, x) for one row of n values.
float fused_dot(DType type, const std::byte* row, const float* x, std::size_t n);

}  // namespace glassbox::kernels
