#include "kernels/quantized_int_matmul.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/dot_rows.hpp"
#include "kernels/element_types.hpp"
#include "kernels/quantized_int_dot.hpp"
#include "kernels/quantized_int_matmul_avx2.hpp"
#include "kernels/quantized_int_matmul_vnni.hpp"
#include "kernels/quantized_int_matmul_wasm.hpp"
#include "kernels/quantized_int_rows.hpp"

namespace glassbox::kernels {
namespace {

// The float side's lanes are tokens, so it takes the widest registers (AVX-512's 16 floats, where Batch
// has 8).
using Lanes = WideBatch;
constexpr std::size_t kLanes = kWideWidth;

// a * b + c. With integer-valued operands whose sums stay below 2^24 (all this file multiplies) every
// rounding is exact, so a fused multiply-add gives the same bits as the two operations and saves one.
// (xsimd 8.1 has no AVX-512 fma and falls back to a multiply and an add.)
GLASSBOX_INLINE Lanes exact_fma(Lanes a, Lanes b, Lanes c) {
#if defined(__AVX512F__)
  return Lanes(_mm512_fmadd_ps(a, b, c));
#elif defined(__FMA__)
  return Lanes(_mm256_fmadd_ps(a, b, c));
#else
  return a * b + c;
#endif
}

// out for R decoded rows (w, ws, wm each R arrays) and G groups of kLanes token lanes starting at `lane`.
// Each sub-block's sums are exact integers, so they may be split: lanes of different groups, and even and
// odd values, accumulate apart (2 R G independent chains keep the multiply-add units busy).
template <std::size_t R, std::size_t G, bool kOffsets>
void rows_times_lanes(float* out, std::size_t out_stride, std::size_t first_row, const float* const* w,
                      const float* const* ws, const float* const* wm, std::size_t cols,
                      const ActivationColumns& x, std::size_t lane) {
  Lanes partial[R][G][4];
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<G>([&](auto g) __attribute__((always_inline)) {
      unrolled<4>([&](auto k) __attribute__((always_inline)) { partial[r][g][k] = Lanes(0.0f); });
    });
  });
  for (std::size_t b = 0; b < cols / 32; ++b) {
    Lanes even[R][G], odd[R][G];
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      unrolled<G>([&](auto g) __attribute__((always_inline)) { even[r][g] = odd[r][g] = Lanes(0.0f); });
    });
    const float* xq = x.q + 32 * b * x.lanes + lane;
    for (std::size_t j = 0; j < 32; j += 2) {
      Lanes x0[G], x1[G];
      unrolled<G>([&](auto g) __attribute__((always_inline)) {
        x0[g] = Lanes::load_unaligned(xq + j * x.lanes + g * kLanes);
        x1[g] = Lanes::load_unaligned(xq + (j + 1) * x.lanes + g * kLanes);
      });
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        const Lanes w0(w[r][32 * b + j]), w1(w[r][32 * b + j + 1]);
        unrolled<G>([&](auto g) __attribute__((always_inline)) {
          even[r][g] = exact_fma(w0, x0[g], even[r][g]);
          odd[r][g] = exact_fma(w1, x1[g], odd[r][g]);
        });
      });
    }
    unrolled<G>([&](auto g) __attribute__((always_inline)) {
      const Lanes dx = Lanes::load_unaligned(x.d + b * x.lanes + lane + g * kLanes);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        Lanes term = (Lanes(ws[r][b]) * dx) * (even[r][g] + odd[r][g]);
        if constexpr (kOffsets)
          term =
              term - (Lanes(wm[r][b]) * dx) * Lanes::load_unaligned(x.xsum + b * x.lanes + lane + g * kLanes);
        partial[r][g][b % 4] = partial[r][g][b % 4] + term;
      });
    });
  }
  unrolled<G>([&](auto g) __attribute__((always_inline)) {
    if (lane + g * kLanes >= x.tokens) return;
    const std::size_t tokens = std::min(kLanes, x.tokens - lane - g * kLanes);
    alignas(64) float result[R][kLanes];
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      ((partial[r][g][0] + partial[r][g][1]) + (partial[r][g][2] + partial[r][g][3]))
          .store_aligned(result[r]);
    });
    // Token by token, so that each token's outputs are written side by side.
    for (std::size_t t = 0; t < tokens; ++t)
      for (std::size_t r = 0; r < R; ++r)
        out[(lane + g * kLanes + t) * out_stride + first_row + r] = result[r][t];
  });
}

