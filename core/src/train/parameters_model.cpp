#include "train/parameters_model.hpp"

#include <initializer_list>

#include "formats/gguf_names.hpp"
#include "formats/model_builder.hpp"

namespace glassbox::train {
namespace {

// A view of `values` as rows of `cols`; absent (no data) when the model has no such tensor.
Tensor view(const std::vector<float>& values, int cols) {
  if (values.empty()) return Tensor{};
  return Tensor{DType::F32, reinterpret_cast<const std::byte*>(values.data()),
                static_cast<int64_t>(values.size()) / cols, cols};
}

// The parameters' tensors that make up the stored tensor of `role` (several where the file stacks them:
// fused q|k|v), and the width of one stored row (0: a vector).
struct Parts {
  std::vector<const std::vector<float>*> tensors;
  int cols = 0;
};
Parts parts_of(const ModelConfig& c, const LayerParameters<float>& L, LayerRole role) {
  switch (role) {
    case LayerRole::AttnNorm:
      return {{&L.attn_norm}};
    case LayerRole::AttnNormBias:
      return {{&L.attn_norm_bias}};
    case LayerRole::Q:
      return {{&L.wq}, c.dim};
    case LayerRole::K:
      return {{&L.wk}, c.dim};
    case LayerRole::V:
      return {{&L.wv}, c.dim};
    case LayerRole::QBias:
      return {{&L.bq}};
    case LayerRole::KBias:
      return {{&L.bk}};
    case LayerRole::VBias:
      return {{&L.bv}};
    case LayerRole::QKV:
      return {{&L.wq, &L.wk, &L.wv}, c.dim};
    case LayerRole::QKVBias:
      return {{&L.bq, &L.bk, &L.bv}};
    case LayerRole::O:
      return {{&L.wo}, c.q_dim()};
    case LayerRole::OBias:
      return {{&L.bo}};
    case LayerRole::FfnNorm:
      return {{&L.ffn_norm}};
    case LayerRole::FfnNormBias:
      return {{&L.ffn_norm_bias}};
    case LayerRole::Gate:
      return {{&L.ffn_gate}, c.dim};
    case LayerRole::GateBias:
      return {{&L.ffn_gate_bias}};
    case LayerRole::Up:
      return {{&L.ffn_up}, c.dim};
    case LayerRole::UpBias:
      return {{&L.ffn_up_bias}};
    case LayerRole::GateUp:
      return {{&L.ffn_gate, &L.ffn_up}, c.dim};
    case LayerRole::Down:
      return {{&L.ffn_down}, c.hidden_dim};
    case LayerRole::DownBias:
      return {{&L.ffn_down_bias}};
    case LayerRole::QNorm:
    case LayerRole::KNorm:
    case LayerRole::AttnPostNorm:
    case LayerRole::FfnPostNorm:
      return {};  // not trained (model_gradients' check_trainable)
  }
  return {};
}

// The parts end to end under `name`: nothing when the first part is absent, as the writer skips it.
void add_named(std::vector<GgufNamedTensor>& out, const std::string& name, const Parts& parts) {
  if (parts.tensors.empty() || parts.tensors.front()->empty()) return;
  GgufNamedTensor t{name, {}, {}};
  for (const std::vector<float>* part : parts.tensors)
    t.values.insert(t.values.end(), part->begin(), part->end());
  const auto size = static_cast<uint64_t>(t.values.size());
  t.shape = parts.cols > 0 ? std::vector<uint64_t>{size / static_cast<uint64_t>(parts.cols),
                                                   static_cast<uint64_t>(parts.cols)}
                           : std::vector<uint64_t>{size};
  out.push_back(std::move(t));
}

}  // namespace

std::shared_ptr<const Model> model_viewing(const ModelConfig& c,
                                           std::shared_ptr<ModelParameters<float>> parameters) {
  auto model = std::make_shared<Model>();
  model->config = c;
  model->config.tied_embeddings = parameters->output.empty();
  const ModelParameters<float>& p = *parameters;
  ModelWeights& w = model->weights;
  w.token_embedding = view(p.token_embedding, c.dim);
  w.position_embedding = view(p.position_embedding, c.dim);
  for (const LayerParameters<float>& L : p.layers) {
    LayerWeights& out = w.layers.emplace_back();
    out.attn_norm = view(L.attn_norm, c.dim);
    out.attn_norm_bias = view(L.attn_norm_bias, c.dim);
    out.wq = view(L.wq, c.dim);
    out.wk = view(L.wk, c.dim);
    out.wv = view(L.wv, c.dim);
    out.bq = view(L.bq, c.q_dim());
    out.bk = view(L.bk, c.kv_dim());
    out.bv = view(L.bv, c.kv_dim());
    out.wo = view(L.wo, c.q_dim());
    out.bo = view(L.bo, c.dim);
    out.ffn_norm = view(L.ffn_norm, c.dim);
    out.ffn_norm_bias = view(L.ffn_norm_bias, c.dim);
    out.ffn_gate = view(L.ffn_gate, c.dim);
    out.ffn_up = view(L.ffn_up, c.dim);
    out.ffn_down = view(L.ffn_down, c.hidden_dim);
    out.ffn_gate_bias = view(L.ffn_gate_bias, c.hidden_dim);
    out.ffn_up_bias = view(L.ffn_up_bias, c.hidden_dim);
    out.ffn_down_bias = view(L.ffn_down_bias, c.dim);
  }
  w.final_norm = view(p.final_norm, c.dim);
  w.final_norm_bias = view(p.final_norm_bias, c.dim);
  w.output = p.output.empty() ? w.token_embedding : view(p.output, c.dim);
  model->storage.push_back(std::move(parameters));
  return model;
}

std::vector<GgufNamedTensor> gguf_named_tensors(const ModelConfig& c, const ModelParameters<float>& p) {
  bool has_ffn_biases = false;
  for (const LayerParameters<float>& L : p.layers)
    has_ffn_biases =
        has_ffn_biases || !L.ffn_gate_bias.empty() || !L.ffn_up_bias.empty() || !L.ffn_down_bias.empty();
  const gguf::Architecture& arch = gguf::architecture_for(c, has_ffn_biases);
  std::vector<GgufNamedTensor> out;
  add_named(out, gguf::kTokenEmbedding, {{&p.token_embedding}, c.dim});
  add_named(out, gguf::kPositionEmbedding, {{&p.position_embedding}, c.dim});
  for (std::size_t l = 0; l < p.layers.size(); ++l)
    for (const gguf::LayerTensorName& t : gguf::kLayerTensors)
      if (gguf::writes_layer_tensor(arch, t.role))
        add_named(out, gguf::layer_tensor_name(arch, static_cast<int>(l), t.role),
                  parts_of(c, p.layers[l], t.role));
  add_named(out, gguf::kOutputNorm, {{&p.final_norm}});
  add_named(out, gguf::kOutputNormBias, {{&p.final_norm_bias}});
  add_named(out, gguf::kOutput, {{&p.output}, c.dim});
  return out;
}

}  // namespace glassbox::train
