// The conversions the decoders share (f16, bf16), and the lookup of a type's decoder and encoder. Each block type's decoder and encoder are in its file, blocks/<type>.cpp.
#include "kernels/quantized.hpp"

#include <cstring>

#include "kernels/element_types.hpp"

namespace glassbox::kernels {

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1F;
  uint32_t mantissa = h & 0x3FF;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // inf / nan
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;  // +-0
  } else {        // subnormal: normalize it
    int shift = 0;
    while ((mantissa & 0x400) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | (static_cast<uint32_t>(113 - shift) << 23) | ((mantissa & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t abs = bits & 0x7FFFFFFF;
  if (abs > 0x7F800000) return sign | 0x7E00;   // nan
  if (abs >= 0x477FF000) return sign | 0x7C00;  // rounds to inf
  if (abs < 0x38800000) {                       // half subnormal or zero
    if (abs < 0x33000000) return sign;          // below half the smallest subnormal
    const uint32_t mantissa = (abs & 0x7FFFFF) | 0x800000;
    const int shift = 126 - static_cast<int>(abs >> 23);  // 14 .. 24
    const uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    const uint32_t rounded = half + (rest > halfway || (rest == halfway && (half & 1)));
    return sign | static_cast<uint16_t>(rounded);
  }
  const uint32_t rebased = abs - 0x38000000;  // exponent 127 -> 15
  const uint32_t half = rebased >> 13;
  const uint32_t rest = rebased & 0x1FFF;
  const uint32_t rounded = half + (rest > 0x1000 || (rest == 0x1000 && (half & 1)));
  return sign | static_cast<uint16_t>(rounded);
}

float bfloat16_to_float(uint16_t value) {
  const uint32_t bits = static_cast<uint32_t>(value) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

void dequantize_row(DType type, const std::byte* row, float* out, std::size_t n) {
  block_kernels(type)->decode(row, out, n);
}

void encode_row(DType type, const float* x, std::byte* out, std::size_t n) {
  block_kernels(type)->encode(x, out, n);
}

}  // namespace glassbox::kernels