template <std::size_t R, bool kOffsets>
void rows_times_columns(float* out, std::size_t out_stride, std::size_t first_row, IntMatmulScratch s,
                        std::size_t cols, const ActivationColumns& x) {
  const float *w[R], *ws[R], *wm[R];
  for (std::size_t r = 0; r < R; ++r) {
    w[r] = s.w + r * cols;
    ws[r] = s.ws + r * (cols / 32);
    wm[r] = s.wm + r * (cols / 32);
  }
  std::size_t lane = 0;
  for (; lane + 2 * kLanes <= x.lanes; lane += 2 * kLanes)
    rows_times_lanes<R, 2, kOffsets>(out, out_stride, first_row, w, ws, wm, cols, x, lane);
  if (lane < x.tokens) rows_times_lanes<R, 1, kOffsets>(out, out_stride, first_row, w, ws, wm, cols, x, lane);
}

// Row i of the scratch for the float kernel: the integers as floats, each times its group's scale (exact: at
// most 128 * 32).
void decode_float_row(const BlockKernels& type, const std::byte* row, std::size_t cols,
                      const IntMatmulScratch& s, std::size_t i) {
  int8_t* bytes = s.bytes + i * cols;
  const int16_t* groups = s.groups + i * (cols / 16);
  type.decode_integer_row(row, cols, bytes, s.groups + i * (cols / 16), s.ws + i * (cols / 32),
                          s.wm + i * (cols / 32));
  float* w = s.w + i * cols;
  if (type.int_group_scales) {
    for (std::size_t k = 0; k < cols; ++k)
      w[k] = static_cast<float>(bytes[k] * groups[k / 16]);
  } else {
    for (std::size_t k = 0; k < cols; ++k)
      w[k] = bytes[k];
  }
}

template <bool kOffsets>
void matmul_rows(float* out, std::size_t out_stride, const BlockKernels& type, const std::byte* w,
                 std::size_t row_bytes, std::size_t cols, const ActivationColumns& x, std::size_t row_begin,
                 std::size_t row_end, IntMatmulScratch s) {
  for_row_tiles(
      row_begin, row_end,
      [&](std::size_t r, std::size_t i) { decode_float_row(type, w + r * row_bytes, cols, s, i); },
      [&](auto rows, std::size_t r) {
        rows_times_columns<decltype(rows)::value, kOffsets>(out, out_stride, r, s, cols, x);
      });
}

// Tokens per block of the byte columns (the layout: ActivationColumns), 0 where no byte kernel takes `type`.
std::size_t byte_block(DType type) {
#if GLASSBOX_HAS_VNNI_MATMUL
  if (has_int_dot(type)) return kVnniMatmulTokens;
#endif
  if (GLASSBOX_HAS_AVX2_MATMUL && has_int_dot(type)) return kAvx2MatmulTokens;
  if (GLASSBOX_HAS_WASM_MATMUL && has_int_dot(type)) return kWasmMatmulTokens;
  return 0;
}

