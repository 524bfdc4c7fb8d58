// AdamW's update in double, a SIMD batch of weights at a time (xsimd's doubles: 8 lanes with AVX-512, 2 in
// WebAssembly) and the tail one at a time. Both go through the one statement of the formula below, whose
// operations (+, *, /, sqrt) are each correctly rounded per lane, so the batches give exactly the bits of
// the one-at-a-time loop (tests/train_optimizer_test.cpp checks it): no thread count or instruction set
// changes a weight. One at a time, std::sqrt's errno kept the compiler from vectorizing it: 8% of a small
// model's step.
#include "train/adamw.hpp"

#include <xsimd/xsimd.hpp>

#include <cmath>
#include <cstddef>

#include "train/model_gradients.hpp"

namespace glassbox::train {
namespace {

using Doubles = xsimd::batch<double>;
constexpr std::size_t kLanes = Doubles::size;

double root(double x) {
  return std::sqrt(x);
}
Doubles root(Doubles x) {
  return xsimd::sqrt(x);
}

// The constants of one tensor's update.
struct Update {
  double beta1, beta2, m_correction, v_correction, learning_rate, eps, weight_decay;

  // m, v and w of one weight (D: double) or of a batch of them (D: Doubles), updated in place.
  template <class D>
  void apply(D g, D& m, D& v, D& w) const {
    m = D(beta1) * m + D(1.0 - beta1) * g;
    v = D(beta2) * v + D(1.0 - beta2) * g * g;
    const D m_hat = m / D(m_correction), v_hat = v / D(v_correction);
    w = w - D(learning_rate) * (m_hat / (root(v_hat) + D(eps)) + D(weight_decay) * w);
  }
};

}  // namespace

void adamw_update(std::span<float> weights, std::span<const float> gradients, std::span<float> m,
                  std::span<float> v, int step, double learning_rate, const AdamWSettings& s, bool decay) {
  const Update u{.beta1 = s.beta1,
                 .beta2 = s.beta2,
                 .m_correction = 1.0 - std::pow(s.beta1, step),
                 .v_correction = 1.0 - std::pow(s.beta2, step),
                 .learning_rate = learning_rate,
                 .eps = s.eps,
                 .weight_decay = decay ? s.weight_decay : 0.0};
  const std::size_t n = weights.size();
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    alignas(64) double g[kLanes], m_i[kLanes], v_i[kLanes], w[kLanes];
    for (std::size_t j = 0; j < kLanes; ++j) {
      g[j] = gradients[i + j], m_i[j] = m[i + j], v_i[j] = v[i + j], w[j] = weights[i + j];
    }
    Doubles mb = Doubles::load_aligned(m_i), vb = Doubles::load_aligned(v_i), wb = Doubles::load_aligned(w);
    u.apply(Doubles::load_aligned(g), mb, vb, wb);
    mb.store_aligned(m_i), vb.store_aligned(v_i), wb.store_aligned(w);
    for (std::size_t j = 0; j < kLanes; ++j) {
      m[i + j] = static_cast<float>(m_i[j]), v[i + j] = static_cast<float>(v_i[j]);
      weights[i + j] = static_cast<float>(w[j]);
    }
  }
  for (; i < n; ++i) {
    double m_i = m[i], v_i = v[i], w = weights[i];
    u.apply<double>(gradients[i], m_i, v_i, w);
    m[i] = static_cast<float>(m_i), v[i] = static_cast<float>(v_i), weights[i] = static_cast<float>(w);
  }
}

bool takes_weight_decay(std::string_view name) {
  return !names_norm_gain(name) && !names_bias(name);
}

}  // namespace glassbox::train
