// Assembling a Model from named tensors, shared by the GGUF and safetensors readers: a reader says where
// each tensor is and what it is called; the builder checks every shape against the config, splits fused
// matrices into views, and names the tensor, the expected and the found shape in every error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glassbox/model.hpp"
#include "glassbox/result.hpp"

namespace glassbox {

struct TensorSource {
  const std::byte* data = nullptr;
  std::vector<uint64_t> dims;  // innermost first, as GGUF lists them: a [rows][cols] matrix is {cols, rows}
  std::optional<DType> type;   // nullopt: an element type glassbox cannot compute with
  std::string type_name;       // for messages
};

// What a tensor of a transformer block does. Fused roles (QKV, GateUp) are one matrix split into views.
enum class LayerRole {
  AttnNorm,
  AttnNormBias,
  Q,
  K,
  V,
  QBias,
  KBias,
  VBias,
  QKV,
  QKVBias,
  QNorm,  // [head_dim], shared by every query head (ModelConfig::qk_norm)
  KNorm,
  O,
  OBias,
  AttnPostNorm,  // [dim], NormPlacement::Sandwich
  FfnNorm,
  FfnNormBias,
  Gate,
  GateBias,
  Up,
  UpBias,
  GateUp,
  Down,
  DownBias,
  FfnPostNorm,  // [dim], NormPlacement::Sandwich
};

struct GlobalTensorNames {
  std::string token_embedding;
  std::string position_embedding;
  std::string final_norm;
  std::string final_norm_bias;
  std::string output;  // absent in the file: the classifier is tied to the token embedding
  // Encoders' (empty where a format has none): read where the config asks for them, the MLM head where the
  // file has its dense matrix.
  std::string token_type_embedding;
  std::string embedding_norm;
  std::string embedding_norm_bias;
  std::string mlm_dense, mlm_dense_bias, mlm_norm, mlm_norm_bias, mlm_output_bias;
};

using TensorLookup = std::function<std::optional<TensorSource>(const std::string& name)>;
// The name of a layer's tensor in this format, or "" when the format has no such tensor.
using LayerTensorNames = std::function<std::string(int layer, LayerRole role)>;

class ModelBuilder {
 public:
  ModelBuilder(ModelConfig config, std::string source) : source_(std::move(source)) {
    model_.config = std::move(config);
  }

  // Keeps the bytes the tensors view alive as long as the model.
  void keep(std::shared_ptr<const void> owner) { model_.storage.push_back(std::move(owner)); }

  Result<Model> build(const TensorLookup& lookup, const LayerTensorNames& layer_names,
                      const GlobalTensorNames& names);

 private:
  Result<Tensor> matrix(const TensorLookup& lookup, const std::string& name, int64_t rows, int64_t cols);
  Result<Tensor> vector(const TensorLookup& lookup, const std::string& name, int64_t n, bool required);
  static Tensor rows_of(const Tensor& t, int64_t first, int64_t count);

  Model model_;
  std::string source_;
};

}  // namespace glassbox
