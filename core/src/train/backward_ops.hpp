// The backward pass of each op of train/forward_ops.hpp: given dy = dLoss/dy, the derivatives by the op's
// inputs and weights. Plain scalar references over a number type T (float to train, double for the gradient
// checks of tests/train_backward_test.cpp). In float, linear_backward and attention_backward run on the
// engine's kernels (train/float_products.hpp); their double instantiations stay the plain loops, the reference
// tests/train_products_test.cpp compares them with.
//
// Every function ADDS into its gradient outputs (dx, dweight, dbias ...): a value read by two ops (the
// residual stream, a tied embedding, a kv head shared by several query heads) gathers the derivative along
// each path. The caller zeroes them once. Null gradient pointers for biases mean "no bias".
#pragma once

#include <cstddef>

#include "glassbox/config.hpp"
#include "train/forward_ops.hpp"

namespace glassbox::train {

// out[t] = table[tokens[t]]  =>  dtable[tokens[t]] += dout[t] (a scatter-add: a token seen twice gathers
// both rows' derivatives).
template <class T>
void embedding_backward(T* dtable, const T* dout, const int* tokens, std::size_t n, std::size_t dim);

// y = x r w, r = 1 / sqrt(mean(x^2) + eps), one row. With g = dy w:
//   dw += dy x r,   dx += r g - r^3 x (g·x) / n.
template <class T>
void rmsnorm_backward(T* dx, T* dweight, const T* dy, const T* x, const T* weight, std::size_t n, T eps);

// y = xhat w + b, xhat = (x - mean) r, r = 1 / sqrt(var + eps), one row. With g = dy w:
//   db += dy,   dw += dy xhat,   dx += r (g - mean(g) - xhat mean(g xhat)).
template <class T>
void layernorm_backward(T* dx, T* dweight, T* dbias, const T* dy, const T* x, const T* weight, std::size_t n,
                        T eps);

// y[t] = W x[t] + b for n rows, W [out_dim][in_dim]:
//   dx[t] += W^T dy[t],   dW += sum_t dy[t] x[t]^T,   db += sum_t dy[t].
// dx may be null (the input needs no derivative).
template <class T>
void linear_backward(T* dx, T* dweight, T* dbias, const T* dy, const T* x, const T* weight, std::size_t n,
                     std::size_t in_dim, std::size_t out_dim);

// RoPE turns each pair by a rotation R (cos, sin of the forward's angle, times its magnitude); its derivative
// is R^T, the turn back: d(x) = R^T dy, pair by pair. In place on one head: dy becomes dx.
template <class T>
void rope_backward(T* d, const T* cos_row, const T* sin_row, std::size_t rotary_dim, RopePairing pairing);

// Causal softmax attention (attention_forward, whose probabilities P it reads back). With s = 1/sqrt(d),
// for each head and query i over its keys j <= i:
//   dP_ij = dout_i · v_j,   dv_j += P_ij dout_i,
//   dS_ij = P_ij (dP_ij - sum_k P_ik dP_ik)          (the softmax's Jacobian),
//   dq_i += s sum_j dS_ij k_j,   dk_j += s dS_ij q_i.
// Query heads sharing a kv head (GQA) add into its dk and dv.
template <class T>
void attention_backward(T* dq, T* dk, T* dv, const T* dout, const T* probabilities, const T* q, const T* k,
                        const T* v, const AttentionShape& shape);

// act'(x), the activation's derivative:
//   SiLU: sigma(x) (1 + x (1 - sigma(x)));   ReLU: 1 where x > 0, else 0;
//   GELU (tanh): 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) c (1 + 3 a x^2), u = c (x + a x^3);
//   GELU (erf): Phi(x) + x phi(x).
template <class T>
T activation_derivative(Activation activation, T x);

// y = act(x), n values: dx += dy act'(x).
template <class T>
void activation_backward(T* dx, const T* dy, const T* x, std::size_t n, Activation activation);

// h = act(gate) * up (SwiGLU, GeGLU): dgate += dh up act'(gate),   dup += dh act(gate).
template <class T>
void gated_backward(T* dgate, T* dup, const T* dh, const T* gate, const T* up, std::size_t n,
                    Activation activation);

// y = a + b (the residual add): da += dy and db += dy; this is the one for one addend, the derivative of a
// sum passing through unchanged to each (the gradient highway of a Pre-LN stack).
template <class T>
void residual_backward(T* da, const T* dy, std::size_t n);

// loss = mean over n positions of logsumexp(logits[t]) - logits[t][targets[t]]:
//   dlogits[t] += (softmax(logits[t]) - onehot(targets[t])) * dloss / n.
template <class T>
void cross_entropy_backward(T* dlogits, const T* logits, const int* targets, std::size_t n, std::size_t vocab,
                            T dloss = T(1));

}  // namespace glassbox::train
