#include "model/dtype.hpp"

#include "kernels/element_types.hpp"

namespace glassbox {

int64_t tensor_bytes(DType type, int64_t rows, int64_t cols) {
  const ElementType& e = element_type(type);
  if (cols % e.block_values != 0) return -1;
  return rows * (cols / e.block_values) * e.block_bytes;
}

const char* to_string(DType type) {
  return element_type(type).name;
}

}  // namespace glassbox
