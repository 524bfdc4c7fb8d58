// A Model from a GGUF file: the architecture named in general.architecture picks the config and the tensor
// layout, and the weights become views into the file's tensor data. Supported architectures:
//   llama    (Llama 2/3, TinyLlama, SmolLM, stories260K): RMSNorm, RoPE on adjacent pairs, SwiGLU
//   qwen2    Llama plus q/k/v biases, RoPE on half-split pairs
//   phi3     Llama-like with fused qkv and gate+up matrices, half-split RoPE
//   gpt2     LayerNorm with biases, learned positions, GELU, fused qkv, biases everywhere
//   glassbox our own: every ModelConfig choice spelled out in glassbox.* keys (tests/reference/README.md)
#include <functional>
#include <optional>

#include "formats/gguf.hpp"
#include "formats/model_builder.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/error.hpp"

namespace glassbox {
namespace {

struct Hyper {
  std::string arch;
  const GgufFile& file;
  std::string key(const char* name) const { return arch + "." + name; }
};

// Parses a string choice; the error lists what is allowed.
template <class T>
Result<T> choice(const GgufFile& file, const std::string& key, const std::string& fallback,
                 std::initializer_list<std::pair<const char*, T>> options) {
  auto text = file.string(key, fallback);
  if (!text) return text.error();
  std::string allowed;
  for (const auto& [name, value] : options) {
    if (*text == name) return value;
    allowed += allowed.empty() ? name : std::string(", ") + name;
  }
  return error(ErrorCode::Malformed, file.source(), ": metadata ", key, " must be one of ", allowed, ", found \"", *text, "\"");
}

// A size hyper-parameter of any GGUF integer type, range-checked before it becomes an int (the error names
// the key and the value found, so 2^32 + 4 is not read as 4 nor -4 as a huge uint).
Result<int> positive(const GgufFile& file, const std::string& key, std::optional<int64_t> fallback = {}) {
  constexpr int64_t kMax = int64_t{1} << 30;
  auto v = fallback ? file.integer_in(key, 1, kMax, *fallback) : file.integer_in(key, 1, kMax);
  if (!v) return v.error();
  return static_cast<int>(*v);
}

// <arch>.rope.dimension_count: absent means the whole head rotates; present, an even number in 2..head_dim.
Result<int> rope_dimension(const GgufFile& file, const std::string& key, int head_dim) {
  if (!file.find(key)) return 0;
  auto v = file.integer_in(key, 2, head_dim);
  if (!v) return v.error();
  if (*v % 2 != 0)
    return error(ErrorCode::Malformed, file.source(), ": metadata ", key, " must be even (RoPE rotates pairs of values), found ",
                 *v);
  return static_cast<int>(*v);
}

// RoPE scaling (linear, YaRN, LongRoPE, Llama 3's rope_freqs) changes the rotation angles; glassbox does not
// implement it yet, and running such a file with plain RoPE would silently compute something else.
Result<void> reject_rope_scaling(const GgufFile& file, const std::string& arch) {
  const std::string type_key = arch + ".rope.scaling.type";
  auto type = file.string(type_key, "none");
  if (!type) return type.error();
  if (*type != "none")
    return error(ErrorCode::UnsupportedArchitecture, file.source(), ": metadata ", type_key, " is \"", *type,
                 "\": glassbox does not support RoPE scaling yet");
  // llama.cpp reads a factor of 0 as "no scaling", like 1; rope.scale_linear is the older name.
  for (const std::string& key : {arch + ".rope.scaling.factor", arch + ".rope.scale_linear"}) {
    auto factor = file.real(key, 1.0);
    if (!factor) return factor.error();
    if (*factor != 1.0 && *factor != 0.0)
      return error(ErrorCode::UnsupportedArchitecture, file.source(), ": metadata ", key, " is ", *factor,
                   ": glassbox does not support RoPE scaling yet (only 1 means no scaling)");
  }
  for (const char* name : {"rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight"})
    if (file.tensor(name))
      return error(ErrorCode::UnsupportedArchitecture, file.source(), ": tensor ", name,
                   " scales the RoPE frequencies, which glassbox does not support yet");
  return ok();
}

// Every blk.N tensor must belong to a layer the config has (llama.cpp rejects extra tensors too): a file
// whose block_count is smaller than its layers would otherwise run with layers silently left out.
Result<void> check_layer_tensors(const GgufFile& file, const std::string& arch, int n_layers) {
  for (const GgufTensorInfo& t : file.tensors) {
    if (t.name.rfind("blk.", 0) != 0) continue;
    uint64_t layer = 0;
    std::size_t i = 4;
    for (; i < t.name.size() && t.name[i] >= '0' && t.name[i] <= '9' && layer <= UINT32_MAX; ++i)
      layer = layer * 10 + static_cast<uint64_t>(t.name[i] - '0');
    if (i == 4) continue;  // not numbered
    if (layer >= static_cast<uint64_t>(n_layers))
      return error(ErrorCode::Malformed, file.source(), ": tensor ", t.name,
                   " belongs to a layer the model does not have: metadata ", arch, ".block_count is ",
                   n_layers);
  }
  return ok();
}

Result<ModelConfig> read_config(const GgufFile& file, const std::string& arch) {
  const Hyper h{arch, file};
  ModelConfig c;
  c.architecture = arch;
  auto dim = positive(file, h.key("embedding_length"));
  if (!dim) return dim.error();
  auto hidden = positive(file, h.key("feed_forward_length"));
  if (!hidden) return hidden.error();
  auto layers = positive(file, h.key("block_count"));
  if (!layers) return layers.error();
  auto heads = positive(file, h.key("attention.head_count"));
  if (!heads) return heads.error();
  auto kv_heads = positive(file, h.key("attention.head_count_kv"), *heads);
  if (!kv_heads) return kv_heads.error();
  auto context = positive(file, h.key("context_length"));
  if (!context) return context.error();
  c.dim = *dim;
  c.hidden_dim = *hidden;
  c.n_layers = *layers;
  c.n_heads = *heads;
  c.n_kv_heads = *kv_heads;
  c.max_seq_len = *context;
  c.head_dim = c.dim / c.n_heads;

  const bool layer_norm_arch = arch == "gpt2";
  const char* eps_key = layer_norm_arch ? "attention.layer_norm_epsilon" : "attention.layer_norm_rms_epsilon";
  if (arch == "glassbox") eps_key = "attention.layer_norm_epsilon";
  auto eps = file.real(h.key(eps_key), 1e-5);
  if (!eps) return eps.error();
  c.norm_eps = static_cast<float>(*eps);
  auto theta = file.real(h.key("rope.freq_base"), 10000.0);
  if (!theta) return theta.error();
  c.rope_theta = static_cast<float>(*theta);
  auto rope_dim = rope_dimension(file, h.key("rope.dimension_count"), c.head_dim);
  if (!rope_dim) return rope_dim.error();
  c.rope_dim = *rope_dim;
  GLASSBOX_TRY(reject_rope_scaling(file, arch));

  if (arch == "llama" || arch == "qwen2" || arch == "phi3") {
    c.norm = NormKind::RMSNorm;
    c.position = PositionKind::RoPE;
    // llama.cpp's converter permutes Llama's q/k rows so that "normal" (adjacent-pair) RoPE applies; qwen2
    // and phi3 are stored as trained, in NeoX's half-split pairing.
    c.rope_pairing = arch == "llama" ? RopePairing::Adjacent : RopePairing::HalfSplit;
    c.activation = Activation::SiLU;
    c.gated_ffn = true;
  } else if (arch == "gpt2") {
    c.norm = NormKind::LayerNorm;
    c.position = PositionKind::Learned;
    c.activation = Activation::GELU;
    c.gated_ffn = false;
  } else {  // glassbox
    auto norm = choice<NormKind>(file, h.key("norm"), "rmsnorm",
                                 {{"rmsnorm", NormKind::RMSNorm}, {"layernorm", NormKind::LayerNorm}});
    if (!norm) return norm.error();
    auto placement =
        choice<NormPlacement>(file, h.key("norm_placement"), "pre",
                              {{"pre", NormPlacement::PreNorm}, {"post", NormPlacement::PostNorm}});
    if (!placement) return placement.error();
    auto position = choice<PositionKind>(file, h.key("position"), "rope",
                                         {{"rope", PositionKind::RoPE},
                                          {"learned", PositionKind::Learned},
                                          {"sinusoidal", PositionKind::Sinusoidal},
                                          {"none", PositionKind::None}});
    if (!position) return position.error();
    auto pairing =
        choice<RopePairing>(file, h.key("rope.pairing"), "adjacent",
                            {{"adjacent", RopePairing::Adjacent}, {"half", RopePairing::HalfSplit}});
    if (!pairing) return pairing.error();
    auto activation = choice<Activation>(
        file, h.key("activation"), "silu",
        {{"silu", Activation::SiLU}, {"gelu", Activation::GELU}, {"relu", Activation::ReLU}});
    if (!activation) return activation.error();
    auto gated = file.boolean(h.key("ffn_gated"), true);
    if (!gated) return gated.error();
    c.norm = *norm;
    c.norm_placement = *placement;
    c.position = *position;
    c.rope_pairing = *pairing;
    c.activation = *activation;
    c.gated_ffn = *gated;
  }
  return c;
}

}  // namespace

Result<Model> read_gguf_model(std::shared_ptr<const Bytes> bytes) {
  auto file = read_gguf(bytes);
  if (!file) return file.error();
  return model_from_gguf(*file);
}

Result<Model> model_from_gguf(const GgufFile& file) {
  auto arch = file.string("general.architecture");
  if (!arch) return arch.error();
  if (*arch != "llama" && *arch != "qwen2" && *arch != "phi3" && *arch != "gpt2" && *arch != "glassbox")
    return error(ErrorCode::UnsupportedArchitecture, file.source(), ": architecture \"", *arch,
                 "\" is not supported (glassbox runs llama, qwen2, phi3, gpt2 and glassbox)");
  if (file.tensors.empty())
    return error(ErrorCode::Malformed, file.source(),
                 ": the file has no tensors (a vocabulary-only GGUF is a tokenizer, not a model)");
  auto config = read_config(file, *arch);
  if (!config) return config.error();
  GLASSBOX_TRY(check_layer_tensors(file, *arch, config->n_layers));

  const GgufTensorInfo* embedding = file.tensor("token_embd.weight");
  if (!embedding) return error(ErrorCode::Malformed, file.source(), ": tensor token_embd.weight is missing");
  if (embedding->dims.size() != 2)
    return error(ErrorCode::Malformed, file.source(), ": tensor token_embd.weight must have 2 dimensions, found ",
                 embedding->dims.size());
  config->vocab_size = static_cast<int>(std::min<uint64_t>(embedding->dims[1], INT32_MAX));
  config->tied_embeddings = file.tensor("output.weight") == nullptr;

  ModelBuilder builder(std::move(*config), file.source());
  builder.keep(file.bytes);
  const auto lookup = [&](const std::string& name) -> std::optional<TensorSource> {
    const GgufTensorInfo* t = file.tensor(name);
    if (!t) return std::nullopt;
    DType type;
    const bool supported = dtype_for_ggml_type(t->ggml_type, &type);
    const GgmlTypeInfo* info = ggml_type_info(t->ggml_type);
    return TensorSource{t->data, t->dims, supported ? std::optional<DType>(type) : std::nullopt,
                        info ? info->name : "?"};
  };
  const std::string& a = *arch;
  const bool fused_qkv = a == "gpt2" || a == "phi3";
  const bool fused_gate_up = a == "phi3";
  return builder.build(lookup,
                       [&](int layer, LayerRole role) -> std::string {
                         const std::string blk = "blk." + std::to_string(layer) + ".";
                         switch (role) {
                           case LayerRole::AttnNorm:
                             return blk + "attn_norm.weight";
                           case LayerRole::AttnNormBias:
                             return blk + "attn_norm.bias";
                           case LayerRole::Q:
                             return fused_qkv ? "" : blk + "attn_q.weight";
                           case LayerRole::K:
                             return fused_qkv ? "" : blk + "attn_k.weight";
                           case LayerRole::V:
                             return fused_qkv ? "" : blk + "attn_v.weight";
                           case LayerRole::QBias:
                             return fused_qkv ? "" : blk + "attn_q.bias";
                           case LayerRole::KBias:
                             return fused_qkv ? "" : blk + "attn_k.bias";
                           case LayerRole::VBias:
                             return fused_qkv ? "" : blk + "attn_v.bias";
                           case LayerRole::QKV:
                             return fused_qkv ? blk + "attn_qkv.weight" : "";
                           case LayerRole::QKVBias:
                             return fused_qkv ? blk + "attn_qkv.bias" : "";
                           case LayerRole::O:
                             return blk + "attn_output.weight";
                           case LayerRole::OBias:
                             return blk + "attn_output.bias";
                           case LayerRole::FfnNorm:
                             return blk + "ffn_norm.weight";
                           case LayerRole::FfnNormBias:
                             return blk + "ffn_norm.bias";
                           case LayerRole::Gate:
                             return fused_gate_up ? "" : blk + "ffn_gate.weight";
                           case LayerRole::GateBias:
                             return fused_gate_up ? "" : blk + "ffn_gate.bias";
                           case LayerRole::Up:
                             return fused_gate_up ? "" : blk + "ffn_up.weight";
                           case LayerRole::UpBias:
                             return fused_gate_up ? "" : blk + "ffn_up.bias";
                           case LayerRole::GateUp:
                             return fused_gate_up ? blk + "ffn_up.weight" : "";
                           case LayerRole::Down:
                             return blk + "ffn_down.weight";
                           case LayerRole::DownBias:
                             return blk + "ffn_down.bias";
                         }
                         return "";
                       },
                       {.token_embedding = "token_embd.weight",
                        .position_embedding = "position_embd.weight",
                        .final_norm = "output_norm.weight",
                        .final_norm_bias = "output_norm.bias",
                        .output = "output.weight"});
}

}  // namespace glassbox
