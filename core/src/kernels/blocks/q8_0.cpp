// Q8_0: its row decoder and encoder, its kernels and their entry points (block_kernels.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/element_types.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_dot_rows.hpp"
#include "kernels/quantized_int_dot_rows.hpp"
#include "kernels/quantized_int_matmul_avx2.hpp"

namespace glassbox::kernels::fused {
namespace {

// Q8_0: 32 values per 34-byte block, x = d * q.
struct Q8_0 {
  static constexpr std::size_t kValues = 32, kBytes = 34;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    Batch xv[kB32];
    load_x(xv, x);
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      const Batch d(lanes::half_to_float_exact(lanes::load_u16(blocks[r])));
      IntBatch q[kB32];
      lanes::widen_32_bytes<true>(blocks[r] + 2, q);
      Batch products[kB32];
      unrolled<kB32>([&](auto k)
                         __attribute__((always_inline)) { products[k] = (d * to_float(q[k])) * xv[k]; });
      add_in_order(acc[r], products);
    });
  }
};

}  // namespace
}  // namespace glassbox::kernels::fused

namespace glassbox::kernels {
namespace {

constexpr ElementType kLayout = element_type(DType::Q8_0);
static_assert(kLayout.block_values == 32 && kLayout.block_bytes == 2 + 32);

void dequantize_row_q8_0(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values; ++b, row += kLayout.block_bytes) {
    const float d = half_to_float(u16_at(row));
    const auto* q = reinterpret_cast<const int8_t*>(row + 2);
    for (int j = 0; j < 32; ++j)
      *out++ = d * static_cast<float>(q[j]);
  }
}

}  // namespace

void quantize_row_q8_0(const float* x, std::byte* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kLayout.block_values;
       ++b, x += kLayout.block_values, out += kLayout.block_bytes) {
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j)
      amax = std::fmax(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float inverse = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t d16 = float_to_half(d);
    std::memcpy(out, &d16, 2);
    for (int j = 0; j < 32; ++j)
      out[2 + j] = static_cast<std::byte>(static_cast<int8_t>(std::lround(x[j] * inverse)));
  }
}

namespace {

static_assert(element_type(DType::Q8_0).block_values == fused::Q8_0::kValues &&
              element_type(DType::Q8_0).block_bytes == fused::Q8_0::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), two rows per pass, the fastest on AVX2 over a
// stories15M-sized model's matrices.
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::Q8_0>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
}

// The integer dot product's format (quantized_int_dot_rows.hpp): 34-byte blocks, an f16 scale then 32
// int8 values.
struct IntFormat {
  static constexpr std::size_t kBytes = 34;
  static constexpr bool kPrefetch = true;  // see quantized_int_dot_rows.hpp, rows_dot
  static constexpr bool kOffsetAfter = false;
  GLASSBOX_INT_INLINE static int32_t exact(int32_t isum, const QuantizedActivations&, std::size_t) {
    return isum;
  }
  // In WebAssembly the products take x split into even and odd values, and their totals are 256 times the
  // blocks' sums (int_lanes::dot_signed_pairs).
  static const int_lanes::XInt* activations(const int8_t* q, std::size_t n) {
    return int_lanes::activation_pairs(q, n);
  }
  GLASSBOX_INT_INLINE static void exact4(int32_t* isum) { int_lanes::pairs_exact4(isum); }
  GLASSBOX_INT_INLINE static int_lanes::Sums sums(const std::byte* block, const int_lanes::XInt* x) {
    const int_lanes::Sums s = int_lanes::dot_signed_pairs(int_lanes::load32(block + 2), x);
#if defined(__wasm_simd128__)
    // A store of each block's sums, which V8 keeps in order with the loads: without it V8 loads the weights
    // and activations of all four blocks of a group first (24 vectors, more than x86's 16 registers) and
    // spills half of them (in V8 2.5 -> 2.1 ns a block, a row of 24 blocks in cache).
    [[maybe_unused]] volatile v128_t in_order = s;
#endif
    return s;
  }
};

void int_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  int_rows::rows_dot<IntFormat>(out, w, row_bytes, cols, x, row_begin, row_end);
}

// One row as the integer kernels see it (quantized_int_rows.hpp): 34-byte blocks, an f16 scale then 32 int8.
void decode_integer_row(const std::byte* row, std::size_t cols, int8_t* w, int16_t*, float* ws, float*) {
  for (std::size_t b = 0; b < cols / 32; ++b, row += 34, w += 32) {
    ws[b] = half_at(row);
    std::memcpy(w, row + 2, 32);
  }
}

}  // namespace

constinit const BlockKernels blocks::kQ8_0 = {
    .decode = dequantize_row_q8_0,
    .encode = quantize_row_q8_0,
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::Q8_0>,
#endif
};

}  // namespace glassbox::kernels
