// The integer dot products of quantized_int_dot.hpp for a batch of tokens (prefill), with exactly int_matvec's
// bits for every token, at the speed of float multiply-adds.
//
// Why floats give the integer kernel's bits: the weight and activation integers are exact floats, and so is
// every partial sum of a 32-value sub-block (at most 32 * 4096 * 127 < 2^24 in magnitude for every type), so
// the sub-block's sum comes out as float(isum_b) exactly, in any order and with or without fused
// multiply-adds. The scaling then repeats the header's float order operation for operation.
// Why it is fast: the activations are laid out token-major (ActivationColumns: value k of token t at
// q[k * lanes + t]), so SIMD lanes hold tokens. Each weight integer is broadcast and multiplied into kWidth
// tokens at once, every sub-block's sums land in lanes without a horizontal reduction, and one decoded weight
// row serves every token of the batch. One generic xsimd kernel, every instruction set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "glassbox/tensor.hpp"
#include "kernels/quantized_activations.hpp"

namespace glassbox::kernels {

// Quantized activations of `tokens` tokens, token-major, as floats: q[k * lanes + t] (k < cols),
// d[b * lanes + t] and xsum[b * lanes + t] (b < cols / 32, xsum the sub-block's sum of q); lanes is tokens
// rounded up to the SIMD width, the padding lanes zero.
// Where a byte kernel is built (AVX-512 VNNI: quantized_int_matmul_vnni.hpp; AVX2:
// quantized_int_matmul_avx2.hpp; WebAssembly: quantized_int_matmul_wasm.hpp), bytes instead of q: the values
// plus 128, four consecutive values of a token together, in blocks of byte_block tokens (the last block may
// be narrower, width W): value k of token t at bytes[(t / byte_block) * byte_block * cols + ((k / 4) * W +
// t % byte_block) * 4 + k % 4] (padding tokens hold 128, a zero). The VNNI kernel reads 32 tokens at a time,
// the AVX2 kernel 16, whose bytes are then consecutive. Where kPairedBytes (the
// WebAssembly kernel, 8 tokens a block), each group of four tokens' 16 bytes of a quad hold values 0 and 1
// of the four tokens, then values 2 and 3.
#if defined(__wasm_simd128__)
inline constexpr bool kPairedBytes = true;
#else
inline constexpr bool kPairedBytes = false;
#endif
struct ActivationColumns {
  const float* q;
  const float* d;
  const float* xsum;
  const uint8_t* bytes;
  std::size_t tokens, lanes, byte_block;
};

// The SIMD width the columns are padded to.
std::size_t activation_lanes(std::size_t tokens);

// Lays out x[0, tokens) (each `cols` values) as columns in q, d, xsum and bytes (sizes cols, cols / 32,
// cols / 32 and cols times activation_lanes(tokens)), those that int_matmul reads for `type`'s weights: bytes
// where a byte kernel takes the type, q where none does, xsum where the type has offsets. Only lanes
// [lane_begin, lane_end) are written (threads may fill disjoint ranges at once); the columns returned are
// the whole of them.
ActivationColumns fill_activation_columns(const QuantizedActivations* x, std::size_t tokens, std::size_t cols,
                                          DType type, float* q, float* d, float* xsum, uint8_t* bytes,
                                          std::size_t lane_begin = 0, std::size_t lane_end = SIZE_MAX);

// Rows decoded at once by int_matmul, and its per-thread scratch for them (per row: cols values in w, bytes
// and high, cols / 32 in ws and wm, cols / 16 in groups and sums): the decoded integers (bytes, groups: see
// quantized_int_rows.hpp), the float kernel's integers as floats times their group scale (w), the VNNI
// kernel's sums of each 16 bytes (sums), the AVX2 kernel's magnitudes of the bytes it multiplies signed
// (Q8_0's and the IQ4 types': high), the WebAssembly kernel's 16-bit weights (wide, cols per row), and
// those two kernels' corrections per sub-block (in sums).
inline constexpr std::size_t kIntMatmulRows = 4;
struct IntMatmulScratch {
  float* w;
  float* ws;
  float* wm;
  int8_t* bytes;
  int16_t* groups;
  int32_t* sums;
  int8_t* high;
  int16_t* wide;
};

// How every form of int_matmul walks its rows: kIntMatmulRows at a time, each row of the tile decoded into
// scratch slot i (decode(row, i)), then multiplied against every token (multiply(R, first_row), R the
// tile's rows as a std::integral_constant), the last rows one at a time.
template <class Decode, class Multiply>
void for_row_tiles(std::size_t row_begin, std::size_t row_end, Decode decode, Multiply multiply) {
  std::size_t r = row_begin;
  for (; r + kIntMatmulRows <= row_end; r += kIntMatmulRows) {
    for (std::size_t i = 0; i < kIntMatmulRows; ++i)
      decode(r + i, i);
    multiply(std::integral_constant<std::size_t, kIntMatmulRows>{}, r);
  }
  for (; r < row_end; ++r) {
    decode(r, 0);
    multiply(std::integral_constant<std::size_t, 1>{}, r);
  }
}

// out[t * out_stride + r] = the integer dot of row r of w with token t's activations, for t < x.tokens and r in
// [row_begin, row_end): exactly int_matvec's bits.
void int_matmul(float* out, std::size_t out_stride, DType type, const std::byte* w, std::size_t row_bytes,
                std::size_t cols, const ActivationColumns& x, std::size_t row_begin, std::size_t row_end,
                IntMatmulScratch scratch);

}  // namespace glassbox::kernels
