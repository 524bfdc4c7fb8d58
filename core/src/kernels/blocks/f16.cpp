// F16: its row decoder and encoder, its kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/element_types.hpp"
#include "kernels/quantized_dot_rows.hpp"

namespace glassbox::kernels {
namespace {

void decode_f16_row(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = half_to_float(u16_at(row + 2 * i));
}

void encode_f16_row(const float* x, std::byte* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const uint16_t h = float_to_half(x[i]);
    std::memcpy(out + 2 * i, &h, 2);
  }
}

static_assert(element_type(DType::F16).block_bytes == 2);

// The fused decode-and-dot product (quantized_dot.hpp), one row per pass: two were up to 2x slower on a
// 32000-row matrix (AVX2).
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Elements<fused::F16>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
}

}  // namespace

constinit const BlockKernels blocks::kF16 = {
    .decode = decode_f16_row, .encode = encode_f16_row, .fused_matvec = fused_matvec};

}  // namespace glassbox::kernels
