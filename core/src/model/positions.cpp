#include "glassbox/positions.hpp"

#include <algorithm>
#include <cmath>

#include "glassbox/error.hpp"
#include "kernels/kernels.hpp"

namespace glassbox {

void sinusoidal_code(int position, std::span<float> out) {
  const auto dim = static_cast<double>(out.size());
  for (std::size_t i = 0; i < out.size(); i += 2) {
    const double angle = position / std::pow(10000.0, static_cast<double>(i) / dim);
    out[i] = static_cast<float>(std::sin(angle));
    if (i + 1 < out.size()) out[i + 1] = static_cast<float>(std::cos(angle));
  }
}

float alibi_slope(const ModelConfig& c, int head) {
  int below = 1;  // the largest power of two not above n_heads
  while (below * 2 <= c.n_heads)
    below *= 2;
  const float max_bias = c.alibi_max_bias;
  if (head < below) {
    const float base = std::pow(2.0f, -max_bias / static_cast<float>(below));
    return std::pow(base, static_cast<float>(head + 1));
  }
  const float base = std::pow(2.0f, -(max_bias / 2.0f) / static_cast<float>(below));
  return std::pow(base, static_cast<float>(2 * (head - below) + 1));
}

double rope_angle(const ModelConfig& c, int pair, int position, int layer) {
  const bool sliding = c.slides(layer);
  const float theta = sliding && c.rope_theta_sliding > 0.0f ? c.rope_theta_sliding : c.rope_theta;
  double freq = std::pow(static_cast<double>(theta), -2.0 * pair / c.rotary_dim());
  if (!sliding && !c.rope_freq_factors.empty()) freq /= c.rope_freq_factors[static_cast<std::size_t>(pair)];
  return static_cast<double>(position) * static_cast<double>(static_cast<float>(freq));
}

std::vector<float> llama3_rope_factors(const ModelConfig& c, const Llama3RopeScaling& s) {
  constexpr double kPi = 3.14159265358979323846;
  const int pairs = c.rotary_dim() / 2;
  const double long_wavelength = s.original_context / s.low_freq_factor;    // slower than this: scaled
  const double short_wavelength = s.original_context / s.high_freq_factor;  // faster than this: kept
  std::vector<float> factors(static_cast<std::size_t>(pairs));
  for (int i = 0; i < pairs; ++i) {
    const double wavelength = 2 * kPi * std::pow(static_cast<double>(c.rope_theta), 2.0 * i / c.rotary_dim());
    double divisor = 1;
    if (wavelength > long_wavelength) {
      divisor = s.factor;
    } else if (wavelength >= short_wavelength) {
      // In between, the frequency blends its scaled and unscaled values, by where the wavelength lies.
      const double smooth =
          (s.original_context / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
      divisor = 1 / ((1 - smooth) / s.factor + smooth);
    }
    factors[static_cast<std::size_t>(i)] = static_cast<float>(divisor);
  }
  return factors;
}

std::vector<float> yarn_rope_factors(const ModelConfig& c, const YarnRopeScaling& s) {
  constexpr double kPi = 3.14159265358979323846;
  const int rotary = c.rotary_dim(), pairs = rotary / 2;
  // The pair index (in value dimensions, 0..rotary) that turns `turns` times over the original context.
  const auto dimension_turning = [&](double turns) {
    return rotary * std::log(s.original_context / (turns * 2 * kPi)) /
           (2 * std::log(static_cast<double>(c.rope_theta)));
  };
  const double low = std::max(0.0, std::floor(dimension_turning(s.beta_fast)));
  const double high = std::min(static_cast<double>(rotary - 1), std::ceil(dimension_turning(s.beta_slow)));
  std::vector<float> factors(static_cast<std::size_t>(pairs));
  for (int i = 0; i < pairs; ++i) {
    // 1 for the fast pairs (kept), 0 for the slow ones (interpolated), a ramp between.
    const double kept = 1 - std::clamp((i - low) / std::max(0.001, high - low), 0.0, 1.0);
    factors[static_cast<std::size_t>(i)] = static_cast<float>(1 / ((1 - kept) / s.factor + kept));
  }
  return factors;
}

float yarn_rope_magnitude(const YarnRopeScaling& s) {
  return static_cast<float>(s.attn_factor * (s.factor > 1 ? 1 + 0.1 * std::log(s.factor) : 1.0));
}

Result<std::vector<float>> rope_dot_products(const ModelConfig& c, std::span<const float> q,
                                             std::span<const float> k, int positions, int layer) {
  if (c.position != PositionKind::RoPE)
    return error(ErrorCode::BadArgument, "RoPE: the model places positions by ", to_string(c.position),
                 ", not RoPE");
  const auto head_dim = static_cast<std::size_t>(c.head_dim);
  if (q.size() != head_dim || k.size() != head_dim)
    return error(ErrorCode::BadArgument, "RoPE: q and k need head_dim = ", head_dim, " values, found ",
                 q.size(), " and ", k.size());
  if (positions < 1 || positions > 4096)
    return error(ErrorCode::BadArgument, "RoPE: positions must be in 1..4096, found ", positions);
  const int half = c.rotary_dim() / 2;
  const auto n = static_cast<std::size_t>(positions);
  // Every position's rotated q and k, by the forward pass's own kernel.
  std::vector<float> rotated_q(n * head_dim), rotated_k(n * head_dim), cos_row(half), sin_row(half);
  for (int p = 0; p < positions; ++p) {
    for (int i = 0; i < half; ++i) {
      cos_row[i] = static_cast<float>(std::cos(rope_angle(c, i, p, layer))) * c.rope_magnitude;
      sin_row[i] = static_cast<float>(std::sin(rope_angle(c, i, p, layer))) * c.rope_magnitude;
    }
    float* qp = rotated_q.data() + static_cast<std::size_t>(p) * head_dim;
    float* kp = rotated_k.data() + static_cast<std::size_t>(p) * head_dim;
    std::copy(q.begin(), q.end(), qp);
    std::copy(k.begin(), k.end(), kp);
    kernels::rope(qp, cos_row.data(), sin_row.data(), static_cast<std::size_t>(c.rotary_dim()),
                  c.rope_pairing);
    kernels::rope(kp, cos_row.data(), sin_row.data(), static_cast<std::size_t>(c.rotary_dim()),
                  c.rope_pairing);
  }
  std::vector<float> dots(n * n);
  for (std::size_t m = 0; m < n; ++m)
    kernels::dot_strided(dots.data() + m * n, rotated_k.data(), head_dim, n, rotated_q.data() + m * head_dim,
                         head_dim);
  return dots;
}

}  // namespace glassbox
