// int_matmul (quantized_int_matmul.hpp) with WebAssembly SIMD128 16-bit products, for every type with integer
// kernels. Why a kernel of its own: SIMD128 has no byte multiply-add (x86's vpmaddubsw / vpdpbusd), and
// xsimd 8.1 has no WebAssembly back end; its widest integer product is i32x4.dot_i16x8_s, two 16-bit products
// added into each 32-bit lane. The float kernel makes four products per multiply and add; this one eight
// per dot and add.
//
// Lanes hold tokens, four per vector, as in the other forms. The activation bytes are x + 128 (1..255), in
// blocks of kWasmMatmulTokens tokens, and within each group of four tokens paired (ActivationColumns): a
// quad's 16 bytes hold values 0 and 1 of the four tokens, then values 2 and 3. Widened to 16 bits, each half
// meets one pair of a row's weights, splatted: dot(values 0, 1; w0, w1) + dot(values 2, 3; w2, w3) is each
// token's sum over the quad, in its own lane. The weights are the decoder's integers as 16 bits (Q6_K's
// already times their scale of the 16 values: at most 32 * 128), so no sum can overflow: a 32-bit lane adds
// at most 32 products of 255 * 4096. As in the other byte kernels, 128 times the sub-block's weight sum comes
// off each sub-block's total, giving the exact isum_b, and the scaling repeats the header's float order:
// int_matvec's bits.
#include "kernels/quantized_int_matmul_wasm.hpp"

#if GLASSBOX_HAS_WASM_MATMUL
#include <wasm_simd128.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/quantized_int_rows.hpp"
#include "kernels/simd.hpp"

namespace glassbox::kernels {
namespace {

constexpr std::size_t kTokens = 4;  // int32 lanes in a v128
constexpr std::size_t kGroups = kWasmMatmulTokens / kTokens;
static_assert(kWidth == kTokens, "the float side works on xsimd's 4-lane batches");

// A decoded row: 16-bit weights (Q6_K's times their scale), float scales, and each sub-block's correction
// 128 * (sum of the 16-bit weights).
struct Rows {
  const int16_t* w;
  const float* ws;
  const float* wm;
  const int32_t* corrections;
};

inline v128_t splat_pair(const int16_t* pair) {
  int32_t v;
  std::memcpy(&v, pair, 4);
  return wasm_i32x4_splat(v);
}

template <std::size_t R, std::size_t G, bool kOffsets>
void rows_times_lanes(float* out, std::size_t out_stride, std::size_t first_row, const Rows* rows,
                      std::size_t cols, const ActivationColumns& x, std::size_t lane) {
  // Lanes [lane, lane + 4 G) lie in one block of the byte columns.
  const std::size_t block = lane / x.byte_block * x.byte_block;
  const std::size_t width = std::min(x.byte_block, x.lanes - block);
  const uint8_t* xb = x.bytes + block * cols + (lane - block) * 4;
  Batch partial[R][G][4];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t g = 0; g < G; ++g)
      for (int k = 0; k < 4; ++k)
        partial[r][g][k] = Batch(0.0f);
  for (std::size_t b = 0; b < cols / 32; ++b) {
    v128_t acc[R][G];
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t g = 0; g < G; ++g)
        acc[r][g] = wasm_i32x4_splat(0);
    for (std::size_t quad = 0; quad < 8; ++quad) {
      v128_t first[G], second[G];  // values 0, 1 and 2, 3 of the group's four tokens, as 16 bits
      for (std::size_t g = 0; g < G; ++g) {
        const v128_t bytes = wasm_v128_load(xb + ((8 * b + quad) * width + g * kTokens) * 4);
        first[g] = wasm_u16x8_extend_low_u8x16(bytes);
        second[g] = wasm_u16x8_extend_high_u8x16(bytes);
      }
      for (std::size_t r = 0; r < R; ++r) {
        const int16_t* w = rows[r].w + 32 * b + 4 * quad;
        const v128_t w01 = splat_pair(w), w23 = splat_pair(w + 2);
        for (std::size_t g = 0; g < G; ++g)
          acc[r][g] = wasm_i32x4_add(acc[r][g], wasm_i32x4_add(wasm_i32x4_dot_i16x8(first[g], w01),
                                                               wasm_i32x4_dot_i16x8(second[g], w23)));
      }
    }
    for (std::size_t g = 0; g < G; ++g) {
      const Batch dx = Batch::load_unaligned(x.d + b * x.lanes + lane + g * kTokens);
      for (std::size_t r = 0; r < R; ++r) {
        const v128_t exact = wasm_i32x4_sub(acc[r][g], wasm_i32x4_splat(rows[r].corrections[b]));
        Batch term = (Batch(rows[r].ws[b]) * dx) * Batch(wasm_f32x4_convert_i32x4(exact));
        if constexpr (kOffsets)
          term = term - (Batch(rows[r].wm[b]) * dx) *
                            Batch::load_unaligned(x.xsum + b * x.lanes + lane + g * kTokens);
        partial[r][g][b % 4] = partial[r][g][b % 4] + term;
      }
    }
  }
  for (std::size_t g = 0; g < G; ++g) {
    if (lane + g * kTokens >= x.tokens) break;
    const std::size_t tokens = std::min(kTokens, x.tokens - lane - g * kTokens);
    alignas(16) float result[R][kTokens];
    for (std::size_t r = 0; r < R; ++r)
      ((partial[r][g][0] + partial[r][g][1]) + (partial[r][g][2] + partial[r][g][3]))
          .store_aligned(result[r]);
    // Token by token, so that each token's outputs are written side by side.
    for (std::size_t t = 0; t < tokens; ++t)
      for (std::size_t r = 0; r < R; ++r)
        out[(lane + g * kTokens + t) * out_stride + first_row + r] = result[r][t];
  }
}

