#include "kernels/quantized.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/element_types.hpp"

namespace glassbox::kernels {
namespace {

// Block sizes from the element table; each static_assert ties the table's size to the layout the loops
// below walk through.
constexpr ElementType kQ8_0 = element_type(DType::Q8_0);
constexpr ElementType kQ4_0 = element_type(DType::Q4_0);
constexpr ElementType kQ4_K = element_type(DType::Q4_K);
constexpr ElementType kQ6_K = element_type(DType::Q6_K);
constexpr ElementType kQ4_1 = element_type(DType::Q4_1);
constexpr ElementType kQ5_0 = element_type(DType::Q5_0);
constexpr ElementType kQ5_1 = element_type(DType::Q5_1);
constexpr ElementType kQ2_K = element_type(DType::Q2_K);
constexpr ElementType kQ3_K = element_type(DType::Q3_K);
constexpr ElementType kQ5_K = element_type(DType::Q5_K);
constexpr ElementType kIQ4_NL = element_type(DType::IQ4_NL);
constexpr ElementType kIQ4_XS = element_type(DType::IQ4_XS);
static_assert(kQ8_0.block_values == 32 && kQ8_0.block_bytes == 2 + 32);
static_assert(kQ4_0.block_values == 32 && kQ4_0.block_bytes == 2 + 16);
static_assert(kQ4_K.block_values == 256 && kQ4_K.block_bytes == 2 + 2 + 12 + 128);
static_assert(kQ6_K.block_values == 256 && kQ6_K.block_bytes == 128 + 64 + 16 + 2);
static_assert(kQ4_1.block_values == 32 && kQ4_1.block_bytes == 2 + 2 + 16);
static_assert(kQ5_0.block_values == 32 && kQ5_0.block_bytes == 2 + 4 + 16);
static_assert(kQ5_1.block_values == 32 && kQ5_1.block_bytes == 2 + 2 + 4 + 16);
static_assert(kQ2_K.block_values == 256 && kQ2_K.block_bytes == 16 + 64 + 2 + 2);
static_assert(kQ3_K.block_values == 256 && kQ3_K.block_bytes == 32 + 64 + 12 + 2);
static_assert(kQ5_K.block_values == 256 && kQ5_K.block_bytes == 2 + 2 + 12 + 32 + 128);
static_assert(kIQ4_NL.block_values == 32 && kIQ4_NL.block_bytes == 2 + 16);
static_assert(kIQ4_XS.block_values == 256 && kIQ4_XS.block_bytes == 2 + 2 + 4 + 128);

uint16_t load_u16(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

uint32_t load_u32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The 32 values of a Q4_1 / Q5_0 / Q5_1 block as integers: the nibbles (value j low in byte j, value j + 16
// high), plus 16 where the value's bit of `fifth` is set (bit j for value j; zero for Q4_1).
void block_of_32_integers(const std::byte* nibbles, uint32_t fifth, int* q) {
  const auto* qs = reinterpret_cast<const uint8_t*>(nibbles);
  for (int j = 0; j < 16; ++j) {
    q[j] = (qs[j] & 0x0F) | static_cast<int>(((fifth >> j) & 1) << 4);
    q[j + 16] = (qs[j] >> 4) | static_cast<int>(((fifth >> (j + 16)) & 1) << 4);
  }
}

}  // namespace

void dequantize_row_q8_0(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ8_0.block_values; ++b, row += kQ8_0.block_bytes) {
    const float d = half_to_float(load_u16(row));
    const auto* q = reinterpret_cast<const int8_t*>(row + 2);
    for (int j = 0; j < 32; ++j)
      *out++ = d * static_cast<float>(q[j]);
  }
}

void dequantize_row_q4_0(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ4_0.block_values; ++b, row += kQ4_0.block_bytes) {
    const float d = half_to_float(load_u16(row));
    const auto* q = reinterpret_cast<const uint8_t*>(row + 2);
    for (int j = 0; j < 16; ++j) {
      out[j] = d * static_cast<float>((q[j] & 0x0F) - 8);
      out[j + 16] = d * static_cast<float>((q[j] >> 4) - 8);
    }
    out += 32;
  }
}

void dequantize_row_q4_k(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ4_K.block_values; ++b, row += kQ4_K.block_bytes) {
    const float d = half_to_float(load_u16(row));
    const float dmin = half_to_float(load_u16(row + 2));
    const auto* packed = reinterpret_cast<const uint8_t*>(row + 4);
    const auto* q = reinterpret_cast<const uint8_t*>(row + 16);
    for (int j = 0; j < 8;
         j += 2, q += 32) {  // 64 values per pass: low nibbles then high nibbles of 32 bytes
      uint8_t scale, min;
      q4_k_scale_min(j, packed, &scale, &min);
      const float d1 = d * scale, m1 = dmin * min;
      q4_k_scale_min(j + 1, packed, &scale, &min);
      const float d2 = d * scale, m2 = dmin * min;
      for (int l = 0; l < 32; ++l)
        *out++ = d1 * static_cast<float>(q[l] & 0x0F) - m1;
      for (int l = 0; l < 32; ++l)
        *out++ = d2 * static_cast<float>(q[l] >> 4) - m2;
    }
  }
}

