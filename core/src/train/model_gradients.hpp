// A whole model's loss on a token sequence and the derivative of that loss by every weight: the forward
// pass of train/forward_ops.hpp, its activations kept, then the backward ops of train/backward_ops.hpp layer
// by layer in reverse. One pass, parameterized by the config as the engine's forward pass is (Llama and
// GPT-2 differ only in the knobs marked):
//
//   x = embed(tokens) (+ pos[t]: learned positions, GPT-2; or + the fixed sinusoidal code of t, no weights)
//   per layer:  x += wo attention(rope(wq n + bq), rope(wk n + bk), wv n + bv) + bo      n = norm(x, attn_norm)
//               x += w_down ffn(m) + b_down                                              m = norm(x, ffn_norm)
//   logits = output norm(x, final_norm)      (output: the token embedding when tied)
//   loss = mean over positions t < n-1 of -log softmax(logits[t])[tokens[t+1]]
//
// norm: RMSNorm (Llama) or LayerNorm with a bias (GPT-2); rope: only with RoPE positions (Llama); biases:
// where the model has them (GPT-2 everywhere, Llama nowhere); ffn(m): act(w_gate m + b_gate) * (w_up m + b_up)
// when gated (SwiGLU, GeGLU), act(w_up m + b_up) when not (GPT-2's GELU).
//
// In float, the loss is exactly what glassbox::score_tokens reports for the same tokens, bit for bit: the
// float ops are the forward pass's own kernels and steps (train/forward_ops.hpp), so the trainer reports it
// without scoring its rows again (tests/train_model_gradients_test.cpp checks every trainable architecture).
//
// Single-threaded; in double, every op is a plain scalar loop: the reference that the float pass is checked
// against. Activations are kept whole (every layer's inputs, q, k, v, probabilities, feed-forward
// values: O(layers x tokens x (dim + hidden + heads x tokens)) numbers), which is fine for the small models
// and contexts this trains; recomputing them per layer would trade time for memory. Each thread keeps its
// activations' and derivatives' buffers from one call to the next (its rows are of similar lengths).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/model.hpp"
#include "glassbox/result.hpp"

namespace glassbox::train {

// One layer's weights, or their gradients, laid out as the model stores them (matrices [out][in]), named as
// glassbox::LayerWeights names them. A tensor the model does not have is empty: the biases of a Llama, the
// gate of a plain (not gated) feed-forward, the norms' biases of an RMSNorm model.
template <class T>
struct LayerParameters {
  std::vector<T> attn_norm, attn_norm_bias;
  std::vector<T> wq, wk, wv, bq, bk, bv;
  std::vector<T> wo, bo;
  std::vector<T> ffn_norm, ffn_norm_bias;
  std::vector<T> ffn_gate, ffn_up, ffn_down;
  std::vector<T> ffn_gate_bias, ffn_up_bias, ffn_down_bias;

  // fn(name, tensor) for every tensor the layer has (the empty ones skipped), named after `at` ("layers.3.")
  // in the order of glassbox::for_each_weight.
  template <class F>
  void for_each(const std::string& at, F&& fn) {
    const auto visit = [&](const char* name, std::vector<T>& tensor) {
      if (!tensor.empty()) fn(at + name, tensor);
    };
    visit("attn_norm", attn_norm), visit("attn_norm_bias", attn_norm_bias);
    visit("wq", wq), visit("wk", wk), visit("wv", wv), visit("bq", bq), visit("bk", bk), visit("bv", bv);
    visit("wo", wo), visit("bo", bo), visit("ffn_norm", ffn_norm), visit("ffn_norm_bias", ffn_norm_bias);
    visit("ffn_gate", ffn_gate), visit("ffn_up", ffn_up), visit("ffn_down", ffn_down);
    visit("ffn_gate_bias", ffn_gate_bias), visit("ffn_up_bias", ffn_up_bias);
    visit("ffn_down_bias", ffn_down_bias);
  }
};

template <class T>
struct ModelParameters {
  std::vector<T> token_embedding;     // [vocab][dim]
  std::vector<T> position_embedding;  // [context][dim], learned positions only
  std::vector<LayerParameters<T>> layers;
  std::vector<T> final_norm, final_norm_bias;  // [dim]
  std::vector<T> output;  // [vocab][dim]; empty when the classifier is the token embedding

  // fn(name, tensor) for every tensor the model has (the empty ones skipped), in the order and with the names
  // of glassbox::for_each_weight ("layers.3.wq", "layers.3.bq"); the tied classifier is not visited twice.
  template <class F>
  void for_each(F&& fn) {
    const auto visit = [&](const std::string& name, std::vector<T>& tensor) {
      if (!tensor.empty()) fn(name, tensor);
    };
    visit("token_embedding", token_embedding);
    visit("position_embedding", position_embedding);
    for (std::size_t l = 0; l < layers.size(); ++l)
      layers[l].for_each("layers." + std::to_string(l) + ".", fn);
    visit("final_norm", final_norm);
    visit("final_norm_bias", final_norm_bias);
    visit("output", output);
  }
};

// What a for_each name is: a norm's gain ("layers.0.attn_norm", "final_norm") or a bias ("layers.0.bq",
// "layers.0.ffn_up_bias", "final_norm_bias"); the rest are matrices (embeddings, projections, classifier).
bool names_norm_gain(std::string_view name);
bool names_bias(std::string_view name);

// Whether the config is one this pass trains: a causal Pre-LN decoder with RMSNorm or LayerNorm, RoPE (any
// pairing, rotary width and scaling), learned or sinusoidal positions, a gated or plain feed-forward with any activation,
// and no q/k norm, sliding windows, soft-cap or scaled or normalized embeddings. UnsupportedArchitecture
// naming the first thing that is not.
Result<void> check_trainable(const ModelConfig& config);

// How many of the tensors model_parameters copied were stored in each element type, in the order the types
// first appear (the tied classifier counted once, with the token embedding).
struct StoredTypeCount {
  DType type = DType::F32;
  int tensors = 0;
};

// The model's weights copied out as trainable numbers (the forward pass's weights are views of the file).
// Checks the config (above) and that norm biases come only with LayerNorm (UnsupportedArchitecture). A
// 16-bit or block-quantized tensor is decoded with the engine's own decoder (kernels::dequantize_row, the
// one the forward pass reads its rows with), so training starts from exactly the numbers the file holds;
// `stored_types`, when given, receives which types were read.
template <class T>
Result<ModelParameters<T>> model_parameters(const Model& model,
                                            std::vector<StoredTypeCount>* stored_types = nullptr);

// The same shapes, every value 0: what the gradients are accumulated into.
template <class T>
ModelParameters<T> zeros_like(const ModelParameters<T>& parameters);

// The mean next-token cross-entropy of `tokens` (at least 2, at most the model's context): the forward pass
// alone. BadArgument for too few or too many tokens or a token outside the vocabulary.
template <class T>
Result<double> model_loss(const ModelConfig& config, const ModelParameters<T>& parameters,
                          std::span<const int> tokens);

// The same loss, and its derivative by every weight ADDED into `gradients` (zeros_like(parameters), or a
// batch's running sum); `log_probabilities`, when given, receives the log-probability of each predicted
// token (tokens[1..]), whose negated mean the loss is.
template <class T>
Result<double> model_loss_and_gradients(const ModelConfig& config, const ModelParameters<T>& parameters,
                                        std::span<const int> tokens, ModelParameters<T>& gradients,
                                        std::vector<double>* log_probabilities = nullptr);

}  // namespace glassbox::train
