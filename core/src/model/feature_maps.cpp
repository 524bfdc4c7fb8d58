#include "model/feature_maps.hpp"

#include <algorithm>
#include <cmath>

#include "glassbox/sampler.hpp"

namespace glassbox {
namespace {

constexpr double kPi = 3.14159265358979323846;

// A standard normal draw (Box-Muller on two of the sampler's uniform draws; 1 - u keeps the log finite).
double gaussian(Rng& rng) {
  const double u1 = 1.0 - static_cast<double>(rng.next_float());
  const double u2 = static_cast<double>(rng.next_float());
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

}  // namespace

void elu_plus_one(float* out, const float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = x[i] > 0.0f ? x[i] + 1.0f : std::exp(x[i]);
}

std::vector<float> performer_projection(int features, int head_dim, uint64_t seed) {
  const auto m = static_cast<std::size_t>(features), d = static_cast<std::size_t>(head_dim);
  std::vector<float> projection(m * d);
  Rng rng(seed);
  std::vector<double> block(d * d);
  for (std::size_t first = 0; first < m; first += d) {
    // d Gaussian rows made orthonormal (Gram-Schmidt, twice for accuracy), then each given the length of a
    // fresh Gaussian vector (the chi distribution an i.i.d. Gaussian row's length would have).
    for (double& x : block)
      x = gaussian(rng);
    for (std::size_t r = 0; r < d; ++r) {
      double* row = block.data() + r * d;
      for (int pass = 0; pass < 2; ++pass)
        for (std::size_t p = 0; p < r; ++p) {
          const double* prev = block.data() + p * d;
          double along = 0;
          for (std::size_t i = 0; i < d; ++i)
            along += row[i] * prev[i];
          for (std::size_t i = 0; i < d; ++i)
            row[i] -= along * prev[i];
        }
      double norm = 0;
      for (std::size_t i = 0; i < d; ++i)
        norm += row[i] * row[i];
      norm = std::sqrt(norm);
      for (std::size_t i = 0; i < d; ++i)
        row[i] /= norm;
    }
    for (std::size_t r = 0; r < d && first + r < m; ++r) {
      double length = 0;
      for (std::size_t i = 0; i < d; ++i) {
        const double g = gaussian(rng);
        length += g * g;
      }
      length = std::sqrt(length);
      for (std::size_t i = 0; i < d; ++i)
        projection[(first + r) * d + i] = static_cast<float>(block[r * d + i] * length);
    }
  }
  return projection;
}

float performer_features(float* out, const float* x, const float* projection, std::size_t features,
                         std::size_t head_dim, bool query) {
  const double scale = 1.0 / std::sqrt(std::sqrt(static_cast<double>(head_dim)));  // x' = x / d^(1/4)
  double half_norm2 = 0;
  for (std::size_t i = 0; i < head_dim; ++i)
    half_norm2 += 0.5 * (x[i] * scale) * (x[i] * scale);
  // The exponents first (into out), then their largest, then the exponentials.
  double largest = -HUGE_VAL;
  for (std::size_t f = 0; f < features; ++f) {
    double u = 0;
    for (std::size_t i = 0; i < head_dim; ++i)
      u += static_cast<double>(projection[f * head_dim + i]) * (x[i] * scale);
    const double exponent = query ? u : u - half_norm2;
    out[f] = static_cast<float>(exponent);
    largest = std::max(largest, exponent);
  }
  // A query's |x'|^2 / 2 is common to all its features: it cancels with the stabilizer, so it is left out.
  const double norm = 1.0 / std::sqrt(static_cast<double>(features));
  for (std::size_t f = 0; f < features; ++f)
    out[f] = static_cast<float>(std::exp(static_cast<double>(out[f]) - largest) * norm);
  return static_cast<float>(largest);
}

}  // namespace glassbox
