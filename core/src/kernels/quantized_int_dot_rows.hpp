// The integer dot product's loops over a matrix's rows (contract and float order: quantized_int_dot.hpp),
// generic over a block type's format: each block type's file (blocks/<type>.cpp) instantiates one of them
// with its format as its int_matvec entry point, so the format's code is inlined into the loop.
// The activations reach the formats as int_lanes::activation_ints gives them, once per product, or as the
// format's activations() does where it has one (Q8_0's in WebAssembly).
//   rows_dot: blocks of 32 values (Format: kBytes, kPrefetch, kOffsetAfter, sums(), exact(), and
//     optionally activations() and exact4()), four blocks at a time: their integer sums come out of
//     quantized_int_lanes.hpp as vectors, are totalled together, and the four terms go to the four partial
//     sums at once. A row's last one to three blocks go one at a time natively. In WebAssembly, where the last
//     block of a 9-block row (stories15M's) alone cost as much as three others, rows go four at a time with
//     their last blocks taken across the four rows (rows4_dot), and rows left over take theirs as one more
//     group of four (add_last; natively add_last was slower).
//   super_block_rows_dot: super-blocks of 256 values (Format: kBytes, SuperBlock, unpack(), add()), a
//     super-block of eight sub-blocks at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized_activations.hpp"
#include "kernels/quantized_int_lanes.hpp"
#include "kernels/quantized_int_terms.hpp"

