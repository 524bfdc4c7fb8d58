#include "model/dtype.hpp"

namespace glassbox {

DTypeLayout layout_of(DType type) {
  switch (type) {
    case DType::F32:
      return {1, 4};
    case DType::F16:
      return {1, 2};
    case DType::BF16:
      return {1, 2};
    case DType::Q8_0:
      return {32, 34};  // f16 scale + 32 int8
    case DType::Q4_0:
      return {32, 18};  // f16 scale + 32 4-bit values
    case DType::Q4_K:
      return {256, 144};  // super-block: 2 f16 + 12 bytes of 6-bit scales + 128 bytes of nibbles
    case DType::Q6_K:
      return {256, 210};  // 128 low nibbles + 64 high bits + 16 int8 scales + f16
  }
  return {1, 4};
}

int64_t tensor_bytes(DType type, int64_t rows, int64_t cols) {
  const DTypeLayout layout = layout_of(type);
  if (cols % layout.block_values != 0) return -1;
  return rows * (cols / layout.block_values) * layout.block_bytes;
}

const char* to_string(DType type) {
  switch (type) {
    case DType::F32:
      return "F32";
    case DType::F16:
      return "F16";
    case DType::BF16:
      return "BF16";
    case DType::Q8_0:
      return "Q8_0";
    case DType::Q4_0:
      return "Q4_0";
    case DType::Q4_K:
      return "Q4_K";
    case DType::Q6_K:
      return "Q6_K";
  }
  return "?";
}

}  // namespace glassbox
