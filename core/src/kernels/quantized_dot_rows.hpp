// The fused decode-and-dot kernels (see quantized_dot.hpp for the contract), for R rows at once sharing the
// loads of x, like dot_rows<R> (dot_rows.hpp).
//
// Why the results match decode-then-dot bit for bit:
//   - every weight is the same float expression as in its decoder (blocks/<type>.cpp), evaluated lane by
//     lane (block scales are computed once per block with the decoder's scalar expression, then broadcast);
//     integer steps (nibble masks, 6-bit reassembly, the -8 / -32 offsets) are exact either way;
//   - weight i's product with x[i] is added to partial sum i mod kReductionLanes, in increasing order of i:
//     a format makes a block's products (kB32 batches per 32 values) and add_in_order adds them, batch k
//     to accumulator k % kAcc, k increasing;
//   - the accumulators are finished by finish_partials, the tree dot() uses.
#pragma once

#include <cstring>

#include "dot_rows.hpp"
#include "quantized.hpp"
#include "quantized_lanes.hpp"

namespace glassbox::kernels::fused {

inline constexpr std::size_t kAcc = kAccumulatorsPerRow;
inline constexpr std::size_t kB16 = lanes::kBatchesPer16;
inline constexpr std::size_t kB32 = 2 * kB16;  // batches per 32 values: a block, or a K-quant sub-block

template <std::size_t R>
using Accumulators = Batch[R][kAcc];

template <std::size_t N>
GLASSBOX_INLINE void load_x(Batch (&xv)[N], const float* x) {
  unrolled<N>([&](auto k) __attribute__((always_inline)) { xv[k] = Batch::load_unaligned(x + k * kWidth); });
}

// The products of N batches of consecutive values (batch k holding values [k * kWidth, (k + 1) * kWidth) of
// a run that starts at a multiple of kReductionLanes), added in the canonical order: batch k to accumulator
// k % kAcc, k increasing.
template <std::size_t N>
GLASSBOX_INLINE void add_in_order(Batch (&acc)[kAcc], const Batch (&products)[N]) {
  static_assert(N % kAcc == 0);
  unrolled<N>([&](auto k) __attribute__((always_inline)) { acc[k % kAcc] = acc[k % kAcc] + products[k]; });
}

// Every integer the kernels convert (weights, nibbles, half magnitudes) is far below 2^22.
GLASSBOX_INLINE Batch to_float(IntBatch v) {
  return lanes::small_int_to_float(v);
}

// d * scale and dmin * min of the 8 sub-blocks of R super-blocks that start with Q4_K's header (f16 d, f16
// dmin, 12 bytes of packed 6-bit scales and mins), which Q5_K shares.
template <std::size_t R>
GLASSBOX_INLINE void q4_k_sub_block_scales(const std::byte* const* blocks, float (&scale)[R][8],
                                           float (&offset)[R][8]) {
  for (std::size_t r = 0; r < R; ++r) {
    const float d = lanes::half_to_float_exact(lanes::load_u16(blocks[r]));
    const float dmin = lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 2));
    const auto* packed = reinterpret_cast<const uint8_t*>(blocks[r] + 4);
    for (int j = 0; j < 8; ++j) {
      uint8_t s, m;
      q4_k_scale_min(j, packed, &s, &m);
      scale[r][j] = d * s;
      offset[r][j] = dmin * m;
    }
  }
}

// R rows of whole blocks: out[r] = dot(decoded rows[r][0, n), x[0, n)).
template <class Format, std::size_t R>
GLASSBOX_INLINE void block_rows(const std::byte* const* rows, const float* x, std::size_t n, float* out) {
  Accumulators<R> acc;
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<kAcc>([&](auto k) __attribute__((always_inline)) { acc[r][k] = Batch(0.0f); });
  });
  const std::byte* at[R];
  for (std::size_t b = 0; b < n / Format::kValues; ++b) {
    for (std::size_t r = 0; r < R; ++r)
      at[r] = rows[r] + b * Format::kBytes;
    Format::template accumulate<R>(acc, at, x + b * Format::kValues);
  }
  unrolled<R>([&](auto r) __attribute__((always_inline)) { out[r] = finish_partials(acc[r]); });
}

// The 16-bit float types: kWidth values from kWidth little-endian uint16 at p.
struct F16 {
  GLASSBOX_INLINE static Batch decode(const std::byte* p) { return lanes::load_halves(p); }
};
struct BF16 {
  GLASSBOX_INLINE static Batch decode(const std::byte* p) {
    return lanes::bfloat16_bits_to_float(lanes::widen_u16(p));
  }
};

// R rows of any length, structured exactly as dot_rows<R>: whole passes of kReductionLanes values, then a
// tail whose last partial batch is padded with zeros (a zero half or bfloat16 decodes to +0, as the decoded
// row's load_partial pads) and whose batches past n are skipped.
template <class Format, std::size_t R>
GLASSBOX_INLINE void element_rows(const std::byte* const* rows, const float* x, std::size_t n, float* out) {
  Accumulators<R> acc;
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<kAcc>([&](auto k) __attribute__((always_inline)) { acc[r][k] = Batch(0.0f); });
  });
  std::size_t i = 0;
  for (; i + kReductionLanes <= n; i += kReductionLanes) {
    unrolled<kAcc>([&](auto k) __attribute__((always_inline)) {
      const std::size_t from = i + k * kWidth;
      const Batch xv = Batch::load_unaligned(x + from);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        acc[r][k] = acc[r][k] + Format::decode(rows[r] + 2 * from) * xv;
      });
    });
  }
  if (i < n) {
    unrolled<kAcc>([&](auto k) __attribute__((always_inline)) {
      const std::size_t from = i + k * kWidth;
      if (from >= n) return;
      const bool whole = from + kWidth <= n;
      const Batch xv = whole ? Batch::load_unaligned(x + from) : load_partial(x + from, n - from);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        Batch w;
        if (whole) {
          w = Format::decode(rows[r] + 2 * from);
        } else {
          std::byte padded[2 * kWidth] = {};
          std::memcpy(padded, rows[r] + 2 * from, 2 * (n - from));
          w = Format::decode(padded);
        }
        acc[r][k] = acc[r][k] + w * xv;
      });
    });
  }
  unrolled<R>([&](auto r) __attribute__((always_inline)) { out[r] = finish_partials(acc[r]); });
}

// The row kernels as one interface: Kernel::rows<R>(rows, x, n, out).
template <class Format>
struct Blocks {
  template <std::size_t R>
  static void rows(const std::byte* const* rows, const float* x, std::size_t n, float* out) {
    block_rows<Format, R>(rows, x, n, out);
  }
};
template <class Format>
struct Elements {
  template <std::size_t R>
  static void rows(const std::byte* const* rows, const float* x, std::size_t n, float* out) {
    element_rows<Format, R>(rows, x, n, out);
  }
};

// out[r] for r in [begin, end), R rows per pass and the rest one at a time.
template <class Kernel, std::size_t R>
void matvec_rows(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                 std::size_t begin, std::size_t end) {
  std::size_t r = begin;
  for (; r + R <= end; r += R) {
    const std::byte* block[R];
    for (std::size_t j = 0; j < R; ++j)
      block[j] = w + (r + j) * row_bytes;
    Kernel::template rows<R>(block, x, cols, out + r);
  }
  for (; r < end; ++r) {
    const std::byte* row = w + r * row_bytes;
    Kernel::template rows<1>(&row, x, cols, out + r);
  }
}

}  // namespace glassbox::kernels::fused
