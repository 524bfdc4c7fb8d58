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

void relu(float* x, std::size_t n) {
  map_in_place(x, n, [](Batch v) { return xsimd::max(v, Batch(0.0f)); });
}

}  // namespace glassbox::kernels
