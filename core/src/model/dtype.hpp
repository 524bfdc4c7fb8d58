// Storage sizes of tensors, from the element table (kernels/element_types.hpp): block-quantized types pack a
// fixed number of values (the block) into a fixed number of bytes, and a row's length must be a multiple of
// the block.
#pragma once

#include <cstdint>

#include "glassbox/tensor.hpp"

namespace glassbox {

// Bytes of a rows x cols tensor; -1 if cols is not a whole number of blocks.
int64_t tensor_bytes(DType type, int64_t rows, int64_t cols);

}  // namespace glassbox
