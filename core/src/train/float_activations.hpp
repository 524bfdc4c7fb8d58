// The float paths of the feed-forward's backward ops (backward_ops.hpp's activation_backward and
// gated_backward) for SiLU and GELU (tanh), a SIMD batch at a time with the forward kernels' own exp
// (kernels/exp_approx.hpp: about 2 ulp) instead of libm's exp and tanh one value at a time, which took 12%
// of a small GPT-2's step. The ops' double instantiations stay the plain scalar loops, the reference
// tests/train_products_test.cpp compares these with. Element-wise: no order of sums, no thread count, changes
// a value.
#pragma once

#include <cstddef>

#include "glassbox/config.hpp"

namespace glassbox::train {

// Whether the functions below take `activation` (SiLU, GELU tanh); the others stay scalar.
bool has_float_activation_path(Activation activation);

// dx += dy * act'(x), n values.
void activation_backward_f32(float* dx, const float* dy, const float* x, std::size_t n,
                             Activation activation);

// h = act(gate) * up: dgate += dh * up * act'(gate), dup += dh * act(gate), n values.
void gated_backward_f32(float* dgate, float* dup, const float* dh, const float* gate, const float* up,
                        std::size_t n, Activation activation);

}  // namespace glassbox::train
