#include "kernels/quantized_int_rows.hpp"

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

bool int_dot_has_offsets(DType type) {
  return type == DType::Q4_K;
}

bool int_dot_has_group_scales(DType type) {
  return type == DType::Q6_K;
}

void decode_integer_row(DType type, const std::byte* row, std::size_t cols, int8_t* w, int16_t* group_scales,
                        float* ws, float* wm) {
  switch (type) {
    case DType::Q8_0:  // 34 bytes: f16 scale, 32 int8
      for (std::size_t b = 0; b < cols / 32; ++b, row += 34, w += 32) {
        ws[b] = f16_at(row);
        std::memcpy(w, row + 2, 32);
      }
      return;
    case DType::Q4_0:  // 18 bytes: f16 scale, 16 bytes of nibbles (values 0..15 low, 16..31 high), q - 8
      for (std::size_t b = 0; b < cols / 32; ++b, row += 18, w += 32) {
        ws[b] = f16_at(row);
        const auto* packed = reinterpret_cast<const uint8_t*>(row + 2);
        for (int j = 0; j < 16; ++j) {
          w[j] = static_cast<int8_t>((packed[j] & 0x0F) - 8);
          w[j + 16] = static_cast<int8_t>((packed[j] >> 4) - 8);
        }
      }
      return;
    case DType::
        Q4_K:  // 144 bytes per 256 values: f16 d, f16 dmin, 12 bytes of 6-bit scales and mins, nibbles
      for (std::size_t s = 0; s < cols / 256; ++s, row += 144) {
        const float d = f16_at(row), dmin = f16_at(row + 2);
        const auto* packed = reinterpret_cast<const uint8_t*>(row + 4);
        for (int j = 0; j < 8; ++j, w += 32) {  // sub-block j: the low (j even) or high nibbles of 32 bytes
          uint8_t scale, min;
          q4_k_scale_min(j, packed, &scale, &min);
          ws[8 * s + j] = d * scale;
          wm[8 * s + j] = dmin * min;
          const auto* q = reinterpret_cast<const uint8_t*>(row + 16 + 32 * (j / 2));
          for (int l = 0; l < 32; ++l)
            w[l] = static_cast<int8_t>(j % 2 == 0 ? q[l] & 0x0F : q[l] >> 4);
        }
      }
      return;
    case DType::Q6_K:  // 210 bytes per 256 values: ql[128], qh[64], int8 scales[16], f16 d; w = q - 32
      for (std::size_t s = 0; s < cols / 256; ++s, row += 210) {
        const float d = f16_at(row + 208);
        for (int b = 0; b < 8; ++b, w += 32) {  // half h, sub-block k of the half
          const int h = b / 4, k = b % 4;
          const auto* ql = reinterpret_cast<const uint8_t*>(row + 64 * h + 32 * (k % 2));
          const auto* qh = reinterpret_cast<const uint8_t*>(row + 128 + 32 * h);
          const auto* scales = reinterpret_cast<const int8_t*>(row + 192 + 8 * h + 2 * k);
          ws[8 * s + b] = d;
          group_scales[16 * s + 2 * b] = scales[0];
          group_scales[16 * s + 2 * b + 1] = scales[1];
          for (int l = 0; l < 32; ++l) {
            const int low = k < 2 ? ql[l] & 0x0F : ql[l] >> 4;
            w[l] = static_cast<int8_t>((low | (((qh[l] >> (2 * k)) & 3) << 4)) - 32);
          }
        }
      }
      return;
    default:
      return;  // no integer kernel
  }
}

}  // namespace glassbox::kernels
