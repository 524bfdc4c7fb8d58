// Q6_K's kernels and their entry points (block_kernels.hpp).
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

static_assert(element_type(DType::Q6_K).block_values == fused::Q6_K::kValues &&
              element_type(DType::Q6_K).block_bytes == fused::Q6_K::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), one row per pass: with three widened sources per
// lane, two rows were no faster (AVX2).
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::Q6_K>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
}

void int_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  int_rows::super_block_rows_dot<int_kquants::Q6_K>(out, w, row_bytes, cols, x, row_begin, row_end);
}

// One row as the integer kernels see it (quantized_int_rows.hpp): 210 bytes per 256 values, ql[128], qh[64],
// int8 scales[16], f16 d; w = q - 32.
void decode_integer_row(const std::byte* row, std::size_t cols, int8_t* w, int16_t* group_scales, float* ws,
                        float*) {
  for (std::size_t s = 0; s < cols / 256; ++s, row += 210) {
    const float d = half_at(row + 208);
    for (int b = 0; b < 8; ++b, w += 32) {  // half h, sub-block k of the half
      const int h = b / 4, k = b % 4;
      const auto* ql = reinterpret_cast<const uint8_t*>(row + 64 * h + 32 * (k % 2));
      const auto* qh = reinterpret_cast<const uint8_t*>(row + 128 + 32 * h);
      const auto* scales = reinterpret_cast<const int8_t*>(row + 192 + 8 * h + 2 * k);
      ws[8 * s + b] = d;
      group_scales[16 * s + 2 * b] = scales[0];
      group_scales[16 * s + 2 * b + 1] = scales[1];
      for (int l = 0; l < 32; ++l) {
        const int low = k < 2 ? ql[l] & 0x0F : ql[l] >> 4;
        w[l] = static_cast<int8_t>((low | (((qh[l] >> (2 * k)) & 3) << 4)) - 32);
      }
    }
  }
}

}  // namespace

constinit const BlockKernels kQ6_K = {
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
    .int_group_scales = true,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::Q6_K>,
#endif
};

}  // namespace glassbox::kernels::blocks
