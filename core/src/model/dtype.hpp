// Storage sizes of the element encodings. Block-quantized types pack a fixed number of values (the block)
// into a fixed number of bytes; a row's length must be a multiple of the block.
#pragma once

#include <cstdint>

#include "glassbox/tensor.hpp"

namespace glassbox {

struct DTypeLayout {
  int64_t block_values;  // values per block (1 for plain types)
  int64_t block_bytes;   // bytes per block
};

DTypeLayout layout_of(DType type);

// Bytes of a rows x cols tensor; -1 if cols is not a whole number of blocks.
int64_t tensor_bytes(DType type, int64_t rows, int64_t cols);

}  // namespace glassbox
