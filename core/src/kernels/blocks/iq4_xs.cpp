// IQ4_XS's kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>

#include "kernels/element_types.hpp"
#include "kernels/quantized_dot_iquants.hpp"

namespace glassbox::kernels::blocks {
namespace {

static_assert(element_type(DType::IQ4_XS).block_values == fused::IQ4_XS::kValues &&
              element_type(DType::IQ4_XS).block_bytes == fused::IQ4_XS::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), one row per pass: on a 2048 x 2048 matrix two were
// 3% slower (AVX-512).
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::IQ4_XS>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
}

}  // namespace

constinit const BlockKernels kIQ4_XS = {.fused_matvec = fused_matvec};

}  // namespace glassbox::kernels::blocks
