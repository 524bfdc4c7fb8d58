// Q3_K: its row decoder, its kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>

#include "kernels/element_types.hpp"
#include "kernels/quantized_dot_rows.hpp"

namespace glassbox::kernels::fused {
namespace {

// A scale per 16 values: a batch never straddles two of them.
static_assert(16 % kWidth == 0);

// Q3_K: super-blocks of 256 values in 110 bytes: 32 bytes of third bits, 64 bytes of 2-bit q, 12 bytes of
// 6-bit scales (q3_k_scale), f16 d. Value 128 h + 32 j + l: two low bits as Q2_K's, third bit from bit
// 4 h + j of mask byte l (clear: minus 4); x = (d * scale) * q with scale number 8 h + 2 j + l / 16.
struct Q3_K {
  static constexpr std::size_t kValues = 256, kBytes = 110;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][16];
    for (std::size_t r = 0; r < R; ++r) {
      const float d = lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 108));
      const auto* packed = reinterpret_cast<const uint8_t*>(blocks[r] + 96);
      for (int g = 0; g < 16; ++g)
        scale[r][g] = d * static_cast<float>(q3_k_scale(g, packed));
    }
    for (int h = 0; h < 2; ++h) {
      for (int j = 0; j < 4; ++j) {
        Batch xv[kB32];
        load_x(xv, x + 128 * h + 32 * j);
        unrolled<R>([&](auto r) __attribute__((always_inline)) {
          IntBatch q[kB32], mask[kB32];
          lanes::widen_32_bytes<false>(blocks[r] + 32 + 32 * h, q);
          lanes::widen_32_bytes<false>(blocks[r], mask);
          const float* s = scale[r] + 8 * h + 2 * j;
          Batch products[kB32];
          unrolled<kB32>([&](auto k) __attribute__((always_inline)) {
            constexpr std::size_t g = k * kWidth / 16;
            const IntBatch third = (mask[k] >> (4 * h + j)) & IntBatch(1);
            const IntBatch v = ((q[k] >> (2 * j)) & IntBatch(3)) - IntBatch(4) + (third << 2);
            products[k] = (Batch(s[g]) * to_float(v)) * xv[k];
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

constexpr ElementType kLayout = element_type(DType::Q3_K);
static_assert(kLayout.block_values == 256 && kLayout.block_bytes == 32 + 64 + 12 + 2);

}  // namespace

// Q3_K: value 128 h + 32 j + l takes its two low bits as Q2_K does and its third bit from bit 4 h + j of
// byte l of the 32 mask bytes; a clear bit subtracts 4 (q in -4..3).
namespace {

void dequantize_row_q3_k(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values; ++b, row += kLayout.block_bytes) {
    const auto* mask = reinterpret_cast<const uint8_t*>(row);
    const auto* qs = reinterpret_cast<const uint8_t*>(row + 32);
    const auto* packed = reinterpret_cast<const uint8_t*>(row + 96);
    const float d = half_to_float(u16_at(row + 108));
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < 4; ++j)
        for (int l = 0; l < 32; ++l) {
          const float dl = d * static_cast<float>(q3_k_scale(8 * h + 2 * j + l / 16, packed));
          const int low = (qs[32 * h + l] >> (2 * j)) & 3;
          const int q = low - (((mask[l] >> (4 * h + j)) & 1) ? 0 : 4);
          *out++ = dl * static_cast<float>(q);
        }
  }
}

static_assert(element_type(DType::Q3_K).block_values == fused::Q3_K::kValues &&
              element_type(DType::Q3_K).block_bytes == fused::Q3_K::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), one row per pass: on a 768 x 2048 matrix two were
// 7-18% slower (AVX2, AVX-512).
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::Q3_K>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
}

}  // namespace

constinit const BlockKernels blocks::kQ3_K = {.decode = dequantize_row_q3_k, .fused_matvec = fused_matvec};

}  // namespace glassbox::kernels
