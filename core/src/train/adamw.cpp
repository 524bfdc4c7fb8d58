#include "train/adamw.hpp"

#include <cmath>
#include <cstddef>

#include "train/model_gradients.hpp"

namespace glassbox::train {

void adamw_update(std::span<float> weights, std::span<const float> gradients, std::span<float> m,
                  std::span<float> v, int step, double learning_rate, const AdamWSettings& s, bool decay) {
  const double m_correction = 1.0 - std::pow(s.beta1, step);
  const double v_correction = 1.0 - std::pow(s.beta2, step);
  const double weight_decay = decay ? s.weight_decay : 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double g = gradients[i];
    const double m_i = s.beta1 * m[i] + (1.0 - s.beta1) * g;
    const double v_i = s.beta2 * v[i] + (1.0 - s.beta2) * g * g;
    m[i] = static_cast<float>(m_i);
    v[i] = static_cast<float>(v_i);
    const double m_hat = m_i / m_correction, v_hat = v_i / v_correction;
    const double w = weights[i];
    weights[i] =
        static_cast<float>(w - learning_rate * (m_hat / (std::sqrt(v_hat) + s.eps) + weight_decay * w));
  }
}

bool takes_weight_decay(std::string_view name) {
  return !names_norm_gain(name) && !names_bias(name);
}

}  // namespace glassbox::train
