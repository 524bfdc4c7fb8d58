// Q5_K: its row decoder, its kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>

#include "kernels/element_types.hpp"
#include "kernels/quantized_dot_rows.hpp"
#include "kernels/quantized_int_dot_kquants.hpp"
#include "kernels/quantized_int_dot_rows.hpp"
#include "kernels/quantized_int_matmul_avx2.hpp"

namespace glassbox::kernels::fused {
namespace {

// Q5_K: super-blocks of 256 values in 176 bytes: Q4_K's d, dmin and 12 bytes of packed (scale, min), then
// 32 bytes of fifth bits, then 128 bytes of nibbles. Each 32 bytes of nibbles (chunk c) hold sub-blocks 2c
// (low nibbles) and 2c + 1 (high); value l of them gains 16 from bit 2c / 2c + 1 of fifth-bit byte l:
// x = (d * scale) * q - dmin * min.
struct Q5_K {
  static constexpr std::size_t kValues = 256, kBytes = 176;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][8], offset[R][8];
    q4_k_sub_block_scales(blocks, scale, offset);
    for (int c = 0; c < 4; ++c) {
      Batch xl[kB32], xh[kB32];
      load_x(xl, x + c * 64);
      load_x(xh, x + c * 64 + 32);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        IntBatch q[kB32], fifth[kB32];
        lanes::widen_32_bytes<false>(blocks[r] + 48 + c * 32, q);
        lanes::widen_32_bytes<false>(blocks[r] + 16, fifth);
        const Batch dl(scale[r][2 * c]), ml(offset[r][2 * c]);
        const Batch dh(scale[r][2 * c + 1]), mh(offset[r][2 * c + 1]);
        Batch products[2 * kB32];  // the low sub-block's 32 values, then the high one's
        unrolled<kB32>([&](auto k) __attribute__((always_inline)) {
          const IntBatch low = (q[k] & IntBatch(0x0F)) | (((fifth[k] >> (2 * c)) & IntBatch(1)) << 4);
          const IntBatch high = (q[k] >> 4) | (((fifth[k] >> (2 * c + 1)) & IntBatch(1)) << 4);
          products[k] = (dl * to_float(low) - ml) * xl[k];
          products[k + kB32] = (dh * to_float(high) - mh) * xh[k];
        });
        add_in_order(acc[r], products);
      });
    }
  }
};

}  // namespace
}  // namespace glassbox::kernels::fused

namespace glassbox::kernels {
namespace {

constexpr ElementType kLayout = element_type(DType::Q5_K);
static_assert(kLayout.block_values == 256 && kLayout.block_bytes == 2 + 2 + 12 + 32 + 128);

}  // namespace

// Q5_K: Q4_K's scales and nibbles; value 64 c + l (l < 32, low nibble of byte 32 c + l) gains 16 from bit
// 2c of byte l of the 32 fifth-bit bytes, value 64 c + 32 + l (high nibble) from bit 2c + 1.
namespace {

void dequantize_row_q5_k(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values; ++b, row += kLayout.block_bytes) {
    const float d = half_to_float(u16_at(row));
    const float dmin = half_to_float(u16_at(row + 2));
    const auto* packed = reinterpret_cast<const uint8_t*>(row + 4);
    const auto* qh = reinterpret_cast<const uint8_t*>(row + 16);
    const auto* q = reinterpret_cast<const uint8_t*>(row + 48);
    for (int c = 0; c < 4; ++c, q += 32) {
      uint8_t scale, min;
      q4_k_scale_min(2 * c, packed, &scale, &min);
      const float d1 = d * scale, m1 = dmin * min;
      q4_k_scale_min(2 * c + 1, packed, &scale, &min);
      const float d2 = d * scale, m2 = dmin * min;
      for (int l = 0; l < 32; ++l)
        *out++ = d1 * static_cast<float>((q[l] & 0x0F) | (((qh[l] >> (2 * c)) & 1) << 4)) - m1;
      for (int l = 0; l < 32; ++l)
        *out++ = d2 * static_cast<float>((q[l] >> 4) | (((qh[l] >> (2 * c + 1)) & 1) << 4)) - m2;
    }
  }
}

static_assert(element_type(DType::Q5_K).block_values == fused::Q5_K::kValues &&
              element_type(DType::Q5_K).block_bytes == fused::Q5_K::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), one row per pass: on a 768 x 2048 matrix two were
// 7-18% slower (AVX2, AVX-512).
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::Q5_K>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
}

void int_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  int_rows::super_block_rows_dot<int_kquants::Q5_K>(out, w, row_bytes, cols, x, row_begin, row_end);
}

static_assert(int_kquants::Q5_K::kBytes == kLayout.block_bytes);

// One row as the integer kernels see it (quantized_int_rows.hpp): the 5-bit values 0..31 and Q4_K's d * scale,
// dmin * min, as the integer dot product unpacks them.
void decode_integer_row(const std::byte* row, std::size_t cols, int8_t* w, int16_t*, float* ws, float* wm) {
  for (std::size_t s = 0; s < cols / 256; ++s, row += kLayout.block_bytes, w += 256) {
    int_kquants::Q5_K::SuperBlock u;
    int_kquants::Q5_K::unpack(row, u);
    for (int j = 0; j < 8; ++j) {
      ws[8 * s + j] = u.ws[j];
      wm[8 * s + j] = u.wm[j];
      int_lanes::store32(w + 32 * j, u.q[j]);
    }
  }
}

}  // namespace

constinit const BlockKernels blocks::kQ5_K = {
    .decode = dequantize_row_q5_k,
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
    .int_offsets = true,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::Q5_K>,
#endif
};

}  // namespace glassbox::kernels