// Lanes [lane_begin, lane_end) of the byte columns, four values at a time (kPairedBytes: two and two);
// adding 128 to a byte is flipping its top bit. A block's tokens are taken together for each four values, so
// that the writes go to one place after another (token by token, each word went to another cache line).
void fill_activation_bytes(const QuantizedActivations* x, std::size_t tokens, std::size_t cols,
                           std::size_t lanes, std::size_t block, uint8_t* bytes, std::size_t lane_begin,
                           std::size_t lane_end) {
  for (std::size_t first = lane_begin / block * block; first < lane_end; first += block) {
    const std::size_t width = std::min(block, lanes - first);
    const std::size_t from = std::max(first, lane_begin), to = std::min(first + width, lane_end);
    for (std::size_t i = 0; i < cols / 4; ++i) {
      uint8_t* quad = bytes + first * cols + i * width * 4;
      for (std::size_t t = from; t < to; ++t) {
        const std::size_t at = t - first;
        uint32_t four = 0;
        if (t < tokens) std::memcpy(&four, x[t].q + 4 * i, 4);
        four ^= 0x80808080u;
        if constexpr (kPairedBytes) {
          // Within the group of four tokens: values 0, 1 of each, then values 2, 3 of each.
          uint8_t* group = quad + at / 4 * 16;
          std::memcpy(group + at % 4 * 2, &four, 2);
          std::memcpy(group + 8 + at % 4 * 2, reinterpret_cast<const uint8_t*>(&four) + 2, 2);
        } else {
          std::memcpy(quad + at * 4, &four, 4);
        }
      }
    }
  }
}

}  // namespace

std::size_t activation_lanes(std::size_t tokens) {
  return (tokens + kLanes - 1) / kLanes * kLanes;
}

ActivationColumns fill_activation_columns(const QuantizedActivations* x, std::size_t tokens, std::size_t cols,
                                          DType type, float* q, float* d, float* xsum, uint8_t* bytes,
                                          std::size_t lane_begin, std::size_t lane_end) {
  const std::size_t lanes = activation_lanes(tokens);
  lane_end = std::min(lane_end, lanes);
  const bool offsets = int_dot_has_offsets(type);
  const std::size_t block = byte_block(type);
  const bool float_values = block == 0;
  if (!float_values) fill_activation_bytes(x, tokens, cols, lanes, block, bytes, lane_begin, lane_end);
  if (float_values)
    for (std::size_t k = 0; k < cols; ++k)
      for (std::size_t t = lane_begin; t < lane_end; ++t)
        q[k * lanes + t] = t < tokens ? static_cast<float>(x[t].q[k]) : 0.0f;
  for (std::size_t b = 0; b < cols / 32; ++b)
    for (std::size_t t = lane_begin; t < lane_end; ++t) {
      const bool real = t < tokens;
      d[b * lanes + t] = real ? x[t].d[b] : 0.0f;
      if (offsets) xsum[b * lanes + t] = real ? static_cast<float>(x[t].sums32[b]) : 0.0f;
    }
  return {q, d, xsum, bytes, tokens, lanes, block};
}

void int_matmul(float* out, std::size_t out_stride, DType type, const std::byte* w, std::size_t row_bytes,
                std::size_t cols, const ActivationColumns& x, std::size_t row_begin, std::size_t row_end,
                IntMatmulScratch scratch) {
  if (!has_int_dot(type)) return;
  const BlockKernels& kernels = *block_kernels(type);
#if GLASSBOX_HAS_VNNI_MATMUL
  return int_matmul_vnni(out, out_stride, kernels, w, row_bytes, cols, x, row_begin, row_end, scratch);
#endif
#if GLASSBOX_HAS_AVX2_MATMUL
  return kernels.int_matmul_avx2(out, out_stride, w, row_bytes, cols, x, row_begin, row_end, scratch);
#endif
#if GLASSBOX_HAS_WASM_MATMUL
  return int_matmul_wasm(out, out_stride, kernels, w, row_bytes, cols, x, row_begin, row_end, scratch);
#endif
  if (kernels.int_offsets) {
    matmul_rows<true>(out, out_stride, kernels, w, row_bytes, cols, x, row_begin, row_end, scratch);
  } else {
    matmul_rows<false>(out, out_stride, kernels, w, row_bytes, cols, x, row_begin, row_end, scratch);
  }
}

}  // namespace glassbox::kernels
