// Q4_K's kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>

#include "kernels/element_types.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_dot_rows.hpp"
#include "kernels/quantized_int_dot_kquants.hpp"
#include "kernels/quantized_int_dot_rows.hpp"
#include "kernels/quantized_int_matmul_avx2.hpp"

namespace glassbox::kernels::blocks {
namespace {

static_assert(element_type(DType::Q4_K).block_values == fused::Q4_K::kValues &&
              element_type(DType::Q4_K).block_bytes == fused::Q4_K::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), two rows per pass, the fastest on AVX2 over a
// stories15M-sized model's matrices.
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::Q4_K>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
}

void int_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  int_rows::super_block_rows_dot<int_kquants::Q4_K>(out, w, row_bytes, cols, x, row_begin, row_end);
}

// One row as the integer kernels see it (quantized_int_rows.hpp): 144 bytes per 256 values, f16 d, f16 dmin,
// 12 bytes of 6-bit scales and mins, nibbles.
void decode_integer_row(const std::byte* row, std::size_t cols, int8_t* w, int16_t*, float* ws, float* wm) {
  for (std::size_t s = 0; s < cols / 256; ++s, row += 144) {
    const float d = half_at(row), dmin = half_at(row + 2);
    const auto* packed = reinterpret_cast<const uint8_t*>(row + 4);
    for (int j = 0; j < 8; ++j, w += 32) {  // sub-block j: the low (j even) or high nibbles of 32 bytes
      uint8_t scale, min;
      q4_k_scale_min(j, packed, &scale, &min);
      ws[8 * s + j] = d * scale;
      wm[8 * s + j] = dmin * min;
      const auto* q = reinterpret_cast<const uint8_t*>(row + 16 + 32 * (j / 2));
      for (int l = 0; l < 32; ++l)
        w[l] = static_cast<int8_t>(j % 2 == 0 ? q[l] & 0x0F : q[l] >> 4);
    }
  }
}

}  // namespace

constinit const BlockKernels kQ4_K = {
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
    .int_offsets = true,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::Q4_K>,
#endif
};

}  // namespace glassbox::kernels::blocks
