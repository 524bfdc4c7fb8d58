// Integer dot products of block-quantized weight rows with quantized activations (quantized_activations.hpp),
// the way ggml (and so llama.cpp) multiplies quantized matrices: each 32 values of a row give an exact integer
// sum, and only the scaling of those sums is done in floats. Far fewer instructions per weight than decoding
// every weight to a float (quantized_dot.hpp), which is what decoding a memory-bound model is limited by.
//
// The float order, the same on every instruction set (so the results are the same bits natively and in WASM):
//   sub-block b of a row (values [32b, 32b + 32)) has an exact integer sum isum_b of weight times activation
//   integers, a weight scale ws_b and the activation block's scale dx_b; its term is
//       t_b = (ws_b * dx_b) * float(isum_b)
//   and, for weight types with a per-sub-block offset (Q4_K's and Q5_K's mins: value = ws * q - wm), minus
//       (wm_b * dx_b) * float(xsum_b), xsum_b the sum of the activation integers;
//   t_b is added to partial sum b % 4, in increasing b, and the row's result is (p0 + p1) + (p2 + p3).
// Integer offsets that are part of a type's encoding (Q4_0's -8, Q6_K's -32) and Q6_K's per-16 integer scales
// stay inside isum_b (exact). Each type below says what ws_b and isum_b are.
// quantized_int_dot_kquants.hpp holds the K-quants' kernels, quantized_int_dot_iquants.hpp IQ4_XS's and IQ4_NL's,
// quantized_int_terms.hpp the float order.
// quantized_int_dot_reference.cpp computes the same with plain loops; tests/quantized_int_dot_test.cpp checks
// that every kernel gives its bits, at odd lengths and unaligned addresses, and pins a checksum natively and
// in WebAssembly.
#pragma once

#include <cstddef>

#include "glassbox/tensor.hpp"
#include "kernels/quantized_activations.hpp"

namespace glassbox::kernels {

// Whether `type`'s products take the integer kernels (and so quantize their activations):
//   Q8_0  ws_b = the block's f16 scale, isum_b = sum of q * x
//   Q4_0  ws_b = the block's f16 scale, isum_b = sum of (q - 8) * x
// The K-quants' sub-block b is sub-block j = b % 8 of super-block b / 8 (256 values):
//   Q4_K  ws_b = d * scale_j, wm_b = dmin * min_j (the decoder's float expressions, d and dmin the f16s,
//         scale_j and min_j the 6-bit integers), isum_b = sum of the nibbles q (0..15) times x,
//         xsum_b = sums32[b]
//   Q5_K  ws_b, wm_b and xsum_b as Q4_K's, isum_b = sum of the 5-bit values q (0..31: the nibble plus 16 times
//         its fifth bit) times x
//   Q6_K  ws_b = the super-block's f16 d, isum_b = scale_2j * (sum over the first 16 values of (q - 32) * x)
//         + scale_2j+1 * (the same over the second 16), q the 6-bit values and scale_i the int8 scales
//         (the second sum kept exact as sum of q * x less 32 * sums16)
//   IQ4_XS ws_b = d * (ls_j - 32) (the decoder's float expression, d the f16, ls_j the 6-bit stored scale),
//         isum_b = sum of kIq4NlValues[i] * x, i the 4-bit indices (quantized_int_dot_iquants.hpp)
//   IQ4_NL ws_b = the block's f16 scale, isum_b = sum of kIq4NlValues[i] * x
bool has_int_dot(DType type);

// out[r] = the integer dot of row r of w with x, for r in [row_begin, row_end); w is the whole matrix, rows
// row_bytes apart, cols values each (a whole number of blocks). Neither w nor x needs any alignment.
void int_matvec(float* out, DType type, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end);

// A batch of tokens (prefill) takes int_matmul (quantized_int_matmul.hpp), which gives the same bits.

// The plain-loop reference for one row (quantized_int_dot_reference.cpp), over the row decoded by
// decode_integer_row (quantized_int_rows.hpp).
float int_dot_reference(DType type, const std::byte* row, const QuantizedActivations& x, std::size_t cols);

}  // namespace glassbox::kernels
