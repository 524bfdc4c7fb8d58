// A Model from a GGUF file: the architecture named in general.architecture picks the config and the tensor
// layout, and the weights become views into the file's tensor data. Supported architectures:
//   llama    (Llama 2/3, TinyLlama, SmolLM, stories260K): RMSNorm, RoPE on adjacent pairs, SwiGLU
//   qwen2    Llama plus q/k/v biases, RoPE on half-split pairs
//   phi3     Llama-like with fused qkv and gate+up matrices, half-split RoPE
//   gemma3   sandwich RMSNorms, GeGLU, q/k norm, scaled embeddings, sliding-window layers with their own RoPE
//   gpt2     LayerNorm with biases, learned positions, GELU, fused qkv, biases everywhere
//   bert     encoder: token types, embedding LayerNorm, Post-LN, learned positions, exact GELU, biases
//   nomic-bert  bert's encoder with half-split RoPE, SwiGLU, fused qkv and no feed-forward biases
//   bloom    gpt2's blocks with ALiBi (no position table) and a LayerNorm of the embeddings
//   mpt      LayerNorm (biases optional), fused qkv, GELU, ALiBi with the file's max bias
//   glassbox our own: every ModelConfig choice spelled out in glassbox.* keys (tests/reference/README.md)
// The names of architectures, keys and tensors, and what each architecture fixes, are in gguf_names.hpp,
// which the writer (gguf_export.cpp) shares.
#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>

#include "formats/gguf.hpp"
#include "formats/gguf_names.hpp"
#include "formats/model_builder.hpp"
#include "glassbox/error.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/positions.hpp"
#include "kernels/element_types.hpp"
#include "model/config_names.hpp"