namespace glassbox::kernels::int_rows {

using int_lanes::Sums;
using int_lanes::XInt;
using int_terms::f16_at;
using int_terms::Partials;

// Four blocks' totals of Format::sums made the blocks' integer sums, where the format says how (Q8_0's
// WebAssembly sums are 256 times them); otherwise they are.
template <class Format>
GLASSBOX_INT_INLINE void exact4(int32_t* isum) {
  if constexpr (requires { Format::exact4(isum); }) Format::exact4(isum);
}

// The last kCount (1 to 3) blocks of a row, from block b (a multiple of 4): a group of four whose missing
// blocks leave their partial sums alone (Partials::add_first).
template <class Format, std::size_t kCount>
GLASSBOX_INT_INLINE void add_last(Partials& partials, const std::byte* row, const QuantizedActivations& x,
                                  const XInt* xi, std::size_t b) {
  Sums s[4] = {};
  float ws[4] = {}, dx[4] = {};
  int32_t sums32[4] = {}, isum[4];
  for (std::size_t k = 0; k < kCount; ++k) {
    const std::byte* block = row + (b + k) * Format::kBytes;
    s[k] = Format::sums(block, xi + (b + k) * 32);
    ws[k] = f16_at(block);
    dx[k] = x.d[b + k];
    sums32[k] = x.sums32[b + k];
  }
  int_lanes::totals4(s[0], s[1], s[2], s[3], isum);
  exact4<Format>(isum);
  if constexpr (Format::kOffsetAfter) int_lanes::less_8_times(isum, sums32);
  partials.add_first<kCount>(ws, dx, isum);
}

// A row's whole groups of four blocks, [0, nblocks / 4 * 4), into partials. xi: x's integers as
// activations_for<Format> gives them.
template <class Format>
GLASSBOX_INT_INLINE void add_groups(Partials& partials, const std::byte* row, const QuantizedActivations& x,
                                    const XInt* xi, std::size_t nblocks) {
  for (std::size_t b = 0; b + 4 <= nblocks; b += 4) {
    // One pointer and constant offsets from it: WebAssembly's loads take the offsets as immediates (with
    // xi + (b + k) * 32, V8 computed each block's address in three instructions).
    const std::byte* block = row + b * Format::kBytes;
    const XInt* xb = xi + b * 32;
    const Sums s0 = Format::sums(block, xb);
    const Sums s1 = Format::sums(block + Format::kBytes, xb + 32);
    const Sums s2 = Format::sums(block + 2 * Format::kBytes, xb + 64);
    const Sums s3 = Format::sums(block + 3 * Format::kBytes, xb + 96);
    int32_t isum[4];
    int_lanes::totals4(s0, s1, s2, s3, isum);
    exact4<Format>(isum);
    if constexpr (Format::kOffsetAfter) int_lanes::less_8_times(isum, x.sums32 + b);
    float ws[4];
    int_terms::f16_at4(block, Format::kBytes, ws);
    partials.add4(ws, x.d + b, isum);
  }
}

template <class Format>
inline float row_dot(const std::byte* row, const QuantizedActivations& x, const XInt* xi,
                     std::size_t nblocks) {
  Partials partials;
  add_groups<Format>(partials, row, x, xi, nblocks);
  std::size_t b = nblocks / 4 * 4;
#if defined(__wasm_simd128__)
  switch (nblocks - b) {
    case 1:
      add_last<Format, 1>(partials, row, x, xi, b);
      break;
    case 2:
      add_last<Format, 2>(partials, row, x, xi, b);
      break;
    case 3:
      add_last<Format, 3>(partials, row, x, xi, b);
      break;
    default:
      break;
  }
#else
  for (; b < nblocks; ++b) {
    const std::byte* block = row + b * Format::kBytes;
    const int32_t isum = Format::exact(int_lanes::total(Format::sums(block, xi + b * 32)), x, b);
    partials.add(b, f16_at(block), x.d[b], isum);
  }
#endif
  return partials.total();
}

#if defined(__wasm_simd128__)
// Four rows at once, in WebAssembly, the rows' last one to three blocks (a 9-block row's last cost as much
// as a group of four, in V8 about 60 instructions) taken a block index at a time across the four rows: one
// group of four blocks, one from each row, whose terms go to partial sums transposed (int_terms::Rows4),
// which also finishes the four rows' results together. Each row's partial sums see row_dot's operations in
// row_dot's order, so the bits are row_dot's.
template <class Format>
GLASSBOX_INT_INLINE void rows4_dot(float* out, const std::byte* rows, std::size_t row_bytes,
                                   const QuantizedActivations& x, const XInt* xi, std::size_t nblocks) {
  Partials partials[4];
#pragma clang loop unroll(disable)  // one copy of the groups' loop, not four
  for (std::size_t k = 0; k < 4; ++k)
    add_groups<Format>(partials[k], rows + k * row_bytes, x, xi, nblocks);
  int_terms::Rows4 sums(partials);
  for (std::size_t b = nblocks / 4 * 4; b < nblocks; ++b) {
    const std::byte* block = rows + b * Format::kBytes;
    const XInt* xb = xi + b * 32;
    const Sums s0 = Format::sums(block, xb);
    const Sums s1 = Format::sums(block + row_bytes, xb);
    const Sums s2 = Format::sums(block + 2 * row_bytes, xb);
    const Sums s3 = Format::sums(block + 3 * row_bytes, xb);
    int32_t isum[4];
    int_lanes::totals4(s0, s1, s2, s3, isum);
    exact4<Format>(isum);
    if constexpr (Format::kOffsetAfter) {
      const int32_t same[4] = {x.sums32[b], x.sums32[b], x.sums32[b], x.sums32[b]};
      int_lanes::less_8_times(isum, same);
    }
    float ws[4];
    int_terms::f16_at4(block, row_bytes, ws);
    sums.add(b % 4, ws, x.d[b], isum);
  }
  sums.totals(out);
}
#endif

#if defined(__AVX2__)
// Eight rows at once natively, where a format asks for it (Format::kEightRows), a block index at a time: the eight rows' sums of block b totalled together
// (totals8: the horizontal adds shared by eight rows, where row_dot's totals4 shares them by four blocks),
// their scales converted together, and the eight terms added to four vectors of partial sums whose lane i is
// row i's partial sum b % 4. Each row's partial sums see row_dot's operations in row_dot's order (the term
// (ws_b * dx_b) * float(isum_b) added to partial b % 4 in increasing b, then (p0 + p1) + (p2 + p3)), so the
// bits are row_dot's. It also takes a row's last one to three blocks as any other (row_dot takes them one
// at a time, each with its own horizontal total and scalar term). Q4_0 asks for it (decode, 1 thread, CPU
// time: stories15M's 9-block rows +20%, gqa40M's 16-block rows level); Q8_0 does not (its signed products
// need more registers, and with eight rows' blocks in flight its prefetched rows lost: -10 to -20%).
template <class Format>
GLASSBOX_INT_INLINE void rows8_dot(float* out, const std::byte* rows, std::size_t row_bytes,
                                   const QuantizedActivations& x, const XInt* xi, std::size_t nblocks) {
  __m256 partial[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  const auto add_block = [&](std::size_t b, __m256 & p) __attribute__((always_inline)) {
    const std::byte* block = rows + b * Format::kBytes;
    const XInt* xb = xi + b * 32;
    Sums s[8];
    alignas(32) int32_t isum[8];
#if defined(GLASSBOX_INT_LANES_WIDE)
    if constexpr (requires { Format::sums_two(block, block, __m512i{}); }) {  // two rows a vector
      const __m512i x2 = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb)));
      int_lanes::WideSums wide[4];
      for (std::size_t i = 0; i < 4; ++i)
        wide[i] = Format::sums_two(block + 2 * i * row_bytes, block + (2 * i + 1) * row_bytes, x2);
      int_lanes::totals8_wide(wide, isum);
    } else
#endif
#if defined(GLASSBOX_INT_LANES_NIBBLE_PAIRS)
        if constexpr (requires { Format::pairs(block, xb); }) {  // 16-bit pairs, totalled by nibble_totals8
      for (std::size_t r = 0; r < 8; ++r)
        s[r] = Format::pairs(block + r * row_bytes, xb);
      int_lanes::nibble_totals8(s, isum);
    } else
#endif
    {
      for (std::size_t r = 0; r < 8; ++r)
        s[r] = Format::sums(block + r * row_bytes, xb);
      int_lanes::totals8(s, isum);
    }
    exact4<Format>(isum);
    exact4<Format>(isum + 4);
    __m256i exact = _mm256_load_si256(reinterpret_cast<const __m256i*>(isum));
    if constexpr (Format::kOffsetAfter) exact = _mm256_sub_epi32(exact, _mm256_set1_epi32(8 * x.sums32[b]));
    const __m128i halves = _mm_setr_epi16(static_cast<short>(lanes::load_u16(block)),
                                          static_cast<short>(lanes::load_u16(block + row_bytes)),
                                          static_cast<short>(lanes::load_u16(block + 2 * row_bytes)),
                                          static_cast<short>(lanes::load_u16(block + 3 * row_bytes)),
                                          static_cast<short>(lanes::load_u16(block + 4 * row_bytes)),
                                          static_cast<short>(lanes::load_u16(block + 5 * row_bytes)),
                                          static_cast<short>(lanes::load_u16(block + 6 * row_bytes)),
                                          static_cast<short>(lanes::load_u16(block + 7 * row_bytes)));
    const __m256 scale = _mm256_mul_ps(_mm256_cvtph_ps(halves), _mm256_set1_ps(x.d[b]));  // f16_at's, exact
    p = _mm256_add_ps(p, _mm256_mul_ps(scale, _mm256_cvtepi32_ps(exact)));
  };
  std::size_t b = 0;
  for (; b + 4 <= nblocks; b += 4) {
    add_block(b, partial[0]);
    add_block(b + 1, partial[1]);
    add_block(b + 2, partial[2]);
    add_block(b + 3, partial[3]);
  }
  for (std::size_t k = 0; b + k < nblocks; ++k)
    add_block(b + k, partial[k]);
  _mm256_storeu_ps(
      out, _mm256_add_ps(_mm256_add_ps(partial[0], partial[1]), _mm256_add_ps(partial[2], partial[3])));
}
#endif

