// Q2_K's kernels and their entry points (block_kernels.hpp).
#include <cstddef>
#include <cstdint>

#include "kernels/element_types.hpp"
#include "kernels/quantized_dot_kquants.hpp"

namespace glassbox::kernels::blocks {
namespace {

static_assert(element_type(DType::Q2_K).block_values == fused::Q2_K::kValues &&
              element_type(DType::Q2_K).block_bytes == fused::Q2_K::kBytes);

// The fused decode-and-dot product (quantized_dot.hpp), one row per pass: on a 768 x 2048 matrix two were
// 7-18% slower (AVX2, AVX-512).
void fused_matvec(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                  std::size_t row_begin, std::size_t row_end) {
  fused::matvec_rows<fused::Blocks<fused::Q2_K>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
}

}  // namespace

constinit const BlockKernels kQ2_K = {.fused_matvec = fused_matvec};

}  // namespace glassbox::kernels::blocks
