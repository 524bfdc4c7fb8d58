// IQ4_XS: its row decoder, its kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>

#include "kernels/element_types.hpp"
#include "kernels/quantized_dot_iquants.hpp"
#include "kernels/quantized_int_dot_iquants.hpp"
#include "kernels/quantized_int_dot_rows.hpp"
#include "kernels/quantized_int_matmul_avx2.hpp"

namespace glassbox::kernels::fused {
namespace {

// IQ4_XS: super-blocks of 256 values in 136 bytes: f16 d, uint16 of high scale bits, 4 bytes of low scale
// nibbles, 128 bytes of indices; sub-block j (values 32 j ..) reads bytes 16 j .. 16 j + 15 of the indices
// as an IQ4_NL block and has the scale d * iq4_xs_scale(j): x = (d * scale) * kIq4NlValues[index].
struct IQ4_XS {
  static constexpr std::size_t kValues = 256, kBytes = 136;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][8];
    for (std::size_t r = 0; r < R; ++r) {
      const float d = lanes::half_to_float_exact(lanes::load_u16(blocks[r]));
      const uint16_t high = lanes::load_u16(blocks[r] + 2);
      const auto* low = reinterpret_cast<const uint8_t*>(blocks[r] + 4);
      for (int j = 0; j < 8; ++j)
        scale[r][j] = d * static_cast<float>(iq4_xs_scale(j, high, low));
    }
    for (int j = 0; j < 8; ++j) {
      Batch xv[kB32];
      load_x(xv, x + 32 * j);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        alignas(16) int8_t values[32];
        look_up_iq4(blocks[r] + 8 + 16 * j, values);
        accumulate_iq4_32(acc[r], values, Batch(scale[r][j]), xv);
      });
    }
  }
};

}  // namespace
}  // namespace glassbox::kernels::fused

namespace glassbox::kernels {
namespace {

constexpr ElementType kLayout = element_type(DType::IQ4_XS);
static_assert(kLayout.block_values == 256 && kLayout.block_bytes == 2 + 2 + 4 + 128);

}  // namespace

// IQ4_XS: sub-block j (0..7) of 32 values reads indices 16 j .. 16 j + 15 as an IQ4_NL block does, with the
// scale d * iq4_xs_scale(j).
namespace {

void dequantize_row_iq4_xs(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values; ++b, row += kLayout.block_bytes) {
    const float d = half_to_float(u16_at(row));
    const uint16_t high = u16_at(row + 2);
    const auto* low = reinterpret_cast<const uint8_t*>(row + 4);
    for (int j = 0; j < 8; ++j, out += 32)
      iq4_block_of_32(row + 8 + 16 * j, d * static_cast<float>(iq4_xs_scale(j, high, low)), out);
  }
}

static_assert(element_type(DType::IQ4_XS).block_values == fused::IQ4_XS::kValues &&
              element_type(DType::IQ4_XS).block_bytes == fused::IQ4_XS::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), one row per pass: on a 2048 x 2048 matrix two were
// 3% slower (AVX-512).
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::IQ4_XS>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
}

void int_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  int_rows::super_block_rows_dot<int_iquants::IQ4_XS>(out, w, row_bytes, cols, x, row_begin, row_end);
}

// One row as the integer kernels see it (quantized_int_rows.hpp): 136 bytes per 256 values; each sub-block's
// table values as signed bytes and its float scale d * (ls - 32).
void decode_integer_row(const std::byte* row, std::size_t cols, int8_t* w, int16_t*, float* ws, float*) {
  for (std::size_t s = 0; s < cols / 256; ++s, row += kLayout.block_bytes) {
    int_iquants::IQ4_XS::scales(row, ws + 8 * s);
    for (int j = 0; j < 8; ++j, w += 32)
      int_lanes::store32(w, int_iquants::iq4_values(row + 8 + 16 * j));
  }
}

}  // namespace

constinit const BlockKernels blocks::kIQ4_XS = {
    .decode = dequantize_row_iq4_xs,
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::IQ4_XS>,
#endif
};

}  // namespace glassbox::kernels