// Rows of K-quant super-blocks (Format: e.g. blocks/q4_k.cpp's), 8 sub-blocks of 32 each: each super-block
// unpacked (its weight bytes and scales), then its terms added in the header's order.
template <class Format>
void super_block_rows_dot(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                          const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  const XInt* xi = int_lanes::activation_ints(x.q, cols);
  for (std::size_t r = row_begin; r < row_end; ++r) {
    Partials partials;
    for (std::size_t b = 0; b < cols / 32; b += 8) {
      const std::byte* block = w + r * row_bytes + (b / 8) * Format::kBytes;
      if constexpr (requires { Format::add_block(partials, block, x, xi, b); }) {
        Format::add_block(partials, block, x, xi, b);  // read as it is consumed, where a format can
      } else {
        typename Format::SuperBlock unpacked;
        Format::unpack(block, unpacked);
        Format::add(partials, unpacked, x, xi, b);
      }
    }
    out[r] = partials.total();
  }
}

// Asks for the cache lines of the row about kPrefetchBytes ahead of the one being read.
// Why only Q8_0 (Format::kPrefetch, blocks/q8_0.cpp): its kernel outruns memory. With the matrix in L2 it
// reads 18.5 GB/s on Zen 3, from memory 10-12 GB/s, less than the bandwidth probe's 15.6: the core's
// window fills with the arithmetic and the hardware prefetcher alone does not keep enough lines in flight.
// Asking ahead gave 12.5-14.3 GB/s against 9.5-12.2 in a microbenchmark, and in generation (glassbox
// bench, in turn, 5 rounds) 1.20x and 1.19x on 110M at 1 and 2 threads, 1.10x and 1.16x on 15M. Q4_0's and
// the K-quants' kernels read about 10 GB/s even from L2, bound by their arithmetic: asking ahead cost 15M
// Q4_0 generation 6% and left 110M Q4_K_M's unchanged (1.01x, 1.02x). 1 KB ahead did nothing for 15M's
// 306-byte rows; 3 KB is 4 rows of 110M's and 10 of 15M's. Q6_K's decode kernel (blocks/q6_k.cpp) asks
// ahead too, since it reads its super-blocks without unpacking them (figures there).
constexpr std::size_t kPrefetchBytes = 3072;

