// Q6_K: its row decoder, its kernels and their entry points (block_kernels.hpp).
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

// Q6_K: super-blocks of 256 values in 210 bytes, two halves of 128. In a half, lane l < 32 of the four
// groups of 32 takes its low four bits from ql[l] / ql[l + 32] (low, low, high, high nibble) and its top
// two from qh[l] (bits 0-1, 2-3, 4-5, 6-7); 16 lanes share an int8 scale: x = (d * scale) * (q - 32).
struct Q6_K {
  static constexpr std::size_t kValues = 256, kBytes = 210;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][16];
    for (std::size_t r = 0; r < R; ++r) {
      const float d = lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 208));
      const auto* scales = reinterpret_cast<const int8_t*>(blocks[r] + 192);
      for (int g = 0; g < 16; ++g)
        scale[r][g] = d * static_cast<float>(scales[g]);
    }
    // Each half of the super-block (128 values) at once: value 32 (q - 1) + 16 s + j of the half (q = 1..4,
    // s = 0, 1, j < 16) comes from byte 16 s + j of its sources, one scale per group of 16 and one 16-byte
    // load of each source per s. Its 128 products are made, then added in order of value (add_in_order).
    // Unrolled, so the indices are constants and the batches stay in registers.
    unrolled<2>([&](auto half) __attribute__((always_inline)) {
      constexpr std::size_t kHalf = 128 / kWidth;
      Batch xv[kHalf];
      load_x(xv, x + half * 128);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        Batch products[kHalf];
        unrolled<2>([&](auto s) __attribute__((always_inline)) {
          const std::byte* ql = blocks[r] + half * 64 + s * 16;
          const std::byte* qh = blocks[r] + 128 + half * 32 + s * 16;
          const float* g = scale[r] + half * 8 + s;
          IntBatch lo[kB16], hi[kB16], top[kB16];
          lanes::widen_16_bytes<false>(ql, lo);
          lanes::widen_16_bytes<false>(ql + 32, hi);
          lanes::widen_16_bytes<false>(qh, top);
          const Batch s1(g[0]), s2(g[2]), s3(g[4]), s4(g[6]);
          const IntBatch three(3), fifteen(15), bias(32);
          unrolled<kB16>([&](auto i) __attribute__((always_inline)) {
            const IntBatch q1 = ((lo[i] & fifteen) | ((top[i] & three) << 4)) - bias;
            const IntBatch q2 = ((hi[i] & fifteen) | (((top[i] >> 2) & three) << 4)) - bias;
            const IntBatch q3 = ((lo[i] >> 4) | (((top[i] >> 4) & three) << 4)) - bias;
            const IntBatch q4 = ((hi[i] >> 4) | ((top[i] >> 6) << 4)) - bias;
            constexpr std::size_t at = s * kB16 + i;
            products[at] = (s1 * to_float(q1)) * xv[at];
            products[at + kB32] = (s2 * to_float(q2)) * xv[at + kB32];
            products[at + 2 * kB32] = (s3 * to_float(q3)) * xv[at + 2 * kB32];
            products[at + 3 * kB32] = (s4 * to_float(q4)) * xv[at + 3 * kB32];
          });
        });
        add_in_order(acc[r], products);
      });
    });
  }
};

}  // namespace
}  // namespace glassbox::kernels::fused

namespace glassbox::kernels {
namespace {

constexpr ElementType kLayout = element_type(DType::Q6_K);
static_assert(kLayout.block_values == 256 && kLayout.block_bytes == 128 + 64 + 16 + 2);

void dequantize_row_q6_k(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values; ++b, row += kLayout.block_bytes) {
    const auto* ql = reinterpret_cast<const uint8_t*>(row);
    const auto* qh = reinterpret_cast<const uint8_t*>(row + 128);
    const auto* scales = reinterpret_cast<const int8_t*>(row + 192);
    const float d = half_to_float(u16_at(row + 208));
    for (int half = 0; half < 2; ++half, ql += 64, qh += 32, scales += 8, out += 128) {
      for (int l = 0; l < 32; ++l) {
        const int group = l / 16;
        const int q1 = ((ql[l] & 0x0F) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int q2 = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        out[l] = d * static_cast<float>(scales[group]) * static_cast<float>(q1);
        out[l + 32] = d * static_cast<float>(scales[group + 2]) * static_cast<float>(q2);
        out[l + 64] = d * static_cast<float>(scales[group + 4]) * static_cast<float>(q3);
        out[l + 96] = d * static_cast<float>(scales[group + 6]) * static_cast<float>(q4);
      }
    }
  }
}

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
#if defined(__AVX2__)
  // Each super-block consumed as it is read (Q6_K::add_block), in the order super_block_rows_dot adds them.
  // Rows asked for ahead as Q8_0's (int_rows::prefetch_row): with add_block this kernel outruns memory too.
  // gqa40M generation (1 thread, medians of 5 alternated runs, busy machine): Q6_K file 296 -> 358 tokens/s,
  // Q4_K_M 551 -> 581, IQ4_XS 465 -> 476; 1536 x 512 in cache 2% slower (8.9 -> 9.2 ns per super-block).
  const int_lanes::XInt* xi = int_lanes::activation_ints(x.q, cols);
  const std::size_t ahead = row_bytes > 0 ? (int_rows::kPrefetchBytes + row_bytes - 1) / row_bytes : 0;
  for (std::size_t r = row_begin; r < row_end; ++r) {
    if (ahead > 0 && r + ahead < row_end) int_rows::prefetch_row(w + (r + ahead) * row_bytes, row_bytes);
    int_terms::Partials partials;
    const std::byte* row = w + r * row_bytes;
    for (std::size_t b = 0; b < cols / 32; b += 8)
      int_kquants::Q6_K::add_block(partials, row + (b / 8) * int_kquants::Q6_K::kBytes, x, xi, b);
    out[r] = partials.total();
  }
#else
  int_rows::super_block_rows_dot<int_kquants::Q6_K>(out, w, row_bytes, cols, x, row_begin, row_end);
#endif
}

// One row as the integer kernels see it (quantized_int_rows.hpp): 210 bytes per 256 values, ql[128], qh[64],
// int8 scales[16], f16 d; w = q - 32.
void decode_integer_row(const std::byte* row, std::size_t cols, int8_t* w, int16_t* group_scales, float* ws,
                        float*) {
  for (std::size_t s = 0; s < cols / 256; ++s, row += 210, w += 256) {
    int_kquants::Q6_K::SuperBlock u;  // the integer dot product's unpacking: values 0..63, int16 scales
    int_kquants::Q6_K::unpack(row, u);
    for (int b = 0; b < 8; ++b) {
      ws[8 * s + b] = u.d;
      int_lanes::store32(w + 32 * b, int_lanes::minus(u.q[b], 32));
    }
    std::memcpy(group_scales + 16 * s, u.scale, sizeof u.scale);
  }
}

}  // namespace

constinit const BlockKernels blocks::kQ6_K = {
    .decode = dequantize_row_q6_k,
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
    .int_group_scales = true,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::Q6_K>,
#endif
};

}  // namespace glassbox::kernels