void dequantize_row_q6_k(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ6_K.block_values; ++b, row += kQ6_K.block_bytes) {
    const auto* ql = reinterpret_cast<const uint8_t*>(row);
    const auto* qh = reinterpret_cast<const uint8_t*>(row + 128);
    const auto* scales = reinterpret_cast<const int8_t*>(row + 192);
    const float d = half_to_float(load_u16(row + 208));
    for (int half = 0; half < 2; ++half, ql += 64, qh += 32, scales += 8, out += 128) {
      for (int l = 0; l < 32; ++l) {
        const int group = l / 16;
        const int q1 = ((ql[l] & 0x0F) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int q2 = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        out[l] = d * static_cast<float>(scales[group]) * static_cast<float>(q1);
        out[l + 32] = d * static_cast<float>(scales[group + 2]) * static_cast<float>(q2);
        out[l + 64] = d * static_cast<float>(scales[group + 4]) * static_cast<float>(q3);
        out[l + 96] = d * static_cast<float>(scales[group + 6]) * static_cast<float>(q4);
      }
    }
  }
}

void dequantize_row_q4_1(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ4_1.block_values; ++b, row += kQ4_1.block_bytes, out += 32) {
    const float d = half_to_float(load_u16(row)), m = half_to_float(load_u16(row + 2));
    int q[32];
    block_of_32_integers(row + 4, 0, q);
    for (int j = 0; j < 32; ++j)
      out[j] = d * static_cast<float>(q[j]) + m;
  }
}

void dequantize_row_q5_0(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ5_0.block_values; ++b, row += kQ5_0.block_bytes, out += 32) {
    const float d = half_to_float(load_u16(row));
    int q[32];
    block_of_32_integers(row + 6, load_u32(row + 2), q);
    for (int j = 0; j < 32; ++j)
      out[j] = d * static_cast<float>(q[j] - 16);
  }
}

void dequantize_row_q5_1(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ5_1.block_values; ++b, row += kQ5_1.block_bytes, out += 32) {
    const float d = half_to_float(load_u16(row)), m = half_to_float(load_u16(row + 2));
    int q[32];
    block_of_32_integers(row + 8, load_u32(row + 4), q);
    for (int j = 0; j < 32; ++j)
      out[j] = d * static_cast<float>(q[j]) + m;
  }
}

// Q2_K and Q3_K share one arrangement of their 2-bit values: two halves of 128 values, each reading 32 bytes
// four times, shifting by 0, 2, 4, 6 bits; pass j of half h gives values 128 h + 32 j + l (l < 32) from bits
// 2j..2j+1 of byte 32 h + l. Each 16 values (l < 16, l >= 16) have their own scale: number 8 h + 2 j + l / 16.
void dequantize_row_q2_k(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ2_K.block_values; ++b, row += kQ2_K.block_bytes) {
    const auto* scales = reinterpret_cast<const uint8_t*>(row);  // low nibble scale, high nibble min
    const auto* qs = reinterpret_cast<const uint8_t*>(row + 16);
    const float d = half_to_float(load_u16(row + 80)), dmin = half_to_float(load_u16(row + 82));
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < 4; ++j)
        for (int l = 0; l < 32; ++l) {
          const uint8_t sm = scales[8 * h + 2 * j + l / 16];
          const float dl = d * static_cast<float>(sm & 0x0F), ml = dmin * static_cast<float>(sm >> 4);
          *out++ = dl * static_cast<float>((qs[32 * h + l] >> (2 * j)) & 3) - ml;
        }
  }
}

// Q3_K: value 128 h + 32 j + l takes its two low bits as Q2_K does and its third bit from bit 4 h + j of
// byte l of the 32 mask bytes; a clear bit subtracts 4 (q in -4..3).
void dequantize_row_q3_k(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ3_K.block_values; ++b, row += kQ3_K.block_bytes) {
    const auto* mask = reinterpret_cast<const uint8_t*>(row);
    const auto* qs = reinterpret_cast<const uint8_t*>(row + 32);
    const auto* packed = reinterpret_cast<const uint8_t*>(row + 96);
    const float d = half_to_float(load_u16(row + 108));
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < 4; ++j)
        for (int l = 0; l < 32; ++l) {
          const float dl = d * static_cast<float>(q3_k_scale(8 * h + 2 * j + l / 16, packed));
          const int low = (qs[32 * h + l] >> (2 * j)) & 3;
          const int q = low - (((mask[l] >> (4 * h + j)) & 1) ? 0 : 4);
          *out++ = dl * static_cast<float>(q);
        }
  }
}