inline void prefetch_row(const std::byte* row, std::size_t row_bytes) {
#if defined(__wasm_simd128__)
  (void)row, (void)row_bytes;  // WebAssembly has no prefetch, and V8 kept the loop, running empty
#else
  for (std::size_t offset = 0; offset < row_bytes; offset += 64)
    __builtin_prefetch(row + offset);
#endif
}

// x's integers as Format's sums() take them: Format::activations where it says (Q8_0's paired form in
// WebAssembly), otherwise int_lanes::activation_ints.
template <class Format>
GLASSBOX_INT_INLINE const XInt* activations_for(const QuantizedActivations& x, std::size_t cols) {
  if constexpr (requires { Format::activations(x.q, cols); })
    return Format::activations(x.q, cols);
  else
    return int_lanes::activation_ints(x.q, cols);
}

template <class Format>
void rows_dot(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
              const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  // Rows ahead; none where row_bytes is 0 (a single row may come so).
  const std::size_t ahead = row_bytes > 0 ? (kPrefetchBytes + row_bytes - 1) / row_bytes : 0;
  const XInt* xi = activations_for<Format>(x, cols);
  std::size_t r = row_begin;
#if defined(__wasm_simd128__)
  for (; r + 4 <= row_end; r += 4)
    rows4_dot<Format>(out + r, w + r * row_bytes, row_bytes, x, xi, cols / 32);
#endif
#if defined(__AVX2__)
  if constexpr (requires { Format::kEightRows; })
    for (; r + 8 <= row_end; r += 8) {
      // Eight rows asked for while these are read, kAhead rows on. Without it, on an AVX2 EPYC (Zen) reading
      // from memory, eight rows at a time lost to one at a time: gqa40M Q4_0 generation 269 against 369
      // tokens/s at 1 thread (Q8_0's, tried, 140 against 395); with the next eight, 412 at 1 thread and 848
      // against 546 at 2. AVX-512's faster kernel (two rows a vector) wants them further on: on Zen 5, from
      // memory (1536 x 512 x 100), 0.71 ns a block 8 rows on, 0.67 16 rows on, 0.69 32 rows on.
#if defined(GLASSBOX_INT_LANES_WIDE)
      constexpr std::size_t kAhead = 16;
#else
      constexpr std::size_t kAhead = 8;
#endif
      if (r + kAhead + 8 <= row_end) prefetch_row(w + (r + kAhead) * row_bytes, 8 * row_bytes);
      rows8_dot<Format>(out + r, w + r * row_bytes, row_bytes, x, xi, cols / 32);
    }
#endif
  for (; r < row_end; ++r) {
    if constexpr (Format::kPrefetch)
      if (ahead > 0 && r + ahead < row_end) prefetch_row(w + (r + ahead) * row_bytes, row_bytes);
    out[r] = row_dot<Format>(w + r * row_bytes, x, xi, cols / 32);
  }
}

}  // namespace glassbox::kernels::int_rows
