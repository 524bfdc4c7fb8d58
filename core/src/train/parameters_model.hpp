// Trained numbers seen as a model: a Model whose tensors view a LlamaParameters<float> (the engine's forward
// pass, `score`, `inspect` and the GGUF writer then read the weights as they are now, without a copy), and
// the names and shapes a GGUF file stores each tensor under.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glassbox/model.hpp"
#include "train/llama_gradients.hpp"

namespace glassbox::train {

// A Model over `parameters`, which it keeps alive; its tensors see every later change to the numbers (the
// vectors must not be resized). `config` must be the one the parameters were made for.
std::shared_ptr<const Model> model_viewing(const ModelConfig& config,
                                           std::shared_ptr<LlamaParameters<float>> parameters);

// One tensor of `tensors` (parameters or their gradients) under its GGUF name, with its shape outermost
// first ([rows, cols] for a matrix, [n] for a vector), as export_gguf writes an F32 llama model and as
// llama.cpp's converter names a llama GGUF file: element i of `values` is stored element i.
struct GgufNamedTensor {
  std::string name;
  std::vector<uint64_t> shape;
  const std::vector<float>* values = nullptr;
};
std::vector<GgufNamedTensor> gguf_named_tensors(const ModelConfig& config,
                                                const LlamaParameters<float>& tensors);

}  // namespace glassbox::train
