// Q2_K: its row decoder, its kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>

#include "kernels/element_types.hpp"
#include "kernels/quantized_dot_rows.hpp"

namespace glassbox::kernels::fused {
namespace {

// A scale per 16 values: a batch never straddles two of them.
static_assert(16 % kWidth == 0);

// Q2_K: super-blocks of 256 values in 84 bytes: 16 bytes of (scale, min) nibbles, 64 bytes of 2-bit q,
// f16 d, f16 dmin. Pass j (0..3) of half h reads bits 2j..2j+1 of the half's 32 bytes for values
// 128 h + 32 j + l; x = (d * scale) * q - dmin * min with scale and min number 8 h + 2 j + l / 16.
struct Q2_K {
  static constexpr std::size_t kValues = 256, kBytes = 84;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][16], offset[R][16];
    for (std::size_t r = 0; r < R; ++r) {
      const float d = lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 80));
      const float dmin = lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 82));
      const auto* sm = reinterpret_cast<const uint8_t*>(blocks[r]);
      for (int g = 0; g < 16; ++g) {
        scale[r][g] = d * static_cast<float>(sm[g] & 0x0F);
        offset[r][g] = dmin * static_cast<float>(sm[g] >> 4);
      }
    }
    for (int h = 0; h < 2; ++h) {
      for (int j = 0; j < 4; ++j) {
        Batch xv[kB32];
        load_x(xv, x + 128 * h + 32 * j);
        unrolled<R>([&](auto r) __attribute__((always_inline)) {
          IntBatch q[kB32];
          lanes::widen_32_bytes<false>(blocks[r] + 16 + 32 * h, q);
          const float* s = scale[r] + 8 * h + 2 * j;
          const float* o = offset[r] + 8 * h + 2 * j;
          Batch products[kB32];
          unrolled<kB32>([&](auto k) __attribute__((always_inline)) {
            constexpr std::size_t g = k * kWidth / 16;
            const Batch w = Batch(s[g]) * to_float((q[k] >> (2 * j)) & IntBatch(3)) - Batch(o[g]);
            products[k] = w * xv[k];
          });
          add_in_order(acc[r], products);
        });
      }
    }
  }
};

}  // namespace
}  // namespace glassbox::kernels::fused

namespace glassbox::kernels {
namespace {

constexpr ElementType kLayout = element_type(DType::Q2_K);
static_assert(kLayout.block_values == 256 && kLayout.block_bytes == 16 + 64 + 2 + 2);

}  // namespace

// Q2_K and Q3_K share one arrangement of their 2-bit values: two halves of 128 values, each reading 32 bytes
// four times, shifting by 0, 2, 4, 6 bits; pass j of half h gives values 128 h + 32 j + l (l < 32) from bits
// 2j..2j+1 of byte 32 h + l. Each 16 values (l < 16, l >= 16) have their own scale: number 8 h + 2 j + l / 16.
namespace {

void dequantize_row_q2_k(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values; ++b, row += kLayout.block_bytes) {
    const auto* scales = reinterpret_cast<const uint8_t*>(row);  // low nibble scale, high nibble min
    const auto* qs = reinterpret_cast<const uint8_t*>(row + 16);
    const float d = half_to_float(u16_at(row + 80)), dmin = half_to_float(u16_at(row + 82));
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < 4; ++j)
        for (int l = 0; l < 32; ++l) {
          const uint8_t sm = scales[8 * h + 2 * j + l / 16];
          const float dl = d * static_cast<float>(sm & 0x0F), ml = dmin * static_cast<float>(sm >> 4);
          *out++ = dl * static_cast<float>((qs[32 * h + l] >> (2 * j)) & 3) - ml;
        }
  }
}

static_assert(element_type(DType::Q2_K).block_values == fused::Q2_K::kValues &&
              element_type(DType::Q2_K).block_bytes == fused::Q2_K::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), one row per pass: on a 768 x 2048 matrix two were
// 7-18% slower (AVX2, AVX-512).
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::Q2_K>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
}

}  // namespace

constinit const BlockKernels blocks::kQ2_K = {.decode = dequantize_row_q2_k, .fused_matvec = fused_matvec};

}  // namespace glassbox::kernels
