// Feed-forward activations. sigmoid and tanh are written through exp_approx so all instruction sets agree.
#include "exp_approx.hpp"

namespace glassbox::kernels {
namespace {

Batch silu_lanes(Batch v) {
  return v / (Batch(1.0f) + exp_approx(-v));
}

}  // namespace

void silu(float* x, std::size_t n) {
  map_in_place(x, n, silu_lanes);
}

void swiglu(float* gate, const float* up, std::size_t n) {
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth)
    (silu_lanes(Batch::load_unaligned(gate + i)) * Batch::load_unaligned(up + i)).store_unaligned(gate + i);
  if (i < n)
    store_partial(gate + i, silu_lanes(load_partial(gate + i, n - i)) * load_partial(up + i, n - i), n - i);
}

// GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), with tanh(u) = 1 - 2 / (e^{2u} + 1).
void gelu_tanh(float* x, std::size_t n) {
  map_in_place(x, n, [](Batch v) {
    const Batch u = Batch(0.7978845608028654f) * (v + Batch(0.044715f) * v * v * v);
    const Batch tanh_u = Batch(1.0f) - Batch(2.0f) / (exp_approx(Batch(2.0f) * u) + Batch(1.0f));
    return Batch(0.5f) * v * (Batch(1.0f) + tanh_u);
  });
}

// GELU, exact form: 0.5 x (1 + erf(x / sqrt 2)) (BERT). erf is Abramowitz and Stegun's formula 7.1.26,
// erf(z) = 1 - (a1 t + ... + a5 t^5) e^(-z^2) with t = 1 / (1 + p z) for z >= 0 (absolute error at most
// 1.5e-7, below float's resolution near 1), mirrored for z < 0; written through exp_approx, like the others,
// so that every instruction set gives the same bits.
void gelu_erf(float* x, std::size_t n) {
  map_in_place(x, n, [](Batch v) {
    const Batch z = xsimd::abs(v) * Batch(0.7071067811865476f);
    const Batch t = Batch(1.0f) / (Batch(1.0f) + Batch(0.3275911f) * z);
    const Batch poly =
        t * (Batch(0.254829592f) +
             t * (Batch(-0.284496736f) +
                  t * (Batch(1.421413741f) + t * (Batch(-1.453152027f) + t * Batch(1.061405429f)))));
    const Batch erf_abs = Batch(1.0f) - poly * exp_approx(-(z * z));
    const Batch erf = xsimd::select(v < Batch(0.0f), -erf_abs, erf_abs);
    return Batch(0.5f) * v * (Batch(1.0f) + erf);
  });
}

void relu(float* x, std::size_t n) {
  map_in_place(x, n, [](Batch v) { return xsimd::max(v, Batch(0.0f)); });
}

}  // namespace glassbox::kernels
