#include "train/clipping.hpp"

#include <cmath>

namespace glassbox::train {

double sum_of_squares(std::span<const float> values) {
  constexpr std::size_t kSums = 8;
  double sums[kSums] = {};
  const std::size_t n = values.size();
  std::size_t i = 0;
  for (; i + kSums <= n; i += kSums)
    for (std::size_t j = 0; j < kSums; ++j)
      sums[j] += static_cast<double>(values[i + j]) * values[i + j];
  for (std::size_t j = 0; i + j < n; ++j)
    sums[j] += static_cast<double>(values[i + j]) * values[i + j];
  double total = 0;
  for (double s : sums)
    total += s;
  return total;
}

double global_norm(const std::vector<std::span<float>>& gradients) {
  double sum = 0;
  for (std::span<float> tensor : gradients)
    sum += sum_of_squares(tensor);
  return std::sqrt(sum);
}

double clip_global_norm(const std::vector<std::span<float>>& gradients, double max_norm) {
  const double norm = global_norm(gradients);
  if (max_norm <= 0 || !std::isfinite(norm) || norm <= max_norm) return norm;
  const double scale = max_norm / norm;
  for (std::span<float> tensor : gradients)
    for (float& g : tensor)
      g = static_cast<float>(g * scale);
  return norm;
}

}  // namespace glassbox::train
