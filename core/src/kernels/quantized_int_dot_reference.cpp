// The integer dot products of quantized_int_dot.hpp written the plainest way: the row decoded to its integers
// (quantized_int_rows.hpp), one product at a time, then the header's float order. The kernels
// (quantized_int_dot_rows.hpp, quantized_int_matmul*.cpp) must give exactly these bits.
#include <cstdint>
#include <vector>

#include "kernels/quantized_int_dot.hpp"
#include "kernels/quantized_int_rows.hpp"

namespace glassbox::kernels {

float int_dot_reference(DType type, const std::byte* row, const QuantizedActivations& x, std::size_t cols) {
  if (!has_int_dot(type)) return 0.0f;
  std::vector<int8_t> w(cols);
  std::vector<int16_t> group_scales(cols / 16, 1);
  std::vector<float> ws(cols / 32), wm(cols / 32);
  decode_integer_row(type, row, cols, w.data(), group_scales.data(), ws.data(), wm.data());
  const bool offsets = int_dot_has_offsets(type);
  float p[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (std::size_t b = 0; b < cols / 32; ++b) {
    int32_t isum = 0;
    for (std::size_t g = 2 * b; g < 2 * b + 2; ++g) {
      int32_t group = 0;
      for (std::size_t j = 16 * g; j < 16 * g + 16; ++j)
        group += static_cast<int32_t>(w[j]) * static_cast<int32_t>(x.q[j]);
      isum += group_scales[g] * group;
    }
    float term = (ws[b] * x.d[b]) * static_cast<float>(isum);
    if (offsets) term = term - (wm[b] * x.d[b]) * static_cast<float>(x.sums32[b]);
    p[b % 4] += term;
  }
  return (p[0] + p[1]) + (p[2] + p[3]);
}

}  // namespace glassbox::kernels