namespace glassbox {
namespace {

// Parses a choice spelled as in model/config_names.hpp; the error lists what is allowed.
template <class T>
Result<T> choice(const GgufFile& file, const std::string& key, T fallback) {
  auto text = file.string(key, choice_name(fallback));
  if (!text) return text.error();
  if (const std::optional<T> value = parse_choice<T>(*text)) return *value;
  std::string allowed;
  for (const ChoiceName<T>& c : choice_names<T>())
    allowed += allowed.empty() ? c.name : std::string(", ") + c.name;
  return error(ErrorCode::Malformed, file.source(), ": metadata ", key, " must be one of ", allowed,
               ", found \"", *text, "\"");
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
// The whole head is ModelConfig's rope_dim 0 however the file says it, as for the other formats.
Result<int> rope_dimension(const GgufFile& file, const std::string& key, int head_dim) {
  if (!file.find(key)) return 0;
  auto v = file.integer_in(key, 2, head_dim);
  if (!v) return v.error();
  if (*v % 2 != 0)
    return error(ErrorCode::Malformed, file.source(), ": metadata ", key,
                 " must be even (RoPE rotates pairs of values), found ", *v);
  return *v == head_dim ? 0 : static_cast<int>(*v);
}

// RoPE scaling, as llama.cpp reads it: a factor (rope.scaling.factor, or the older rope.scale_linear; 0 and 1
// mean none) divides every frequency, and a rope_freqs.weight tensor (Llama 3.1's scaling, as llama.cpp's
// converter stores it) divides each pair's frequency by its own value; both may apply. The result is the
// config's per-pair divisors. YaRN (rope.scaling.type "yarn") blends scaled and kept frequencies by pair and
// scales q and k (yarn_rope_factors, yarn_rope_magnitude: glassbox/positions.hpp). LongRoPE is refused, since
// running it as plain RoPE would silently compute something else.
Result<void> read_rope_scaling(const GgufFile& file, const std::string& arch, ModelConfig& c) {
  const int rotary_dim = c.rotary_dim();
  const std::string type_key = gguf::arch_key(arch, gguf::kRopeScalingType);
  auto type = file.string(type_key, "linear");
  if (!type) return type.error();
  if (*type != "none" && *type != "linear" && *type != "yarn")
    return error(
        ErrorCode::UnsupportedArchitecture, file.source(), ": metadata ", type_key, " is \"", *type,
        "\": glassbox supports linear and YaRN RoPE scaling and Llama 3's rope_freqs, not this kind yet");
  double factor = 1.0;
  if (*type != "none") {
    for (const std::string& key :
         {gguf::arch_key(arch, gguf::kRopeScalingFactor), gguf::arch_key(arch, gguf::kRopeScaleLinear)}) {
      auto value = file.real(key, 0.0);
      if (!value) return value.error();
      if (*value == 0.0) continue;  // absent, or llama.cpp's "no scaling"
      if (!(*value > 0.0 && *value < 1e6))
        return error(ErrorCode::Malformed, file.source(), ": metadata ", key,
                     " must be a positive RoPE scaling factor, found ", *value);
      factor = *value;
      break;
    }
  }
  for (const char* name : gguf::kUnsupportedRopeTensors)
    if (file.tensor(name))
      return error(ErrorCode::UnsupportedArchitecture, file.source(), ": tensor ", name,
                   " scales the RoPE frequencies the LongRoPE way, which glassbox does not support yet");

  const auto pairs = static_cast<std::size_t>(rotary_dim / 2);
  const GgufTensorInfo* freqs = file.tensor(gguf::kRopeFreqs);
  std::vector<float> factors(pairs, static_cast<float>(factor));
  if (*type == "yarn" && factor != 1.0) {
    YarnRopeScaling yarn;
    yarn.factor = factor;
    const std::string original_key = gguf::arch_key(arch, gguf::kRopeScalingOriginalContext);
    auto original = file.integer_in(original_key, 1, int64_t{1} << 30, c.max_seq_len);
    if (!original) return original.error();
    yarn.original_context = static_cast<double>(*original);
    auto attn = file.real(gguf::arch_key(arch, gguf::kRopeScalingAttnFactor), 1.0);
    if (!attn) return attn.error();
    yarn.attn_factor = *attn;
    factors = yarn_rope_factors(c, yarn);
    c.rope_magnitude = yarn_rope_magnitude(yarn);
  }
  if (!freqs && factor == 1.0) {
    c.rope_freq_factors.clear();
    return ok();
  }
  if (freqs) {
    if (freqs->ggml_type != 0 || freqs->dims != std::vector<uint64_t>{pairs})
      return error(ErrorCode::Malformed, file.source(), ": tensor ", gguf::kRopeFreqs,
                   " must be F32 with one value per rotated pair (", pairs, ")");
    for (std::size_t i = 0; i < pairs; ++i) {
      float divisor;
      std::memcpy(&divisor, freqs->data + i * sizeof(float), sizeof(float));
      factors[i] *= divisor;  // validate() checks that each is a positive number
    }
  }
  c.rope_freq_factors = std::move(factors);
  return ok();
}

// Every blk.N tensor must belong to a layer the config has (llama.cpp rejects extra tensors too): a file
// whose block_count is smaller than its layers would otherwise run with layers silently left out.
Result<void> check_layer_tensors(const GgufFile& file, const std::string& arch, int n_layers) {
  for (const GgufTensorInfo& t : file.tensors) {
    if (!t.name.starts_with(gguf::kLayerPrefix)) continue;
    const std::size_t first = gguf::kLayerPrefix.size();
    uint64_t layer = 0;
    std::size_t i = first;
    for (; i < t.name.size() && t.name[i] >= '0' && t.name[i] <= '9' && layer <= UINT32_MAX; ++i)
      layer = layer * 10 + static_cast<uint64_t>(t.name[i] - '0');
    if (i == first) continue;  // not numbered
    if (layer >= static_cast<uint64_t>(n_layers))
      return error(ErrorCode::Malformed, file.source(), ": tensor ", t.name,
                   " belongs to a layer the model does not have: metadata ",
                   gguf::arch_key(arch, gguf::kBlockCount), " is ", n_layers);
  }
  return ok();
}

// Sliding-window attention and the final soft-cap, for the architectures that read them (gemma3, glassbox).
// The pattern is llama.cpp's: an array of per-layer flags, or a number n where the last layer of each group
// of n is global (0: every layer slides); absent, gemma3's 6.
Result<void> read_windows(const GgufFile& file, const gguf::Architecture& arch, ModelConfig& c) {
  const auto key = [&](const char* name) { return gguf::arch_key(arch.name, name); };
  auto window = file.integer_in(key(gguf::kSlidingWindow), 0, int64_t{1} << 30, 0);
  if (!window) return window.error();
  c.sliding_window = static_cast<int>(*window);
  if (c.sliding_window > 0) {
    const std::string pattern_key = key(gguf::kSlidingWindowPattern);
    const GgufValue* pattern = file.find(pattern_key);
    c.sliding_layers.assign(static_cast<std::size_t>(c.n_layers), false);
    if (pattern && pattern->type == GgufType::Array) {
      if (pattern->element_type != GgufType::Bool || pattern->items.size() != c.sliding_layers.size())
        return error(ErrorCode::Malformed, file.source(), ": metadata ", pattern_key,
                     " must be an array of one bool per layer (", c.n_layers, ")");
      for (std::size_t l = 0; l < c.sliding_layers.size(); ++l)
        c.sliding_layers[l] = pattern->items.boolean(l);
    } else {
      auto every = file.integer_in(pattern_key, 0, 1 << 20, gguf::kGemma3SlidingPattern);
      if (!every) return every.error();
      for (int l = 0; l < c.n_layers; ++l)
        c.sliding_layers[static_cast<std::size_t>(l)] = *every == 0 || l % *every < *every - 1;
    }
    // Absent: llama.cpp's 10000 for gemma3; for our own architecture, the global layers' base (0).
    const double fallback = arch.fixed ? gguf::kDefaultRopeFreqBaseSliding : 0.0;
    auto base = file.real(key(gguf::kRopeFreqBaseSliding), fallback);
    if (!base) return base.error();
    c.rope_theta_sliding = static_cast<float>(*base);
  }
  auto cap = file.real(key(gguf::kFinalLogitSoftcap), 0.0);
  if (!cap) return cap.error();
  c.final_logit_softcap = static_cast<float>(*cap);
  return ok();
}

// Whether attention is causal, the pooling, and the token types (rows of token_types.weight, which
// tokenizer.ggml.token_type_count states too), read for every architecture as llama.cpp does.
Result<void> read_encoder_keys(const GgufFile& file, const gguf::Architecture& arch, ModelConfig& c) {
  const bool encoder = arch.fixed && arch.fixed->encoder;
  GLASSBOX_ASSIGN(c.causal, file.boolean(gguf::arch_key(arch.name, gguf::kCausalAttention), !encoder));
  const std::string pooling_key = gguf::arch_key(arch.name, gguf::kPoolingType);
  auto pooling = file.integer_in(pooling_key, -1, 1 << 20, 0);
  if (!pooling) return pooling.error();
  bool known = *pooling == -1;  // llama.cpp's "unspecified"
  for (const gguf::PoolingTypeCode& p : gguf::kPoolingTypes)
    if (p.code == *pooling) {
      c.pooling = p.pooling;
      known = true;
    }
  if (!known)
    return error(
        ErrorCode::UnsupportedArchitecture, file.source(), ": metadata ", pooling_key, " is ", *pooling,
        ": glassbox pools by mean (1) or [CLS] (2), not by the last token (3) or a ranking head (4) yet");
  GLASSBOX_ASSIGN(c.normalize_embedding,
                  file.boolean(gguf::arch_key(arch.name, gguf::kNormalizeEmbedding), false));
  if (const GgufTensorInfo* types = file.tensor(gguf::kTokenTypes)) {
    if (types->dims.size() != 2)
      return error(ErrorCode::Malformed, file.source(), ": tensor ", gguf::kTokenTypes,
                   " must have 2 dimensions, found ", types->dims.size());
    c.n_token_types = static_cast<int>(std::min<uint64_t>(types->dims[1], INT32_MAX));
  }
  return ok();
}

// mpt's positions, as llama.cpp reads them: ALiBi where attention.max_alibi_bias is above 0, else the learned
// table where the file has one, else none. Both at once, MPT's clamp of q, k and v and its LayerNorm of all
// queries and keys are refused: running without them would compute something else.
Result<void> read_mpt_positions(const GgufFile& file, const gguf::Architecture& arch, ModelConfig& c) {
  const std::string max_bias_key = gguf::arch_key(arch.name, gguf::kMaxAlibiBias);
  auto max_bias = file.real(max_bias_key, 0.0);
  if (!max_bias) return max_bias.error();
  const bool table = file.tensor(gguf::kPositionEmbedding) != nullptr;
  if (*max_bias > 0.0 && table)
    return error(ErrorCode::UnsupportedArchitecture, file.source(), ": ", max_bias_key,
                 " asks for ALiBi and ", gguf::kPositionEmbedding,
                 " adds learned positions too: glassbox runs one or the other");
  c.position = *max_bias > 0.0 ? PositionKind::ALiBi : table ? PositionKind::Learned : PositionKind::None;
  const std::string clamp_key = gguf::arch_key(arch.name, gguf::kClampKqv);
  if (file.find(clamp_key))
    return error(ErrorCode::UnsupportedArchitecture, file.source(), ": metadata ", clamp_key,
                 " clamps q, k and v (MPT's clip_qkv), which glassbox does not support yet");
  if (file.tensor(gguf::kUnsupportedMptQkNorm))
    return error(
        ErrorCode::UnsupportedArchitecture, file.source(), ": tensor ", gguf::kUnsupportedMptQkNorm,
        " normalizes all queries and keys at once (MPT's qk_ln), which glassbox does not support yet");
  return ok();
}

Result<ModelConfig> read_config(const GgufFile& file, const gguf::Architecture& arch) {
  const auto key = [&](const char* name) { return gguf::arch_key(arch.name, name); };
  ModelConfig c;
  c.architecture = arch.name;
  GLASSBOX_ASSIGN(c.dim, positive(file, key(gguf::kEmbeddingLength)));
  GLASSBOX_ASSIGN(c.hidden_dim, positive(file, key(gguf::kFeedForwardLength)));
  GLASSBOX_ASSIGN(c.n_layers, positive(file, key(gguf::kBlockCount)));
  GLASSBOX_ASSIGN(c.n_heads, positive(file, key(gguf::kHeadCount)));
  GLASSBOX_ASSIGN(c.n_kv_heads, positive(file, key(gguf::kHeadCountKv), c.n_heads));
  GLASSBOX_ASSIGN(c.max_seq_len, positive(file, key(gguf::kContextLength)));
  // Each head's width: dim / n_heads unless attention.key_length says otherwise (Qwen3, Gemma 3), and values
  // as wide as keys (llama.cpp allows them to differ; no model glassbox targets does).
  GLASSBOX_ASSIGN(c.head_dim, positive(file, key(gguf::kKeyLength), std::max(1, c.dim / c.n_heads)));
  GLASSBOX_ASSIGN(const int value_dim, positive(file, key(gguf::kValueLength), c.head_dim));
  if (value_dim != c.head_dim)
    return error(ErrorCode::UnsupportedArchitecture, file.source(), ": metadata ", key(gguf::kValueLength),
                 " is ", value_dim, " but ", key(gguf::kKeyLength), " is ", c.head_dim,
                 ": glassbox needs values as wide as keys");

  auto eps = file.real(key(arch.norm_eps_key), 1e-5);
  if (!eps) return eps.error();
  c.norm_eps = static_cast<float>(*eps);
  auto theta = file.real(key(gguf::kRopeFreqBase), 10000.0);
  if (!theta) return theta.error();
  c.rope_theta = static_cast<float>(*theta);
  GLASSBOX_ASSIGN(c.rope_dim, rope_dimension(file, key(gguf::kRopeDimensionCount), c.head_dim));

  if (arch.fixed) {
    const gguf::FixedChoices& f = *arch.fixed;
    c.norm = f.norm;
    c.norm_placement = f.placement;
    c.position = f.position;
    c.rope_pairing = f.pairing;
    c.activation = f.activation;
    c.gated_ffn = f.gated_ffn;
    c.qk_norm = f.qk_norm;
    c.scaled_embeddings = f.scaled_embeddings;
    c.embedding_norm = f.encoder || f.embedding_norm;
    if (f.windowed) GLASSBOX_TRY(read_windows(file, arch, c));
  } else {
    // Our own architecture: each choice is a key (absent: the Llama choice).
    GLASSBOX_ASSIGN(c.norm, choice(file, key(gguf::kNorm), NormKind::RMSNorm));
    GLASSBOX_ASSIGN(c.norm_placement, choice(file, key(gguf::kNormPlacement), NormPlacement::PreNorm));
    GLASSBOX_ASSIGN(c.position, choice(file, key(gguf::kPosition), PositionKind::RoPE));
    GLASSBOX_ASSIGN(c.rope_pairing, choice(file, key(gguf::kRopePairing), RopePairing::Adjacent));
    GLASSBOX_ASSIGN(c.activation, choice(file, key(gguf::kActivation), Activation::SiLU));
    GLASSBOX_ASSIGN(c.gated_ffn, file.boolean(key(gguf::kFfnGated), true));
    GLASSBOX_ASSIGN(c.qk_norm, file.boolean(key(gguf::kQkNorm), false));
    GLASSBOX_ASSIGN(c.scaled_embeddings, file.boolean(key(gguf::kScaledEmbeddings), false));
    GLASSBOX_TRY(read_windows(file, arch, c));
    c.embedding_norm = file.tensor(gguf::kTokenEmbeddingNorm) != nullptr;
  }
  GLASSBOX_TRY(read_encoder_keys(file, arch, c));
  if (arch.positions_from_file) GLASSBOX_TRY(read_mpt_positions(file, arch, c));
  if (c.position == PositionKind::ALiBi) {
    auto max_bias = file.real(key(gguf::kMaxAlibiBias), gguf::kDefaultMaxAlibiBias);
    if (!max_bias) return max_bias.error();
    c.alibi_max_bias = static_cast<float>(*max_bias);  // validate() checks that it is positive
  }
  if (c.position == PositionKind::RoPE) {
    GLASSBOX_TRY(read_rope_scaling(file, arch.name, c));
    if (!arch.fixed) {
      auto magnitude = file.real(key(gguf::kRopeMagnitude), c.rope_magnitude);
      if (!magnitude) return magnitude.error();
      c.rope_magnitude = static_cast<float>(*magnitude);
    }
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
  auto arch_name = file.string(gguf::kArchitectureKey);
  if (!arch_name) return arch_name.error();
  const gguf::Architecture* arch = gguf::architecture_named(*arch_name);
  if (!arch)
    return error(ErrorCode::UnsupportedArchitecture, file.source(), ": architecture \"", *arch_name,
                 "\" is not supported (glassbox runs ", gguf::architecture_list(), ")");
  if (file.tensors.empty())  // a whole, valid file: only not a model
    return error(ErrorCode::NotAModel, file.source(),
                 ": the file has no tensors (a vocabulary-only GGUF is a tokenizer, not a model)");
  auto config = read_config(file, *arch);
  if (!config) return config.error();
  GLASSBOX_TRY(check_layer_tensors(file, arch->name, config->n_layers));

  const GgufTensorInfo* embedding = file.tensor(gguf::kTokenEmbedding);
  if (!embedding)
    return error(ErrorCode::Malformed, file.source(), ": tensor ", gguf::kTokenEmbedding, " is missing");
  if (embedding->dims.size() != 2)
    return error(ErrorCode::Malformed, file.source(), ": tensor ", gguf::kTokenEmbedding,
                 " must have 2 dimensions, found ", embedding->dims.size());
  config->vocab_size = static_cast<int>(std::min<uint64_t>(embedding->dims[1], INT32_MAX));
  config->tied_embeddings = file.tensor(gguf::kOutput) == nullptr;

  ModelBuilder builder(std::move(*config), file.source());
  builder.keep(file.bytes);
  const auto lookup = [&](const std::string& name) -> std::optional<TensorSource> {
    const GgufTensorInfo* t = file.tensor(name);
    if (!t) return std::nullopt;
    const ElementType* type = ggml_element_type(t->ggml_type);  // the reader only keeps known types
    return TensorSource{t->data, t->dims, type ? type->dtype : std::nullopt, type ? type->name : "?"};
  };
  return builder.build(lookup,
                       [&](int layer, LayerRole role) { return gguf::layer_tensor_name(*arch, layer, role); },
                       {.token_embedding = gguf::kTokenEmbedding,
                        .position_embedding = gguf::kPositionEmbedding,
                        .final_norm = gguf::kOutputNorm,
                        .final_norm_bias = gguf::kOutputNormBias,
                        .output = gguf::kOutput,
                        .token_type_embedding = gguf::kTokenTypes,
                        .embedding_norm = gguf::kTokenEmbeddingNorm,
                        .embedding_norm_bias = gguf::kTokenEmbeddingNormBias,
                        .mlm_dense = gguf::kMaskedLmDense,
                        .mlm_dense_bias = gguf::kMaskedLmDenseBias,
                        .mlm_norm = gguf::kMaskedLmNorm,
                        .mlm_norm_bias = gguf::kMaskedLmNormBias,
                        .mlm_output_bias = gguf::kMaskedLmOutputBias});
}

}  // namespace glassbox
