// IQ4_NL: its row decoder, its kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>

#include "kernels/element_types.hpp"
#include "kernels/quantized_dot_iquants.hpp"
#include "kernels/quantized_int_dot_iquants.hpp"
#include "kernels/quantized_int_dot_rows.hpp"
#include "kernels/quantized_int_matmul_avx2.hpp"

namespace glassbox::kernels::fused {
namespace {

// IQ4_NL: 32 values per 18-byte block, f16 d then 16 bytes of indices: x = d * kIq4NlValues[index].
struct IQ4_NL {
  static constexpr std::size_t kValues = 32, kBytes = 18;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    Batch xv[kB32];
    load_x(xv, x);
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      alignas(16) int8_t values[32];
      look_up_iq4(blocks[r] + 2, values);
      const Batch d(lanes::half_to_float_exact(lanes::load_u16(blocks[r])));
      accumulate_iq4_32(acc[r], values, d, xv);
    });
  }
};

}  // namespace
}  // namespace glassbox::kernels::fused

namespace glassbox::kernels {
namespace {

constexpr ElementType kLayout = element_type(DType::IQ4_NL);
static_assert(kLayout.block_values == 32 && kLayout.block_bytes == 2 + 16);

void dequantize_row_iq4_nl(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values; ++b, row += kLayout.block_bytes, out += 32)
    iq4_block_of_32(row + 2, half_to_float(u16_at(row)), out);
}

static_assert(element_type(DType::IQ4_NL).block_values == fused::IQ4_NL::kValues &&
              element_type(DType::IQ4_NL).block_bytes == fused::IQ4_NL::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), two rows per pass: on a 2048 x 2048 matrix 4%
// faster than one (AVX-512).
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::IQ4_NL>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
}

// The integer dot product's format (quantized_int_dot_rows.hpp): 18-byte blocks, an f16 scale then 16 bytes
// of indices, whose table values are multiplied as signed bytes (quantized_int_dot_iquants.hpp).
struct IntFormat {
  static constexpr std::size_t kBytes = 18;
  static constexpr bool kPrefetch = false;  // see quantized_int_dot_rows.hpp, rows_dot
  static constexpr bool kOffsetAfter = false;
  GLASSBOX_INT_INLINE static int32_t exact(int32_t isum, const QuantizedActivations&, std::size_t) {
    return isum;
  }
  GLASSBOX_INT_INLINE static int_lanes::Sums sums(const std::byte* block, const int_lanes::XInt* x) {
    return int_lanes::dot_signed(int_iquants::iq4_values(block + 2), x);
  }
};

void int_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  int_rows::rows_dot<IntFormat>(out, w, row_bytes, cols, x, row_begin, row_end);
}

// One row as the integer kernels see it (quantized_int_rows.hpp): 18-byte blocks, an f16 scale then 16 bytes
// of indices; the table values as signed bytes.
void decode_integer_row(const std::byte* row, std::size_t cols, int8_t* w, int16_t*, float* ws, float*) {
  for (std::size_t b = 0; b < cols / 32; ++b, row += 18, w += 32) {
    ws[b] = half_at(row);
    int_lanes::store32(w, int_iquants::iq4_values(row + 2));
  }
}

}  // namespace

constinit const BlockKernels blocks::kIQ4_NL = {
    .decode = dequantize_row_iq4_nl,
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::IQ4_NL>,
#endif
};

}  // namespace glassbox::kernels
