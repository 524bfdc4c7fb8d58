#include "train/parameters_model.hpp"

#include "formats/gguf_names.hpp"
#include "formats/model_builder.hpp"

namespace glassbox::train {
namespace {

Tensor view(const std::vector<float>& values, int rows, int cols) {
  return Tensor{DType::F32, reinterpret_cast<const std::byte*>(values.data()), rows, cols};
}

}  // namespace

std::shared_ptr<const Model> model_viewing(const ModelConfig& c,
                                           std::shared_ptr<LlamaParameters<float>> parameters) {
  auto model = std::make_shared<Model>();
  model->config = c;
  model->config.tied_embeddings = parameters->output.empty();
  const LlamaParameters<float>& p = *parameters;
  ModelWeights& w = model->weights;
  w.token_embedding = view(p.token_embedding, c.vocab_size, c.dim);
  for (const LlamaLayer<float>& L : p.layers) {
    LayerWeights& out = w.layers.emplace_back();
    out.attn_norm = view(L.attn_norm, 1, c.dim);
    out.wq = view(L.wq, c.q_dim(), c.dim);
    out.wk = view(L.wk, c.kv_dim(), c.dim);
    out.wv = view(L.wv, c.kv_dim(), c.dim);
    out.wo = view(L.wo, c.dim, c.q_dim());
    out.ffn_norm = view(L.ffn_norm, 1, c.dim);
    out.ffn_gate = view(L.ffn_gate, c.hidden_dim, c.dim);
    out.ffn_up = view(L.ffn_up, c.hidden_dim, c.dim);
    out.ffn_down = view(L.ffn_down, c.dim, c.hidden_dim);
  }
  w.final_norm = view(p.final_norm, 1, c.dim);
  w.output = p.output.empty() ? w.token_embedding : view(p.output, c.vocab_size, c.dim);
  model->storage.push_back(std::move(parameters));
  return model;
}

std::vector<GgufNamedTensor> gguf_named_tensors(const ModelConfig& c, const LlamaParameters<float>& p) {
  const gguf::Architecture& arch = gguf::architecture_for(c, false);
  const auto rows_cols = [](int rows, int cols) {
    return std::vector<uint64_t>{static_cast<uint64_t>(rows), static_cast<uint64_t>(cols)};
  };
  const std::vector<uint64_t> vector_shape{static_cast<uint64_t>(c.dim)};
  std::vector<GgufNamedTensor> out;
  out.push_back({gguf::kTokenEmbedding, rows_cols(c.vocab_size, c.dim), &p.token_embedding});
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    const LlamaLayer<float>& L = p.layers[l];
    const auto name = [&](LayerRole role) {
      return gguf::layer_tensor_name(arch, static_cast<int>(l), role);
    };
    out.push_back({name(LayerRole::AttnNorm), vector_shape, &L.attn_norm});
    out.push_back({name(LayerRole::Q), rows_cols(c.q_dim(), c.dim), &L.wq});
    out.push_back({name(LayerRole::K), rows_cols(c.kv_dim(), c.dim), &L.wk});
    out.push_back({name(LayerRole::V), rows_cols(c.kv_dim(), c.dim), &L.wv});
    out.push_back({name(LayerRole::O), rows_cols(c.dim, c.q_dim()), &L.wo});
    out.push_back({name(LayerRole::FfnNorm), vector_shape, &L.ffn_norm});
    out.push_back({name(LayerRole::Gate), rows_cols(c.hidden_dim, c.dim), &L.ffn_gate});
    out.push_back({name(LayerRole::Up), rows_cols(c.hidden_dim, c.dim), &L.ffn_up});
    out.push_back({name(LayerRole::Down), rows_cols(c.dim, c.hidden_dim), &L.ffn_down});
  }
  out.push_back({gguf::kOutputNorm, vector_shape, &p.final_norm});
  if (!p.output.empty()) out.push_back({gguf::kOutput, rows_cols(c.vocab_size, c.dim), &p.output});
  return out;
}

}  // namespace glassbox::train
