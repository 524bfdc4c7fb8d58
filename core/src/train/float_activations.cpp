#include "train/float_activations.hpp"

#include "kernels/exp_approx.hpp"
#include "kernels/simd.hpp"

namespace glassbox::train {
namespace {

using kernels::Batch;
using kernels::kWidth;

struct ValueAndSlope {
  Batch value, slope;  // act(x), act'(x)
};

// silu(x) = x sigma(x) (as kernels::silu writes it, x / (1 + e^-x)); silu'(x) = sigma(x) (1 + x (1 - sigma(x))).
ValueAndSlope silu_lanes(Batch x) {
  const Batch one(1.0f), denominator = one + kernels::exp_approx(-x);
  const Batch sigma = one / denominator;
  return {x / denominator, sigma * (one + x * (one - sigma))};
}

// gelu(x) = 0.5 x (1 + tanh u), u = c (x + a x^3); gelu'(x) = 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) c (1 +
// 3 a x^2). With e = e^2u, 1 + tanh u = 2e / (e + 1) and 1 - tanh u = 2 / (e + 1), each without the
// cancellation of 1 - tanh u near tanh u = 1 (or of 1 + tanh u near -1); 1 - tanh^2 u is their product.
ValueAndSlope gelu_tanh_lanes(Batch x) {
  const Batch c(0.7978845608028654f), a(0.044715f), one(1.0f), half(0.5f), two(2.0f);
  const Batch e = kernels::exp_approx(two * (c * (x + a * x * x * x)));
  const Batch inverse = one / (e + one);
  const Batch one_plus_tanh = two * e * inverse, one_minus_tanh = two * inverse;
  return {half * x * one_plus_tanh, half * one_plus_tanh + half * x * (one_plus_tanh * one_minus_tanh) * c *
                                                               (one + Batch(3.0f) * a * x * x)};
}

ValueAndSlope lanes_of(Activation activation, Batch x) {
  return activation == Activation::SiLU ? silu_lanes(x) : gelu_tanh_lanes(x);
}

// op(i, count) over [0, n) a batch at a time, the tail as a partial batch.
template <class Op>
void batches(std::size_t n, Op op) {
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth)
    op(i, kWidth);
  if (i < n) op(i, n - i);
}

Batch load(const float* x, std::size_t count) {
  return count == kWidth ? Batch::load_unaligned(x) : kernels::load_partial(x, count);
}
void store(float* out, Batch v, std::size_t count) {
  if (count == kWidth) {
    v.store_unaligned(out);
  } else {
    kernels::store_partial(out, v, count);
  }
}

}  // namespace

bool has_float_activation_path(Activation activation) {
  return activation == Activation::SiLU || activation == Activation::GELU;
}

void activation_backward_f32(float* dx, const float* dy, const float* x, std::size_t n,
                             Activation activation) {
  batches(n, [&](std::size_t i, std::size_t count) {
    const Batch slope = lanes_of(activation, load(x + i, count)).slope;
    store(dx + i, load(dx + i, count) + load(dy + i, count) * slope, count);
  });
}

void gated_backward_f32(float* dgate, float* dup, const float* dh, const float* gate, const float* up,
                        std::size_t n, Activation activation) {
  batches(n, [&](std::size_t i, std::size_t count) {
    const ValueAndSlope act = lanes_of(activation, load(gate + i, count));
    const Batch d = load(dh + i, count);
    store(dgate + i, load(dgate + i, count) + d * load(up + i, count) * act.slope, count);
    store(dup + i, load(dup + i, count) + d * act.value, count);
  });
}

}  // namespace glassbox::train
