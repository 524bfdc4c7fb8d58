// The integer dot product kernels (contract and float order: quantized_int_dot.hpp): a lookup in the element
// table (block_kernels.hpp), once per call. The loops over rows are in quantized_int_dot_rows.hpp, each
// type's format and entry point in its file blocks/<type>.cpp.
#include "kernels/quantized_int_dot.hpp"

#include "kernels/element_types.hpp"

namespace glassbox::kernels {

bool has_int_dot(DType type) {
  const BlockKernels* kernels = block_kernels(type);
  return kernels != nullptr && kernels->int_matvec != nullptr;
}

void int_matvec(float* out, DType type, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  if (!has_int_dot(type)) return;
  block_kernels(type)->int_matvec(out, w, row_bytes, cols, x, row_begin, row_end);
}

}  // namespace glassbox::kernels