// Q5_K: Q4_K's scales and nibbles; value 64 c + l (l < 32, low nibble of byte 32 c + l) gains 16 from bit
// 2c of byte l of the 32 fifth-bit bytes, value 64 c + 32 + l (high nibble) from bit 2c + 1.
void dequantize_row_q5_k(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ5_K.block_values; ++b, row += kQ5_K.block_bytes) {
    const float d = half_to_float(load_u16(row));
    const float dmin = half_to_float(load_u16(row + 2));
    const auto* packed = reinterpret_cast<const uint8_t*>(row + 4);
    const auto* qh = reinterpret_cast<const uint8_t*>(row + 16);
    const auto* q = reinterpret_cast<const uint8_t*>(row + 48);
    for (int c = 0; c < 4; ++c, q += 32) {
      uint8_t scale, min;
      q4_k_scale_min(2 * c, packed, &scale, &min);
      const float d1 = d * scale, m1 = dmin * min;
      q4_k_scale_min(2 * c + 1, packed, &scale, &min);
      const float d2 = d * scale, m2 = dmin * min;
      for (int l = 0; l < 32; ++l)
        *out++ = d1 * static_cast<float>((q[l] & 0x0F) | (((qh[l] >> (2 * c)) & 1) << 4)) - m1;
      for (int l = 0; l < 32; ++l)
        *out++ = d2 * static_cast<float>((q[l] >> 4) | (((qh[l] >> (2 * c + 1)) & 1) << 4)) - m2;
    }
  }
}

namespace {
// 32 values from 16 bytes of IQ4_NL indices (value j low in byte j, value j + 16 high), each scale * the
// table value it indexes.
void iq4_block_of_32(const std::byte* indices, float scale, float* out) {
  const auto* qs = reinterpret_cast<const uint8_t*>(indices);
  for (int j = 0; j < 16; ++j) {
    out[j] = scale * static_cast<float>(kIq4NlValues[qs[j] & 0x0F]);
    out[j + 16] = scale * static_cast<float>(kIq4NlValues[qs[j] >> 4]);
  }
}
}  // namespace

void dequantize_row_iq4_nl(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kIQ4_NL.block_values; ++b, row += kIQ4_NL.block_bytes, out += 32)
    iq4_block_of_32(row + 2, half_to_float(load_u16(row)), out);
}

// IQ4_XS: sub-block j (0..7) of 32 values reads indices 16 j .. 16 j + 15 as an IQ4_NL block does, with the
// scale d * iq4_xs_scale(j).
void dequantize_row_iq4_xs(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kIQ4_XS.block_values; ++b, row += kIQ4_XS.block_bytes) {
    const float d = half_to_float(load_u16(row));
    const uint16_t high = load_u16(row + 2);
    const auto* low = reinterpret_cast<const uint8_t*>(row + 4);
    for (int j = 0; j < 8; ++j, out += 32)
      iq4_block_of_32(row + 8 + 16 * j, d * static_cast<float>(iq4_xs_scale(j, high, low)), out);
  }
}

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

void decode_f32_row(const std::byte* row, float* out, std::size_t n) {
  std::memcpy(out, row, n * sizeof(float));
}

void decode_f16_row(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = half_to_float(load_u16(row + 2 * i));
}

void decode_bf16_row(const std::byte* row, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = bfloat16_to_float(load_u16(row + 2 * i));
}

void dequantize_row(DType type, const std::byte* row, float* out, std::size_t n) {
  element_type(type).decode(row, out, n);
}

void encode_f32_row(const float* x, std::byte* out, std::size_t n) {
  std::memcpy(out, x, n * sizeof(float));
}

void encode_f16_row(const float* x, std::byte* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const uint16_t h = float_to_half(x[i]);
    std::memcpy(out + 2 * i, &h, 2);
  }
}

void quantize_row_q8_0(const float* x, std::byte* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ8_0.block_values;
       ++b, x += kQ8_0.block_values, out += kQ8_0.block_bytes) {
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j)
      amax = std::fmax(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float inverse = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t d16 = float_to_half(d);
    std::memcpy(out, &d16, 2);
    for (int j = 0; j < 32; ++j)
      out[2 + j] = static_cast<std::byte>(static_cast<int8_t>(std::lround(x[j] * inverse)));
  }
}

void quantize_row_q4_0(const float* x, std::byte* out, std::size_t n) {
  for (std::size_t b = 0; b < n / kQ4_0.block_values;
       ++b, x += kQ4_0.block_values, out += kQ4_0.block_bytes) {
    float amax = 0.0f, max = 0.0f;  // the value of largest magnitude, with its sign
    for (int j = 0; j < 32; ++j) {
      if (amax < std::fabs(x[j])) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    }
    const float d = max / -8.0f;
    const float inverse = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t d16 = float_to_half(d);
    std::memcpy(out, &d16, 2);
    for (int j = 0; j < 16; ++j) {
      const int lo = std::min(15, static_cast<int>(static_cast<int8_t>(x[j] * inverse + 8.5f)));
      const int hi = std::min(15, static_cast<int>(static_cast<int8_t>(x[j + 16] * inverse + 8.5f)));
      out[2 + j] = static_cast<std::byte>(lo | (hi << 4));
    }
  }
}

}  // namespace glassbox::kernels
