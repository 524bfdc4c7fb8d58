// The integer dot product kernels (contract and float order: quantized_int_dot.hpp). Four blocks at a time:
// their integer sums come out of quantized_int_lanes.hpp as vectors, are totalled together, and the four
// terms go to the four partial sums at once; the K-quants (quantized_int_dot_kquants.hpp) a super-block of
// eight at a time.
#include "kernels/quantized_int_dot.hpp"

#include <cstdint>

#include "kernels/quantized_int_dot_kquants.hpp"
#include "kernels/quantized_int_lanes.hpp"
#include "kernels/quantized_int_terms.hpp"

namespace glassbox::kernels {
namespace {

using int_lanes::Sums;

using int_terms::f16_at;
using int_terms::Partials;

// Q8_0: 34-byte blocks, an f16 scale then 32 int8 values.
struct Q8_0 {
  static constexpr std::size_t kBytes = 34;
  static constexpr bool kPrefetch = true;  // see rows_dot
  static constexpr bool kOffsetAfter = false;
  GLASSBOX_INT_INLINE static int32_t exact(int32_t isum, const QuantizedActivations&, std::size_t) {
    return isum;
  }
  GLASSBOX_INT_INLINE static Sums sums(const std::byte* block, const int8_t* x) {
    return int_lanes::dot_signed(int_lanes::load32(block + 2), x);
  }
};

// Q4_0: 18-byte blocks, an f16 scale then 16 bytes of nibbles (values 0..15 low, 16..31 high), value q - 8.
// On AVX2 the nibbles q meet x unsigned (one instruction fewer than signed bytes) and 8 times the activations'
// sum comes off each block's total afterwards, four blocks in one vector (kOffsetAfter); elsewhere the 8
// comes off the bytes. The integers are the same.
struct Q4_0 {
  static constexpr std::size_t kBytes = 18;
  static constexpr bool kPrefetch = false;  // see rows_dot
#if defined(__AVX2__)
  static constexpr bool kOffsetAfter = true;
  GLASSBOX_INT_INLINE static Sums sums(const std::byte* block, const int8_t* x) {
    return int_lanes::dot_unsigned(int_lanes::nibbles(block + 2), x);
  }
#else
  static constexpr bool kOffsetAfter = false;
  GLASSBOX_INT_INLINE static Sums sums(const std::byte* block, const int8_t* x) {
    return int_lanes::dot_signed(int_lanes::minus(int_lanes::nibbles(block + 2), 8), x);
  }
#endif
  // Block b's integer sum from sums(): less 8 * its activations' sum where kOffsetAfter.
  GLASSBOX_INT_INLINE static int32_t exact(int32_t isum, const QuantizedActivations& x, std::size_t b) {
    return kOffsetAfter ? isum - 8 * x.sums32[b] : isum;
  }
};

template <class Format>
float row_dot(const std::byte* row, const QuantizedActivations& x, std::size_t nblocks) {
  Partials partials;
  std::size_t b = 0;
  for (; b + 4 <= nblocks; b += 4) {
    const std::byte* block = row + b * Format::kBytes;
    const Sums s0 = Format::sums(block, x.q + b * 32);
    const Sums s1 = Format::sums(block + Format::kBytes, x.q + (b + 1) * 32);
    const Sums s2 = Format::sums(block + 2 * Format::kBytes, x.q + (b + 2) * 32);
    const Sums s3 = Format::sums(block + 3 * Format::kBytes, x.q + (b + 3) * 32);
    int32_t isum[4];
    int_lanes::totals4(s0, s1, s2, s3, isum);
    if constexpr (Format::kOffsetAfter) int_lanes::less_8_times(isum, x.sums32 + b);
    float ws[4];
    int_terms::f16_at4(block, Format::kBytes, ws);
    partials.add4(ws, x.d + b, isum);
  }
  for (; b < nblocks; ++b) {
    const std::byte* block = row + b * Format::kBytes;
    const int32_t isum = Format::exact(int_lanes::total(Format::sums(block, x.q + b * 32)), x, b);
    partials.add(b, f16_at(block), x.d[b], isum);
  }
  return partials.total();
}

// Rows of K-quant super-blocks (Format: int_kquants::Q4_K, Q6_K), 8 sub-blocks of 32 each: each super-block
// unpacked (its weight bytes and scales), then its terms added in the header's order.
template <class Format>
void super_block_rows_dot(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                          const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  for (std::size_t r = row_begin; r < row_end; ++r) {
    Partials partials;
    for (std::size_t b = 0; b < cols / 32; b += 8) {
      typename Format::SuperBlock unpacked;
      Format::unpack(w + r * row_bytes + (b / 8) * Format::kBytes, unpacked);
      Format::add(partials, unpacked, x, b);
    }
    out[r] = partials.total();
  }
}

// Asks for the cache lines of the row about kPrefetchBytes ahead of the one being read.
// Why only Q8_0 (Format::kPrefetch): its kernel outruns memory. With the matrix in L2 it reads 18.5 GB/s on
// Zen 3, from memory 10-12 GB/s, less than the bandwidth probe's 15.6: the core's window fills with the
// arithmetic and the hardware prefetcher alone does not keep enough lines in flight. Asking ahead gave
// 12.5-14.3 GB/s against 9.5-12.2 in a microbenchmark, and in generation (glassbox bench, in turn, 5 rounds)
// 1.20x and 1.19x on 110M at 1 and 2 threads, 1.10x and 1.16x on 15M. Q4_0's and the K-quants' kernels read
// about 10 GB/s even from L2, bound by their arithmetic: asking ahead cost 15M Q4_0 generation 6% and left
// 110M Q4_K_M's unchanged (1.01x, 1.02x). 1 KB ahead did nothing for 15M's 306-byte rows; 3 KB is 4 rows of
// 110M's and 10 of 15M's.
constexpr std::size_t kPrefetchBytes = 3072;

inline void prefetch_row(const std::byte* row, std::size_t row_bytes) {
  for (std::size_t offset = 0; offset < row_bytes; offset += 64)
    __builtin_prefetch(row + offset);
}

template <class Format>
void rows_dot(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
              const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  // Rows ahead; none where row_bytes is 0 (a single row may come so).
  const std::size_t ahead = row_bytes > 0 ? (kPrefetchBytes + row_bytes - 1) / row_bytes : 0;
  for (std::size_t r = row_begin; r < row_end; ++r) {
    if constexpr (Format::kPrefetch)
      if (ahead > 0 && r + ahead < row_end) prefetch_row(w + (r + ahead) * row_bytes, row_bytes);
    out[r] = row_dot<Format>(w + r * row_bytes, x, cols / 32);
  }
}

}  // namespace

bool has_int_dot(DType type) {
  return type == DType::Q8_0 || type == DType::Q4_0 || type == DType::Q4_K || type == DType::Q6_K;
}

void int_matvec(float* out, DType type, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  switch (type) {
    case DType::Q8_0:
      return rows_dot<Q8_0>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q4_0:
      return rows_dot<Q4_0>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q4_K:
      return super_block_rows_dot<int_kquants::Q4_K>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q6_K:
      return super_block_rows_dot<int_kquants::Q6_K>(out, w, row_bytes, cols, x, row_begin, row_end);
    default:
      return;  // has_int_dot(type) is false
  }
}

}  // namespace glassbox::kernels
