// Q4_0: its row decoder and encoder, its kernels and their entry points (block_kernels.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/element_types.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_dot_rows.hpp"
#include "kernels/quantized_int_dot_rows.hpp"
#include "kernels/quantized_int_matmul_avx2.hpp"

namespace glassbox::kernels::fused {
namespace {

// Q4_0: 32 values per 18-byte block; byte j holds value j (low nibble) and j + 16 (high), x = d * (q - 8).
struct Q4_0 {
  static constexpr std::size_t kValues = 32, kBytes = 18;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    Batch xv[kB32];
    load_x(xv, x);
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      const Batch d(lanes::half_to_float_exact(lanes::load_u16(blocks[r])));
      IntBatch packed[kB16];
      lanes::widen_16_bytes<false>(blocks[r] + 2, packed);
      Batch products[kB32];
      unrolled<kB16>([&](auto i) __attribute__((always_inline)) {
        const IntBatch low = (packed[i] & IntBatch(0x0F)) - IntBatch(8);
        const IntBatch high = (packed[i] >> 4) - IntBatch(8);
        products[i] = (d * to_float(low)) * xv[i];
        products[i + kB16] = (d * to_float(high)) * xv[i + kB16];
      });
      add_in_order(acc[r], products);
    });
  }
};

}  // namespace
}  // namespace glassbox::kernels::fused

namespace glassbox::kernels {
namespace {

constexpr ElementType kLayout = element_type(DType::Q4_0);
static_assert(kLayout.block_values == 32 && kLayout.block_bytes == 2 + 16);

void dequantize_row_q4_0(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values; ++b, row += kLayout.block_bytes) {
    const float d = half_to_float(u16_at(row));
    const auto* q = reinterpret_cast<const uint8_t*>(row + 2);
    for (int j = 0; j < 16; ++j) {
      out[j] = d * static_cast<float>((q[j] & 0x0F) - 8);
      out[j + 16] = d * static_cast<float>((q[j] >> 4) - 8);
    }
    out += 32;
  }
}

}  // namespace

void quantize_row_q4_0(const float* x, std::byte* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values;
       ++b, x += kLayout.block_values, out += kLayout.block_bytes) {
    float amax = 0.0f, max = 0.0f;  // the value of largest magnitude, with its sign
    for (int j = 0; j < 32; ++j) {
      if (amax < std::fabs(x[j])) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    }
    const float d = max / -8.0f;
    const float inverse = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t d16 = float_to_half(d);
    std::memcpy(out, &d16, 2);
    for (int j = 0; j < 16; ++j) {
      const int lo = std::min(15, static_cast<int>(static_cast<int8_t>(x[j] * inverse + 8.5f)));
      const int hi = std::min(15, static_cast<int>(static_cast<int8_t>(x[j + 16] * inverse + 8.5f)));
      out[2 + j] = static_cast<std::byte>(lo | (hi << 4));
    }
  }
}

namespace {

static_assert(element_type(DType::Q4_0).block_values == fused::Q4_0::kValues &&
              element_type(DType::Q4_0).block_bytes == fused::Q4_0::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), two rows per pass, the fastest on AVX2 over a
// stories15M-sized model's matrices.
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::Q4_0>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
}

// The integer dot product's format (quantized_int_dot_rows.hpp): 18-byte blocks, an f16 scale then 16 bytes
// of nibbles (values 0..15 low, 16..31 high), value q - 8.
// On AVX2 and in WebAssembly the nibbles q meet x unsigned (one instruction fewer than signed bytes; in
// WebAssembly widened to 16 bits before the nibbles are taken apart) and 8 times the activations' sum comes
// off each block's total afterwards, four blocks in one vector (kOffsetAfter); elsewhere the 8 comes off the
// bytes. The integers are the same.
struct IntFormat {
  static constexpr std::size_t kBytes = 18;
  static constexpr bool kPrefetch = false;  // see quantized_int_dot_rows.hpp, rows_dot
  static constexpr bool kEightRows = true;  // natively, rows eight at a time (rows8_dot)
#if defined(__AVX2__) || defined(__wasm_simd128__)
  static constexpr bool kOffsetAfter = true;
  GLASSBOX_INT_INLINE static int_lanes::Sums sums(const std::byte* block, const int_lanes::XInt* x) {
    return int_lanes::dot_nibbles(block + 2, x);
  }
#if defined(GLASSBOX_INT_LANES_WIDE)
  // rows8_dot's form with AVX-512: the same block of two rows in one vector (int_lanes::dot_nibbles_two).
  GLASSBOX_INT_INLINE static int_lanes::WideSums sums_two(const std::byte* block0, const std::byte* block1,
                                                          __m512i x2) {
    return int_lanes::dot_nibbles_two(block0 + 2, block1 + 2, x2);
  }
#endif
#if defined(GLASSBOX_INT_LANES_NIBBLE_PAIRS)
  // rows8_dot's form of sums() without VNNI: the products as 16-bit pairs (int_lanes::nibble_totals8).
  GLASSBOX_INT_INLINE static int_lanes::Sums pairs(const std::byte* block, const int_lanes::XInt* x) {
    return int_lanes::nibble_pairs(block + 2, x);
  }
#endif
#else
  static constexpr bool kOffsetAfter = false;
  GLASSBOX_INT_INLINE static int_lanes::Sums sums(const std::byte* block, const int_lanes::XInt* x) {
    return int_lanes::dot_signed(int_lanes::minus(int_lanes::nibbles(block + 2), 8), x);
  }
#endif
  // Block b's integer sum from sums(): less 8 * its activations' sum where kOffsetAfter.
  GLASSBOX_INT_INLINE static int32_t exact(int32_t isum, const QuantizedActivations& x, std::size_t b) {
    return kOffsetAfter ? isum - 8 * x.sums32[b] : isum;
  }
};

void int_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  int_rows::rows_dot<IntFormat>(out, w, row_bytes, cols, x, row_begin, row_end);
}

// One row as the integer kernels see it (quantized_int_rows.hpp): 18-byte blocks, an f16 scale then 16 bytes
// of nibbles (values 0..15 low, 16..31 high), value q - 8; a block's bytes in one vector (int_lanes).
void decode_integer_row(const std::byte* row, std::size_t cols, int8_t* w, int16_t*, float* ws, float*) {
  for (std::size_t b = 0; b < cols / 32; ++b, row += 18, w += 32) {
    ws[b] = half_at(row);
    int_lanes::store32(w, int_lanes::minus(int_lanes::nibbles(row + 2), 8));
  }
}

}  // namespace

constinit const BlockKernels blocks::kQ4_0 = {
    .decode = dequantize_row_q4_0,
    .encode = quantize_row_q4_0,
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::Q4_0>,
#endif
};

}  // namespace glassbox::kernels
