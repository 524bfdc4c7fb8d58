// A whole Llama-architecture model's loss on a token sequence and the derivative of that loss by every
// weight: the forward pass of train/forward_ops.hpp, its activations kept, then the backward ops of
// train/backward_ops.hpp layer by layer in reverse.
//
//   x = embed(tokens)
//   per layer:  x += wo attention(rope(wq n), rope(wk n), wv n)     n = rmsnorm(x, attn_norm)
//               x += w_down (silu(w_gate m) * (w_up m))             m = rmsnorm(x, ffn_norm)
//   logits = output rmsnorm(x, final_norm)      (output: the token embedding when tied)
//   loss = mean over positions t < n-1 of -log softmax(logits[t])[tokens[t+1]]
//
// The loss is what glassbox::score_tokens reports for the same tokens (tests/train_model_gradients_test.cpp
// holds them to 1e-5 on stories260K): training's step 0 scores the text as `score` does.
//
// Scalar, single-threaded and unoptimized: this is the reference that faster training kernels are checked
// against. Activations are kept whole (every layer's inputs, q, k, v, probabilities, feed-forward values:
// O(layers x tokens x (dim + hidden + heads x tokens)) numbers), which is fine for the small models and
// contexts this trains; recomputing them per layer would trade time for memory.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "glassbox/model.hpp"
#include "glassbox/result.hpp"

namespace glassbox::train {

// One layer's weights, or their gradients, laid out as the model stores them (matrices [out][in]).
template <class T>
struct LlamaLayer {
  std::vector<T> attn_norm, wq, wk, wv, wo, ffn_norm, ffn_gate, ffn_up, ffn_down;
};

template <class T>
struct LlamaParameters {
  std::vector<T> token_embedding;  // [vocab][dim]
  std::vector<LlamaLayer<T>> layers;
  std::vector<T> final_norm;  // [dim]
  std::vector<T> output;      // [vocab][dim]; empty when the classifier is the token embedding (tied)

  // fn(name, tensor) for every tensor, in the order above, named as the forward pass's weights are
  // ("layers.3.wq"); the tied classifier is not visited twice.
  template <class F>
  void for_each(F&& fn) {
    fn(std::string("token_embedding"), token_embedding);
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const std::string at = "layers." + std::to_string(l) + ".";
      LlamaLayer<T>& L = layers[l];
      fn(at + "attn_norm", L.attn_norm), fn(at + "wq", L.wq), fn(at + "wk", L.wk), fn(at + "wv", L.wv);
      fn(at + "wo", L.wo), fn(at + "ffn_norm", L.ffn_norm), fn(at + "ffn_gate", L.ffn_gate);
      fn(at + "ffn_up", L.ffn_up), fn(at + "ffn_down", L.ffn_down);
    }
    fn(std::string("final_norm"), final_norm);
    if (!output.empty()) fn(std::string("output"), output);
  }
};

// Whether the config is one this slice trains: a causal decoder with RMSNorm, Pre-LN, RoPE (any pairing,
// rotary width and scaling), gated SiLU (SwiGLU), no q/k norm, sliding windows, soft-cap or scaled
// embeddings. UnsupportedArchitecture naming the first thing that is not.
Result<void> check_llama_trainable(const ModelConfig& config);

// The model's weights copied out as trainable numbers (the forward pass's weights are views of the file).
// Checks the config (above) and that the model has no biases (UnsupportedArchitecture); F32 weights only
// for now (UnsupportedType names the first other tensor): a quantized model would be trained from its
// dequantized weights.
template <class T>
Result<LlamaParameters<T>> llama_parameters(const Model& model);

// The same shapes, every value 0: what the gradients are accumulated into.
template <class T>
LlamaParameters<T> zeros_like(const LlamaParameters<T>& parameters);

// The mean next-token cross-entropy of `tokens` (at least 2, at most the model's context): the forward pass
// alone. BadArgument for too few or too many tokens or a token outside the vocabulary.
template <class T>
Result<double> llama_loss(const ModelConfig& config, const LlamaParameters<T>& parameters,
                          std::span<const int> tokens);

// The same loss, and its derivative by every weight ADDED into `gradients` (zeros_like(parameters), or a
// batch's running sum).
template <class T>
Result<double> llama_loss_and_gradients(const ModelConfig& config, const LlamaParameters<T>& parameters,
                                        std::span<const int> tokens, LlamaParameters<T>& gradients);

}  // namespace glassbox::train
