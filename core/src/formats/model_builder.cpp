#include "formats/model_builder.hpp"

#include "glassbox/error.hpp"
#include "kernels/element_types.hpp"
#include "kernels/quantized.hpp"
#include "model/dtype.hpp"

namespace glassbox {
namespace {

std::string shape(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace

Tensor ModelBuilder::rows_of(const Tensor& t, int64_t first, int64_t count) {
  return Tensor{t.type, t.data + first * tensor_bytes(t.type, 1, t.cols), count, t.cols};
}

Result<Tensor> ModelBuilder::matrix(const TensorLookup& lookup, const std::string& name, int64_t rows,
                                    int64_t cols) {
  const std::optional<TensorSource> t = lookup(name);
  if (!t) return error(ErrorCode::Malformed, source_, ": tensor ", name, " is missing");
  const std::vector<uint64_t> expected = {static_cast<uint64_t>(cols), static_cast<uint64_t>(rows)};
  if (t->dims != expected)
    return error(ErrorCode::Malformed, source_, ": tensor ", name, " must have shape ", shape(expected),
                 " (innermost first), found ", shape(t->dims));
  if (!t->type)
    return error(ErrorCode::UnsupportedType, source_, ": tensor ", name, " has element type ", t->type_name,
                 ", which glassbox cannot compute with (it reads ", computable_type_names(), ")");
  if (tensor_bytes(*t->type, rows, cols) < 0)
    return error(ErrorCode::Malformed, source_, ": tensor ", name, ": row length ", cols,
                 " is not a whole number of ", to_string(*t->type), " blocks");
  return Tensor{*t->type, t->data, rows, cols};
}

Result<Tensor> ModelBuilder::vector(const TensorLookup& lookup, const std::string& name, int64_t n,
                                    bool required) {
  const std::optional<TensorSource> t = name.empty() ? std::nullopt : lookup(name);
  if (!t) {
    if (required) return error(ErrorCode::Malformed, source_, ": tensor ", name, " is missing");
    return Tensor{};
  }
  const std::vector<uint64_t> expected = {static_cast<uint64_t>(n)};
  if (t->dims != expected)
    return error(ErrorCode::Malformed, source_, ": tensor ", name, " must have shape ", shape(expected),
                 ", found ", shape(t->dims));
  if (!t->type)
    return error(ErrorCode::UnsupportedType, source_, ": tensor ", name, " has element type ", t->type_name,
                 ", which glassbox cannot read");
  if (*t->type == DType::F32) return Tensor{DType::F32, t->data, 1, n};
  // Norm weights and biases are added and multiplied as float32: decode the few that are stored otherwise.
  if (tensor_bytes(*t->type, 1, n) < 0)
    return error(ErrorCode::Malformed, source_, ": tensor ", name, ": length ", n,
                 " is not a whole number of ", to_string(*t->type), " blocks");
  auto floats = std::make_shared<std::vector<float>>(static_cast<std::size_t>(n));
  kernels::dequantize_row(*t->type, t->data, floats->data(), static_cast<std::size_t>(n));
  const auto* data = reinterpret_cast<const std::byte*>(floats->data());
  keep(floats);
  return Tensor{DType::F32, data, 1, n};
}

Result<Model> ModelBuilder::build(const TensorLookup& lookup, const LayerTensorNames& layer_names,
                                  const GlobalTensorNames& names) {
  ModelConfig& c = model_.config;
  GLASSBOX_TRY(validate(c, source_));
  const int64_t dim = c.dim, hidden = c.hidden_dim, q_dim = c.q_dim(), kv_dim = c.kv_dim(),
                vocab = c.vocab_size;
  ModelWeights& w = model_.weights;

  GLASSBOX_ASSIGN(w.token_embedding, matrix(lookup, names.token_embedding, vocab, dim));
  if (c.position == PositionKind::Learned) {
    GLASSBOX_ASSIGN(w.position_embedding, matrix(lookup, names.position_embedding, c.max_seq_len, dim));
  }

  if (c.n_token_types > 0) {
    GLASSBOX_ASSIGN(w.token_type_embedding, matrix(lookup, names.token_type_embedding, c.n_token_types, dim));
  }
  if (c.embedding_norm) {
    GLASSBOX_ASSIGN(w.embedding_norm, vector(lookup, names.embedding_norm, dim, true));
    GLASSBOX_ASSIGN(w.embedding_norm_bias, vector(lookup, names.embedding_norm_bias, dim, false));
  }

  w.layers.resize(static_cast<std::size_t>(c.n_layers));
  for (int l = 0; l < c.n_layers; ++l) {
    LayerWeights& layer = w.layers[static_cast<std::size_t>(l)];
    auto name = [&](LayerRole role) { return layer_names(l, role); };
    GLASSBOX_ASSIGN(layer.attn_norm, vector(lookup, name(LayerRole::AttnNorm), dim, true));
    GLASSBOX_ASSIGN(layer.attn_norm_bias, vector(lookup, name(LayerRole::AttnNormBias), dim, false));
    // q, k and v as one fused matrix where the file has one (gpt2, phi3, some others), else apart (llama.cpp
    // reads either for every architecture).
    if (const std::string fused = name(LayerRole::QKV); !fused.empty() && lookup(fused)) {
      Tensor qkv;
      GLASSBOX_ASSIGN(qkv, matrix(lookup, name(LayerRole::QKV), q_dim + 2 * kv_dim, dim));
      layer.wq = rows_of(qkv, 0, q_dim);
      layer.wk = rows_of(qkv, q_dim, kv_dim);
      layer.wv = rows_of(qkv, q_dim + kv_dim, kv_dim);
      Tensor bias;
      GLASSBOX_ASSIGN(bias, vector(lookup, name(LayerRole::QKVBias), q_dim + 2 * kv_dim, false));
      if (bias.present()) {
        layer.bq = rows_of(Tensor{DType::F32, bias.data, q_dim + 2 * kv_dim, 1}, 0, q_dim);
        layer.bk = rows_of(Tensor{DType::F32, bias.data, q_dim + 2 * kv_dim, 1}, q_dim, kv_dim);
        layer.bv = rows_of(Tensor{DType::F32, bias.data, q_dim + 2 * kv_dim, 1}, q_dim + kv_dim, kv_dim);
        for (Tensor* b : {&layer.bq, &layer.bk, &layer.bv})
          *b = Tensor{DType::F32, b->data, 1, b->rows};
      }
    } else {
      GLASSBOX_ASSIGN(layer.wq, matrix(lookup, name(LayerRole::Q), q_dim, dim));
      GLASSBOX_ASSIGN(layer.wk, matrix(lookup, name(LayerRole::K), kv_dim, dim));
      GLASSBOX_ASSIGN(layer.wv, matrix(lookup, name(LayerRole::V), kv_dim, dim));
      GLASSBOX_ASSIGN(layer.bq, vector(lookup, name(LayerRole::QBias), q_dim, false));
      GLASSBOX_ASSIGN(layer.bk, vector(lookup, name(LayerRole::KBias), kv_dim, false));
      GLASSBOX_ASSIGN(layer.bv, vector(lookup, name(LayerRole::VBias), kv_dim, false));
    }
    if (c.qk_norm) {
      GLASSBOX_ASSIGN(layer.q_norm, vector(lookup, name(LayerRole::QNorm), c.head_dim, true));
      GLASSBOX_ASSIGN(layer.k_norm, vector(lookup, name(LayerRole::KNorm), c.head_dim, true));
    }
    GLASSBOX_ASSIGN(layer.wo, matrix(lookup, name(LayerRole::O), dim, q_dim));
    GLASSBOX_ASSIGN(layer.bo, vector(lookup, name(LayerRole::OBias), dim, false));
    const bool sandwich = c.norm_placement == NormPlacement::Sandwich;
    if (sandwich) {
      GLASSBOX_ASSIGN(layer.attn_post_norm, vector(lookup, name(LayerRole::AttnPostNorm), dim, true));
    }
    GLASSBOX_ASSIGN(layer.ffn_norm, vector(lookup, name(LayerRole::FfnNorm), dim, true));
    GLASSBOX_ASSIGN(layer.ffn_norm_bias, vector(lookup, name(LayerRole::FfnNormBias), dim, false));
    if (c.gated_ffn && !name(LayerRole::GateUp).empty()) {
      Tensor gate_up;
      GLASSBOX_ASSIGN(gate_up, matrix(lookup, name(LayerRole::GateUp), 2 * hidden, dim));
      layer.ffn_gate = rows_of(gate_up, 0, hidden);  // the first half is the gate (phi3's fused layout)
      layer.ffn_up = rows_of(gate_up, hidden, hidden);
    } else {
      if (c.gated_ffn) {
        GLASSBOX_ASSIGN(layer.ffn_gate, matrix(lookup, name(LayerRole::Gate), hidden, dim));
        GLASSBOX_ASSIGN(layer.ffn_gate_bias, vector(lookup, name(LayerRole::GateBias), hidden, false));
      }
      GLASSBOX_ASSIGN(layer.ffn_up, matrix(lookup, name(LayerRole::Up), hidden, dim));
      GLASSBOX_ASSIGN(layer.ffn_up_bias, vector(lookup, name(LayerRole::UpBias), hidden, false));
    }
    GLASSBOX_ASSIGN(layer.ffn_down, matrix(lookup, name(LayerRole::Down), dim, hidden));
    GLASSBOX_ASSIGN(layer.ffn_down_bias, vector(lookup, name(LayerRole::DownBias), dim, false));
    if (sandwich) {
      GLASSBOX_ASSIGN(layer.ffn_post_norm, vector(lookup, name(LayerRole::FfnPostNorm), dim, true));
    }
  }

  GLASSBOX_ASSIGN(w.final_norm, vector(lookup, names.final_norm, dim, c.pre_norm()));
  GLASSBOX_ASSIGN(w.final_norm_bias, vector(lookup, names.final_norm_bias, dim, false));
  if (lookup(names.output)) {
    GLASSBOX_ASSIGN(w.output, matrix(lookup, names.output, vocab, dim));
    c.tied_embeddings = false;
  } else {
    w.output = w.token_embedding;
    c.tied_embeddings = true;
  }
  if (!names.mlm_dense.empty() && lookup(names.mlm_dense)) {
    MaskedLmHead& head = w.masked_lm;
    GLASSBOX_ASSIGN(head.dense, matrix(lookup, names.mlm_dense, dim, dim));
    GLASSBOX_ASSIGN(head.dense_bias, vector(lookup, names.mlm_dense_bias, dim, false));
    GLASSBOX_ASSIGN(head.norm, vector(lookup, names.mlm_norm, dim, true));
    GLASSBOX_ASSIGN(head.norm_bias, vector(lookup, names.mlm_norm_bias, dim, false));
    GLASSBOX_ASSIGN(head.output_bias, vector(lookup, names.mlm_output_bias, vocab, false));
  }
  return std::move(model_);
}

}  // namespace glassbox
