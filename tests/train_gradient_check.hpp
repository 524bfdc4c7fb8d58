// Finite-difference gradient checks for the training tests: the derivative of a scalar loss by each element
// of a parameter, by central differences in double, and how far an analytic gradient is from it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace glassbox::test {

// Central differences: (L(p + h) - L(p - h)) / 2h. Their truncation error is O(h^2 L''') and their rounding
// error O(1e-16 |L| / h); with h = 1e-5 both are near 1e-10 for the small, smooth losses of these tests.
constexpr double kFiniteDifferenceStep = 1e-5;

// |analytic - numeric| / max(|analytic| + |numeric|, floor), largest over the elements: relative where the
// derivative is large, absolute (scaled by 1/floor) where both are near 0, which central differences cannot
// resolve relatively.
constexpr double kRelativeErrorFloor = 1e-3;

template <class Loss>
std::vector<double> numeric_gradient(std::vector<double>& parameter, const Loss& loss,
                                     std::size_t max_elements = 1 << 30) {
  std::vector<double> gradient(parameter.size(), 0.0);
  const std::size_t count = std::min(parameter.size(), max_elements);
  for (std::size_t i = 0; i < count; ++i) {
    const double saved = parameter[i];
    parameter[i] = saved + kFiniteDifferenceStep;
    const double up = loss();
    parameter[i] = saved - kFiniteDifferenceStep;
    const double down = loss();
    parameter[i] = saved;
    gradient[i] = (up - down) / (2 * kFiniteDifferenceStep);
  }
  return gradient;
}

inline double max_relative_error(const std::vector<double>& analytic, const std::vector<double>& numeric,
                                 std::size_t max_elements = 1 << 30) {
  double worst = 0;
  const std::size_t count = std::min({analytic.size(), numeric.size(), max_elements});
  for (std::size_t i = 0; i < count; ++i) {
    const double scale = std::max(std::abs(analytic[i]) + std::abs(numeric[i]), kRelativeErrorFloor);
    worst = std::max(worst, std::abs(analytic[i] - numeric[i]) / scale);
  }
  return worst;
}

inline std::vector<double> random_values(std::mt19937& rng, std::size_t n, double low = -1, double high = 1) {
  std::uniform_real_distribution<double> uniform(low, high);
  std::vector<double> values(n);
  for (double& v : values)
    v = uniform(rng);
  return values;
}

// sum_i a[i] b[i]: a random linear read-out of an op's output, which makes it a scalar loss whose derivative
// by the output is the read-out's weights (the dy fed to the backward pass).
inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    sum += a[i] * b[i];
  return sum;
}

}  // namespace glassbox::test
