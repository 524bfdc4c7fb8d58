// Trained numbers seen as a model: a Model whose tensors view a ModelParameters<float> (the engine's forward
// pass, `score`, `inspect` and the GGUF writer then read the weights as they are now, without a copy), and
// the names and shapes a GGUF file stores each tensor under.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glassbox/model.hpp"
#include "train/model_gradients.hpp"

namespace glassbox::train {

// A Model over `parameters`, which it keeps alive; its tensors see every later change to the numbers (the
// vectors must not be resized). `config` must be the one the parameters were made for.
std::shared_ptr<const Model> model_viewing(const ModelConfig& config,
                                           std::shared_ptr<ModelParameters<float>> parameters);

// One tensor of `tensors` (parameters or their gradients) under its GGUF name, with its shape outermost
// first ([rows, cols] for a matrix, [n] for a vector), as export_gguf writes the F32 model (llama's q, k, v
// apart; gpt2's stacked into one attn_qkv, rows q then k then v, and their biases joined likewise) and as
// llama.cpp's converters name such files: element i of `values` is stored element i.
struct GgufNamedTensor {
  std::string name;
  std::vector<uint64_t> shape;
  std::vector<float> values;
};
std::vector<GgufNamedTensor> gguf_named_tensors(const ModelConfig& config,
                                                const ModelParameters<float>& tensors);

}  // namespace glassbox::train
