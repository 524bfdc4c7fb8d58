// Q4_K: its row decoder, its kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/element_types.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_dot_rows.hpp"
#include "kernels/quantized_int_dot_kquants.hpp"
#include "kernels/quantized_int_dot_rows.hpp"
#include "kernels/quantized_int_matmul_avx2.hpp"

namespace glassbox::kernels::fused {
namespace {

// Q4_K: super-blocks of 256 values in 144 bytes. Each 32 bytes of nibbles hold two sub-blocks of 32 (low
// nibbles, then high), each with its own scale and min: x = (d * scale) * q - dmin * min.
struct Q4_K {
  static constexpr std::size_t kValues = 256, kBytes = 144;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][8], offset[R][8];
    q4_k_sub_block_scales(blocks, scale, offset);
    for (int j = 0; j < 8; j += 2) {  // one pass per 32 bytes: sub-blocks j (low nibbles) and j + 1 (high)
      Batch xl[kB32], xh[kB32];
      load_x(xl, x + j * 32);
      load_x(xh, x + j * 32 + 32);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        IntBatch q[kB32];
        lanes::widen_32_bytes<false>(blocks[r] + 16 + j * 16, q);
        const Batch dl(scale[r][j]), ml(offset[r][j]), dh(scale[r][j + 1]), mh(offset[r][j + 1]);
        Batch products[2 * kB32];  // the low sub-block's 32 values, then the high one's
        unrolled<kB32>([&](auto k) __attribute__((always_inline)) {
          products[k] = (dl * to_float(q[k] & IntBatch(0x0F)) - ml) * xl[k];
          products[k + kB32] = (dh * to_float(q[k] >> 4) - mh) * xh[k];
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

constexpr ElementType kLayout = element_type(DType::Q4_K);
static_assert(kLayout.block_values == 256 && kLayout.block_bytes == 2 + 2 + 12 + 128);

void dequantize_row_q4_k(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values; ++b, row += kLayout.block_bytes) {
    const float d = half_to_float(u16_at(row));
    const float dmin = half_to_float(u16_at(row + 2));
    const auto* packed = reinterpret_cast<const uint8_t*>(row + 4);
    const auto* q = reinterpret_cast<const uint8_t*>(row + 16);
    for (int j = 0; j < 8;
         j += 2, q += 32) {  // 64 values per pass: low nibbles then high nibbles of 32 bytes
      uint8_t scale, min;
      q4_k_scale_min(j, packed, &scale, &min);
      const float d1 = d * scale, m1 = dmin * min;
      q4_k_scale_min(j + 1, packed, &scale, &min);
      const float d2 = d * scale, m2 = dmin * min;
      for (int l = 0; l < 32; ++l)
        *out++ = d1 * static_cast<float>(q[l] & 0x0F) - m1;
      for (int l = 0; l < 32; ++l)
        *out++ = d2 * static_cast<float>(q[l] >> 4) - m2;
    }
  }
}

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
    const auto* scales = reinterpret_cast<const uint8_t*>(row + 4);
    for (int j = 0; j < 8; ++j) {
      uint8_t scale, min;
      q4_k_scale_min(j, scales, &scale, &min);
      ws[8 * s + j] = d * scale;
      wm[8 * s + j] = dmin * min;
    }
    for (int pair = 0; pair < 4; ++pair, w += 64) {  // sub-blocks 2 pair and 2 pair + 1: low and high nibbles
      const int_lanes::Bytes packed = int_lanes::load32(row + 16 + 32 * pair);
      int_lanes::store32(w, int_lanes::low_nibbles(packed));
      int_lanes::store32(w + 32, int_lanes::high_nibbles(packed));
    }
  }
}

}  // namespace

constinit const BlockKernels blocks::kQ4_K = {
    .decode = dequantize_row_q4_k,
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
    .int_offsets = true,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::Q4_K>,
#endif
};

}  // namespace glassbox::kernels
