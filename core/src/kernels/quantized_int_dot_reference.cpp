// The integer dot products of quantized_int_dot.hpp written the plainest way: each block decoded to its
// integers with the element decoders' own bit layout, one product at a time, then the header's float order.
// The kernels (quantized_int_dot.cpp) must give exactly these bits.
#include <cstdint>
#include <cstring>

#include "kernels/quantized.hpp"
#include "kernels/quantized_int_dot.hpp"

namespace glassbox::kernels {
namespace {

uint16_t u16_at(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

int32_t isum32(const int8_t* w, const int8_t* x) {
  int32_t s = 0;
  for (int j = 0; j < 32; ++j)
    s += static_cast<int32_t>(w[j]) * static_cast<int32_t>(x[j]);
  return s;
}

// The canonical float order: term b into partial b % 4, finished pairwise.
struct Partials {
  float p[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  void add(std::size_t b, float ws, float dx, int32_t isum) {
    p[b % 4] += (ws * dx) * static_cast<float>(isum);
  }
  void add(std::size_t b, float ws, float wm, float dx, int32_t isum, int32_t xsum) {
    const float t = (ws * dx) * static_cast<float>(isum) - (wm * dx) * static_cast<float>(xsum);
    p[b % 4] += t;
  }
  float total() const { return (p[0] + p[1]) + (p[2] + p[3]); }
};

}  // namespace

float int_dot_reference(DType type, const std::byte* row, const QuantizedActivations& x, std::size_t cols) {
  Partials partials;
  int8_t w[32];
  switch (type) {
    case DType::Q8_0:
      for (std::size_t b = 0; b < cols / 32; ++b) {
        const std::byte* block = row + b * 34;
        std::memcpy(w, block + 2, 32);
        partials.add(b, half_to_float(u16_at(block)), x.d[b], isum32(w, x.q + b * 32));
      }
      break;
    case DType::Q4_0:
      for (std::size_t b = 0; b < cols / 32; ++b) {
        const std::byte* block = row + b * 18;
        const auto* packed = reinterpret_cast<const uint8_t*>(block + 2);
        for (int j = 0; j < 16; ++j) {
          w[j] = static_cast<int8_t>((packed[j] & 0x0F) - 8);
          w[j + 16] = static_cast<int8_t>((packed[j] >> 4) - 8);
        }
        partials.add(b, half_to_float(u16_at(block)), x.d[b], isum32(w, x.q + b * 32));
      }
      break;
    case DType::Q4_K:
      for (std::size_t b = 0; b < cols / 32; ++b) {  // super-block b / 8, sub-block j = b % 8
        const std::byte* block = row + (b / 8) * 144;
        const int j = static_cast<int>(b % 8);
        const auto* packed = reinterpret_cast<const uint8_t*>(block + 4);
        const auto* q = reinterpret_cast<const uint8_t*>(block + 16 + 32 * (j / 2));
        for (int l = 0; l < 32; ++l)
          w[l] = static_cast<int8_t>(j % 2 == 0 ? q[l] & 0x0F : q[l] >> 4);
        uint8_t scale, min;
        q4_k_scale_min(j, packed, &scale, &min);
        const float d = half_to_float(u16_at(block)), dmin = half_to_float(u16_at(block + 2));
        partials.add(b, d * scale, dmin * min, x.d[b], isum32(w, x.q + b * 32),
                     x.sums16[2 * b] + x.sums16[2 * b + 1]);
      }
      break;
    case DType::Q6_K:
      for (std::size_t b = 0; b < cols / 32; ++b) {  // half h of the super-block, sub-block k of the half
        const std::byte* block = row + (b / 8) * 210;
        const int h = static_cast<int>(b % 8) / 4, k = static_cast<int>(b % 4);
        const auto* ql = reinterpret_cast<const uint8_t*>(block + 64 * h + 32 * (k % 2));
        const auto* qh = reinterpret_cast<const uint8_t*>(block + 128 + 32 * h);
        const auto* scales = reinterpret_cast<const int8_t*>(block + 192 + 8 * h + 2 * k);
        int32_t isum = 0;
        for (int l = 0; l < 32; ++l) {
          const int low = k < 2 ? ql[l] & 0x0F : ql[l] >> 4;
          const int q = (low | (((qh[l] >> (2 * k)) & 3) << 4)) - 32;
          isum += scales[l / 16] * q * x.q[b * 32 + l];
        }
        partials.add(b, half_to_float(u16_at(block + 208)), x.d[b], isum);
      }
      break;
    default:
      return 0.0f;  // has_int_dot(type) is false
  }
  return partials.total();
}

}  // namespace glassbox::kernels
