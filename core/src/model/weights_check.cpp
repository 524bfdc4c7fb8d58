// Every weight decoded once, for `glassbox check`. Quantized blocks carry float16 scales, so a NaN or infinite
// scale shows up here as non-finite decoded values, the same as it would in the forward pass.
#include "glassbox/weights_check.hpp"

#include <cmath>
#include <vector>

#include "glassbox/error.hpp"
#include "kernels/quantized.hpp"
#include "model/dtype.hpp"

namespace glassbox {

WeightsCheck check_weights(const Model& model) {
  WeightsCheck result;
  std::vector<float> row;
  for_each_weight(model.weights, [&](const std::string& name, const Tensor& t) {
    TensorCheck c{.name = name, .type = t.type, .rows = t.rows, .cols = t.cols};
    row.resize(static_cast<std::size_t>(t.cols));
    const auto row_bytes = tensor_bytes(t.type, 1, t.cols);
    for (int64_t r = 0; r < t.rows; ++r) {
      kernels::dequantize_row(t.type, t.data + r * row_bytes, row.data(), row.size());
      for (int64_t k = 0; k < t.cols; ++k) {
        const float v = row[static_cast<std::size_t>(k)];
        if (std::isfinite(v)) {
          c.max_abs = std::max(c.max_abs, std::fabs(v));
          continue;
        }
        if (c.first_bad < 0) c.first_bad = r * t.cols + k;
        ++(std::isnan(v) ? c.nan : c.infinite);
      }
    }
    if (!c.finite()) ++result.non_finite_tensors;
    result.tensors.push_back(std::move(c));
  });
  return result;
}

std::string describe(const TensorCheck& c) {
  std::string text = cat(c.name, " (", to_string(c.type), ", ", c.rows, " x ", c.cols, "): ");
  if (c.finite()) return text + cat("finite, largest magnitude ", c.max_abs);
  return text + cat(c.nan, " NaN, ", c.infinite, " infinite; the first at row ", c.first_bad / c.cols,
                    ", column ", c.first_bad % c.cols);
}

}  // namespace glassbox
