// The integer row decoders' dispatch: a lookup in the element table (block_kernels.hpp). Each type's
// decoder is in its file blocks/<type>.cpp.
#include "kernels/quantized_int_rows.hpp"

#include "kernels/element_types.hpp"

namespace glassbox::kernels {

bool int_dot_has_offsets(DType type) {
  const BlockKernels* kernels = block_kernels(type);
  return kernels != nullptr && kernels->int_offsets;
}

bool int_dot_has_group_scales(DType type) {
  const BlockKernels* kernels = block_kernels(type);
  return kernels != nullptr && kernels->int_group_scales;
}

IntegerRowDecoder integer_row_decoder(DType type) {
  const BlockKernels* kernels = block_kernels(type);
  return kernels != nullptr ? kernels->decode_integer_row : nullptr;
}

void decode_integer_row(DType type, const std::byte* row, std::size_t cols, int8_t* w, int16_t* group_scales,
                        float* ws, float* wm) {
  if (IntegerRowDecoder decode = integer_row_decoder(type)) decode(row, cols, w, group_scales, ws, wm);
}

}  // namespace glassbox::kernels
