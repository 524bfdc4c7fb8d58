// Dispatch from a DType to its fused kernel: a lookup in the element table (block_kernels.hpp), once per
// call. Each type's kernel, with the number of rows per pass that measured fastest for it, is in its file
// blocks/<type>.cpp.
#include "kernels/quantized_dot.hpp"

#include "kernels/element_types.hpp"

namespace glassbox::kernels {

bool has_fused_dot(DType type) {
  const BlockKernels* kernels = block_kernels(type);
  return kernels != nullptr && kernels->fused_matvec != nullptr;
}

void fused_matvec(float* out, DType type, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                  const float* x, std::size_t row_begin, std::size_t row_end) {
  if (!has_fused_dot(type)) return;  // the caller decodes
  block_kernels(type)->fused_matvec(out, w, row_bytes, cols, x, row_begin, row_end);
}

float fused_dot(DType type, const std::byte* row, const float* x, std::size_t n) {
  float out = 0.0f;
  fused_matvec(&out, type, row, 0, n, x, 0, 1);
  return out;
}

}  // namespace glassbox::kernels
