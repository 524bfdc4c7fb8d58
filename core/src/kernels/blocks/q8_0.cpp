// Q8_0's kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/element_types.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_dot_rows.hpp"
#include "kernels/quantized_int_dot_rows.hpp"
#include "kernels/quantized_int_matmul_avx2.hpp"

namespace glassbox::kernels::blocks {
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
  GLASSBOX_INT_INLINE static int_lanes::Sums sums(const std::byte* block, const int8_t* x) {
    return int_lanes::dot_signed(int_lanes::load32(block + 2), x);
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

constinit const BlockKernels kQ8_0 = {
    .fused_matvec = fused_matvec,
    .int_matvec = int_matvec,
    .decode_integer_row = decode_integer_row,
#if GLASSBOX_HAS_AVX2_MATMUL
    .int_matmul_avx2 = int_matmul_avx2<DType::Q8_0>,
#endif
};

}  // namespace glassbox::kernels::blocks