// Row i of the scratch: the decoder's integers as 16 bits, Q6_K's times their scale, and the corrections.
void decode_row(const BlockKernels& type, const std::byte* row, std::size_t cols, const IntMatmulScratch& s,
                std::size_t i) {
  int8_t* bytes = s.bytes + i * cols;
  int16_t* groups = s.groups + i * (cols / 16);
  type.decode_integer_row(row, cols, bytes, groups, s.ws + i * (cols / 32), s.wm + i * (cols / 32));
  int16_t* w = s.wide + i * cols;
  int32_t* corrections = s.sums + i * (cols / 16);
  const bool scaled = type.int_group_scales;
  for (std::size_t b = 0; b < cols / 32; ++b) {
    int32_t sum = 0;
    for (std::size_t k = 32 * b; k < 32 * b + 32; ++k) {
      w[k] = static_cast<int16_t>(scaled ? bytes[k] * groups[k / 16] : bytes[k]);
      sum += w[k];
    }
    corrections[b] = 128 * sum;
  }
}

template <std::size_t R, bool kOffsets>
void rows_times_columns(float* out, std::size_t out_stride, std::size_t first_row, const IntMatmulScratch& s,
                        std::size_t cols, const ActivationColumns& x) {
  Rows rows[R];
  for (std::size_t r = 0; r < R; ++r)
    rows[r] = {s.wide + r * cols, s.ws + r * (cols / 32), s.wm + r * (cols / 32), s.sums + r * (cols / 16)};
  std::size_t lane = 0;
  for (; lane + kWasmMatmulTokens <= x.lanes; lane += kWasmMatmulTokens)
    rows_times_lanes<R, kGroups, kOffsets>(out, out_stride, first_row, rows, cols, x, lane);
  if (lane < x.tokens) rows_times_lanes<R, 1, kOffsets>(out, out_stride, first_row, rows, cols, x, lane);
}

template <bool kOffsets>
void matmul_rows(float* out, std::size_t out_stride, const BlockKernels& type, const std::byte* w,
                 std::size_t row_bytes, std::size_t cols, const ActivationColumns& x, std::size_t row_begin,
                 std::size_t row_end, const IntMatmulScratch& s) {
  for_row_tiles(
      row_begin, row_end,
      [&](std::size_t r, std::size_t i) { decode_row(type, w + r * row_bytes, cols, s, i); },
      [&](auto rows, std::size_t r) {
        rows_times_columns<decltype(rows)::value, kOffsets>(out, out_stride, r, s, cols, x);
      });
}

}  // namespace

void int_matmul_wasm(float* out, std::size_t out_stride, const BlockKernels& type, const std::byte* w,
                     std::size_t row_bytes, std::size_t cols, const ActivationColumns& x,
                     std::size_t row_begin, std::size_t row_end, IntMatmulScratch s) {
  if (type.int_offsets) {
    matmul_rows<true>(out, out_stride, type, w, row_bytes, cols, x, row_begin, row_end, s);
  } else {
    matmul_rows<false>(out, out_stride, type, w, row_bytes, cols, x, row_begin, row_end, s);
  }
}

}  // namespace glassbox::kernels
#endif
