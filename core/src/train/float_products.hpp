// The float paths of the training ops that dominate a step: the projections (linear_forward and
// linear_backward) and causal attention (attention_forward and attention_backward) of forward_ops.hpp and
// backward_ops.hpp, on the engine's own kernels: the batched matrix product the forward pass runs prompts
// through (kernels/matmul.hpp), the backward products' kernels/accumulate_products.hpp, and the dot
// products, weighted sums and axpy of kernels/kernels.hpp; the attention's probabilities and weighted sum
// are the forward pass's own steps (model/layer_steps.hpp), so that training's forward gives inference's bits.
//
// The ops' float instantiations call these; their double instantiations stay the plain scalar loops, the
// reference these are compared with (tests/train_products_test.cpp: within a stated tolerance, not bit for
// bit: the kernels sum in a different, fixed order).
//
// Deterministic: each product sums its terms in an order fixed by the shapes alone (the canonical dot's 32
// partial sums and tree forward, plain order backward), on the calling thread; nothing here depends on the thread count. The trainer runs
// each row's gradient on one thread, so 1 and N threads still give the same bits.
//
// The three products of a projection y = W x (n rows of x at once):
//   y  = W x          rows of W against the tokens x[t]: the forward pass's matmul, so that training's
//                     forward gives inference's bits (step 0's loss is `score`'s)
//   dx += dy W        kernels::accumulate_products, dy's rows times W's rows
//   dW += dy^T x      kernels::accumulate_products, dy read down its columns times x's rows
// (the backward products in a plain order over the summed index: no transposed copies, no partial sums).
#pragma once

#include <cstddef>

#include "train/forward_ops.hpp"

namespace glassbox::train {

void linear_forward_f32(float* y, const float* x, const float* weight, const float* bias, std::size_t n,
                        std::size_t in_dim, std::size_t out_dim);

void linear_backward_f32(float* dx, float* dweight, float* dbias, const float* dy, const float* x,
                         const float* weight, std::size_t n, std::size_t in_dim, std::size_t out_dim);

void attention_forward_f32(float* out, float* probabilities, const float* q, const float* k, const float* v,
                           const AttentionShape& s);

void attention_backward_f32(float* dq, float* dk, float* dv, const float* dout, const float* probabilities,
                            const float* q, const float* k, const float* v, const AttentionShape& s);

}  // namespace glassbox::train
