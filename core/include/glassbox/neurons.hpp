// The feed-forward's neurons, one position at a time: which of a layer's hidden units fire most there, and
// where else in the text each of them fires most (TransformerLens's per-neuron activations). A neuron is one
// unit of the hidden layer the down projection reads: act(gate · x) × (up · x) in a gated feed-forward
// (SwiGLU, GeGLU), act(up · x) in a plain one.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "glassbox/config.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"

namespace glassbox {

struct NeuronActivation {
  int neuron = 0;
  float activation = 0;  // what the down projection reads
  float pre = 0;         // before the activation function: the gate projection (gated) or the up projection
  float up = 0;          // a gated feed-forward's up projection (0 in a plain one)
};

struct NeuronReport {
  int layer = 0, position = 0;
  bool gated = false;
  // The k neurons of largest |activation| at `position`, largest first (ties: lower index first).
  std::vector<NeuronActivation> top;
  // For each of them, the positions of the text where it is most active (largest activation first, up to
  // `per_neuron`), with that activation.
  struct Peak {
    int position = 0;
    float activation = 0;
  };
  std::vector<std::vector<Peak>> peaks;
};

// The bytes top_neurons holds for a text of `n` tokens: its KV cache and the layer's three records (the
// activations of every position); a caller with a memory budget (the page's worker) compares before asking.
int64_t top_neurons_bytes(const ModelConfig& config, int n);

// Reads `ids` once (the one forward pass, exact attention, no ablation, in chunks of 64 tokens) with layer
// `layer`'s feed-forward recorded. BadArgument: no tokens, an id outside the vocabulary, a layer or position outside, k or
// per_neuron below 1, an encoder; PromptTooLong past the model's context.
Result<NeuronReport> top_neurons(std::shared_ptr<const Model> model, std::span<const int> ids, int layer,
                                 int position, int k, int per_neuron = 3, int threads = 1);

}  // namespace glassbox
