#include "train/clipping.hpp"

#include <cmath>

namespace glassbox::train {

double global_norm(const std::vector<std::span<float>>& gradients) {
  double sum = 0;
  for (std::span<float> tensor : gradients)
    for (float g : tensor)
      sum += static_cast<double>(g) * g;
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
