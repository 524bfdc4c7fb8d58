#include "kernels/quantized_int_rows.hpp"

#include <cstdint>
#include <cstring>

#include "kernels/quantized.hpp"

namespace glassbox::kernels {
namespace {

float f16_at(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return half_to_float(v);
}

}  // namespace

bool int_dot_has_offsets(DType) {
  return false;
}

void decode_integer_row(DType type, const std::byte* row, std::size_t cols, float* w, float* ws, float*) {
  switch (type) {
    case DType::Q8_0:  // 34 bytes: f16 scale, 32 int8
      for (std::size_t b = 0; b < cols / 32; ++b, row += 34, w += 32) {
        ws[b] = f16_at(row);
        const auto* q = reinterpret_cast<const int8_t*>(row + 2);
        for (int j = 0; j < 32; ++j)
          w[j] = q[j];
      }
      return;
    case DType::Q4_0:  // 18 bytes: f16 scale, 16 bytes of nibbles (values 0..15 low, 16..31 high), q - 8
      for (std::size_t b = 0; b < cols / 32; ++b, row += 18, w += 32) {
        ws[b] = f16_at(row);
        const auto* packed = reinterpret_cast<const uint8_t*>(row + 2);
        for (int j = 0; j < 16; ++j) {
          w[j] = static_cast<float>((packed[j] & 0x0F) - 8);
          w[j + 16] = static_cast<float>((packed[j] >> 4) - 8);
        }
      }
      return;
    default:
      return;  // no integer kernel
  }
}

}  // namespace glassbox::kernels
