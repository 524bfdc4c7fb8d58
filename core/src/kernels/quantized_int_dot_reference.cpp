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
    default:
      return 0.0f;  // has_int_dot(type) is false
  }
  return partials.total();
}

}  // namespace glassbox::kernels
