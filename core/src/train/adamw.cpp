// AdamW's update in float, as PyTorch's and llm.c's are: a SIMD batch of weights at a time and the tail one at
// a time, both through the one statement of the formula below, whose operations (+, *, /, sqrt) are each
// correctly rounded per lane, so a batch gives exactly the bits of the one-at-a-time loop
// (tests/train_optimizer_test.cpp checks it): no thread count or instruction set changes a weight.
// In double one weight at a time (std::sqrt's errno kept it from vectorizing) it took 8% of a small model's
// step, and double lanes did no better (AVX-512's double division and root are slow).
#include "train/adamw.hpp"

#include <cmath>
#include <cstddef>

#include "kernels/simd.hpp"
#include "train/model_gradients.hpp"

namespace glassbox::train {
namespace {

using kernels::Batch;
using kernels::kWidth;

float root(float x) {
  return std::sqrt(x);
}
Batch root(Batch x) {
  return xsimd::sqrt(x);
}

// The constants of one tensor's update, in float.
struct Update {
  float beta1, one_minus_beta1, beta2, one_minus_beta2, m_correction, v_correction, learning_rate, eps,
      weight_decay;

  // m, v and w of one weight (F: float) or of a batch of them (F: Batch), updated in place.
  template <class F>
  void apply(F g, F& m, F& v, F& w) const {
    m = F(beta1) * m + F(one_minus_beta1) * g;
    v = F(beta2) * v + F(one_minus_beta2) * g * g;
    const F m_hat = m / F(m_correction), v_hat = v / F(v_correction);
    w = w - F(learning_rate) * (m_hat / (root(v_hat) + F(eps)) + F(weight_decay) * w);
  }
};

}  // namespace

void adamw_update(std::span<float> weights, std::span<const float> gradients, std::span<float> m,
                  std::span<float> v, int step, double learning_rate, const AdamWSettings& s, bool decay) {
  const auto f = [](double x) { return static_cast<float>(x); };
  const Update u{.beta1 = f(s.beta1),
                 .one_minus_beta1 = f(1.0 - s.beta1),
                 .beta2 = f(s.beta2),
                 .one_minus_beta2 = f(1.0 - s.beta2),
                 .m_correction = f(1.0 - std::pow(s.beta1, step)),
                 .v_correction = f(1.0 - std::pow(s.beta2, step)),
                 .learning_rate = f(learning_rate),
                 .eps = f(s.eps),
                 .weight_decay = f(decay ? s.weight_decay : 0.0)};
  const std::size_t n = weights.size();
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    Batch mb = Batch::load_unaligned(&m[i]), vb = Batch::load_unaligned(&v[i]),
          wb = Batch::load_unaligned(&weights[i]);
    u.apply(Batch::load_unaligned(&gradients[i]), mb, vb, wb);
    mb.store_unaligned(&m[i]), vb.store_unaligned(&v[i]), wb.store_unaligned(&weights[i]);
  }
  for (; i < n; ++i)
    u.apply<float>(gradients[i], m[i], v[i], weights[i]);
}

bool takes_weight_decay(std::string_view name) {
  return !names_norm_gain(name) && !names_bias(name);
}

}  // namespace glassbox::train
