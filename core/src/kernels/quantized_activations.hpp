// Activations rounded to 8-bit integers, so that a product with block-quantized weights can multiply integers
// exactly (quantized_int_dot.hpp), as ggml (and so llama.cpp) does with its Q8 activation blocks.
//
// The rounding rule, per block of 32 values (the NumPy reference's ggml_quants.round_like_q8_0 is the same):
//   amax = max |x|, d = amax / 127 (a float division), inverse = d != 0 ? 1 / d : 0,
//   q = round(x * inverse), halves away from zero (C's roundf, as ggml's quantize_row_q8_0_ref), clamped to
//   [-127, 127], NaN to 0;
//   the block's scale is d rounded to f16 (nearest even, as ggml's Q8_0 stores it) and read back as a float.
// -128 never occurs, which the integer kernels rely on (quantized_int_lanes.hpp).
// Besides q and d it keeps the sum of each 16 values' q (exact), which the weight types with an offset (Q4_K's
// and Q5_K's mins, Q6_K's -32) multiply instead of subtracting the offset from every weight.
#pragma once

#include <cstddef>
#include <cstdint>

namespace glassbox::kernels {

inline constexpr std::size_t kActivationBlock = 32;

// One vector of n values (a multiple of 32), rounded: q[n], d[n / 32], and the sums of q over each 16 and
// each 32 values, sums16[n / 16] and sums32[n / 32]. Read-only views into a buffer that outlives the product.
struct QuantizedActivations {
  const int8_t* q;
  const float* d;
  const int32_t* sums16;
  const int32_t* sums32;
};

// Rounds x[0, n) (n a multiple of 32) into q, d, sums16 and sums32, which must hold n, n / 32, n / 16 and
// n / 32 values.
void quantize_activations(const float* x, std::size_t n, int8_t* q, float* d, int32_t* sums16,
                          int32_t* sums32);

}  // namespace glassbox::kernels
