// Q4_0's kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>

#include "kernels/element_types.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_dot_rows.hpp"
#include "kernels/quantized_int_dot_rows.hpp"
#include "kernels/quantized_int_matmul_avx2.hpp"

namespace glassbox::kernels::blocks {
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
// On AVX2 the nibbles q meet x unsigned (one instruction fewer than signed bytes) and 8 times the activations'
// sum comes off each block's total afterwards, four blocks in one vector (kOffsetAfter); elsewhere the 8
// comes off the bytes. The integers are the same.
struct IntFormat {
  static constexpr std::size_t kBytes = 18;
  static constexpr bool kPrefetch = false;  // see quantized_int_dot_rows.hpp, rows_dot
#if defined(__AVX2__)
  static constexpr bool kOffsetAfter = true;
  GLASSBOX_INT_INLINE static int_lanes::Sums sums(const std::byte* block, const int8_t* x) {
    return int_lanes::dot_unsigned(int_lanes::nibbles(block + 2), x);
  }
#else
  static constexpr bool kOffsetAfter = false;
  GLASSBOX_INT_INLINE static int_lanes::Sums sums(const std::byte* block, const int8_t* x) {
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
// of nibbles (values 0..15 low, 16..31 high), value q - 8.
void decode_integer_row(const std::byte* row, std::size_t cols, int8_t* w, int16_t*, float* ws, float*) {
  for (std::size_t b = 0; b < cols / 32; ++b, row += 18, w += 32) {
    ws[b] = half_at(row);
    const auto* packed = reinterpret_cast<const uint8_t*>(row + 2);
    for (int j = 0; j < 16; ++j) {
      w[j] = static_cast<int8_t>((packed[j] & 0x0F) - 8);
      w[j + 16] = static_cast<int8_t>((packed[j] >> 4) - 8);
    }
  }
}

}  // namespace

constinit const BlockKernels kQ4_0 = {
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::Q4_0>,
#endif
};

}  // namespace glassbox::kernels::blocks
