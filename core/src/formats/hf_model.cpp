// A Model from a Hugging Face folder: config.json + model.safetensors (or shards listed in
// model.safetensors.index.json). Supported: GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM,
// Qwen3ForCausalLM, and the encoders BertModel and BertForMaskedLM, also as a sentence-transformers folder
// (modules.json: its pooling in 1_Pooling/config.json, and whether a Normalize module follows).
// Weights stay views into the memory-mapped files, except GPT-2's Conv1D matrices, which Hugging Face stores
// transposed ([in][out]) and which are therefore transposed once into float32 at load time.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>

#include "formats/json_fields.hpp"
#include "formats/model_builder.hpp"
#include "formats/safetensors.hpp"
#include "glassbox/error.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/positions.hpp"
#include "kernels/quantized.hpp"
#include "model/dtype.hpp"

namespace glassbox {
namespace {

namespace fs = std::filesystem;

Result<void> read_json_file(const std::string& path, json::Document& doc) {
  GLASSBOX_ASSIGN(const std::shared_ptr<const Bytes> bytes, map_file(path));
  return json::parse(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path,
                     doc);
}

// config.json's settings, as the model needs them; errors name the key.
struct ConfigReader {
  const json::Value& json;
  json::Fields fields;

  // A size or count: a whole number in 1..INT32_MAX.
  Result<int> count(const char* key, std::optional<int64_t> fallback = std::nullopt) const {
    GLASSBOX_ASSIGN(const int64_t n, fields.whole_number(json, "", key, 1, INT32_MAX, fallback));
    return static_cast<int>(n);
  }
  // A finite number a float can hold.
  Result<double> number(const char* key, double fallback) const {
    GLASSBOX_ASSIGN(const std::optional<double> value, fields.number(json, "", key));
    if (!value) return fallback;
    if (!(std::fabs(*value) <= FLT_MAX))
      return fields.fail(key, " must be a finite float32 number, found ", *value);
    return *value;
  }
  Result<bool> boolean(const char* key, bool fallback) const { return fields.flag(json, "", key, fallback); }
  // Names: anything but a string counts as absent.
  std::string string(const char* key, const std::string& fallback) const {
    const json::Value* v = json::find(json, key);
    return v && v->IsString() ? std::string(json::text_of(*v)) : fallback;
  }
  const std::string& source() const { return fields.source(); }
};

Result<std::string> architecture_of(const ConfigReader& r) {
  const json::Value* list = json::find(r.json, "architectures");
  if (list && list->IsArray() && !list->Empty() && (*list)[0].IsString())
    return std::string(json::text_of((*list)[0]));
  const std::string type = r.string("model_type", "");
  if (type == "gpt2") return std::string("GPT2LMHeadModel");
  if (type == "llama") return std::string("LlamaForCausalLM");
  if (type == "qwen2") return std::string("Qwen2ForCausalLM");
  if (type == "qwen3") return std::string("Qwen3ForCausalLM");
  if (type == "bert") return std::string("BertModel");
  return error(ErrorCode::Malformed, r.source(),
               ": neither architectures nor a known model_type says what model this is");
}

// The head counts must split the width evenly; the error names the config.json keys.
Result<void> check_heads(const ConfigReader& r, const char* dim_key, int dim, const char* heads_key,
                         int heads, const char* kv_key, int kv_heads) {
  if (dim % heads != 0)
    return error(ErrorCode::Malformed, r.source(), ": ", heads_key, " (", heads, ") must divide ", dim_key,
                 " (", dim, ")");
  if (kv_key && heads % kv_heads != 0)
    return error(ErrorCode::Malformed, r.source(), ": ", kv_key, " (", kv_heads, ") must divide ", heads_key,
                 " (", heads, ")");
  return ok();
}

Result<ModelConfig> gpt2_config(const ConfigReader& r) {
  ModelConfig c;
  c.architecture = "gpt2";
  GLASSBOX_ASSIGN(c.dim, r.count("n_embd"));
  GLASSBOX_ASSIGN(c.n_layers, r.count("n_layer"));
  GLASSBOX_ASSIGN(c.n_heads, r.count("n_head"));
  GLASSBOX_ASSIGN(c.max_seq_len, r.count("n_positions"));
  GLASSBOX_ASSIGN(c.vocab_size, r.count("vocab_size"));
  GLASSBOX_ASSIGN(c.hidden_dim, r.count("n_inner", int64_t{4} * c.dim));
  GLASSBOX_TRY(check_heads(r, "n_embd", c.dim, "n_head", c.n_heads, nullptr, 0));
  GLASSBOX_ASSIGN(const double eps, r.number("layer_norm_epsilon", 1e-5));
  const std::string act = r.string("activation_function", "gelu_new");
  if (act != "gelu_new" && act != "gelu_pytorch_tanh" && act != "gelu_fast")
    return error(ErrorCode::UnsupportedArchitecture, r.source(), ": activation_function \"", act,
                 "\" is not supported (glassbox has GELU's tanh form)");
  c.n_kv_heads = c.n_heads;
  c.head_dim = c.dim / c.n_heads;
  c.norm = NormKind::LayerNorm;
  c.norm_eps = static_cast<float>(eps);
  c.position = PositionKind::Learned;
  c.activation = Activation::GELU;
  c.gated_ffn = false;
  return c;
}

Result<ModelConfig> bert_config(const ConfigReader& r) {
  ModelConfig c;
  c.architecture = "bert";
  GLASSBOX_ASSIGN(c.dim, r.count("hidden_size"));
  GLASSBOX_ASSIGN(c.n_layers, r.count("num_hidden_layers"));
  GLASSBOX_ASSIGN(c.n_heads, r.count("num_attention_heads"));
  GLASSBOX_ASSIGN(c.hidden_dim, r.count("intermediate_size"));
  GLASSBOX_ASSIGN(c.max_seq_len, r.count("max_position_embeddings"));
  GLASSBOX_ASSIGN(c.vocab_size, r.count("vocab_size"));
  GLASSBOX_ASSIGN(c.n_token_types, r.count("type_vocab_size", 2));
  GLASSBOX_TRY(check_heads(r, "hidden_size", c.dim, "num_attention_heads", c.n_heads, nullptr, 0));
  GLASSBOX_ASSIGN(const double eps, r.number("layer_norm_eps", 1e-12));
  const std::string act = r.string("hidden_act", "gelu");
  if (act != "gelu")
    return error(ErrorCode::UnsupportedArchitecture, r.source(), ": hidden_act \"", act,
                 "\" is not supported (glassbox runs BERT's exact GELU, \"gelu\")");
  const std::string positions = r.string("position_embedding_type", "absolute");
  if (positions != "absolute")
    return error(ErrorCode::UnsupportedArchitecture, r.source(), ": position_embedding_type \"", positions,
                 "\" is not supported (glassbox reads BERT's learned absolute positions)");
  c.n_kv_heads = c.n_heads;
  c.head_dim = c.dim / c.n_heads;
  c.norm = NormKind::LayerNorm;
  c.norm_placement = NormPlacement::PostNorm;
  c.norm_eps = static_cast<float>(eps);
  c.position = PositionKind::Learned;
  c.activation = Activation::GELUExact;
  c.gated_ffn = false;
  c.causal = false;
  c.embedding_norm = true;
  return c;
}

// A sentence-transformers folder's pooling (1_Pooling/config.json) and whether its embeddings are
// L2-normalized (a Normalize module in modules.json). Nothing where the folder has no modules.json.
Result<void> read_sentence_transformers(const fs::path& folder, ModelConfig& c) {
  const fs::path modules_path = folder / "modules.json";
  if (!fs::exists(modules_path)) return ok();
  json::Document modules;
  GLASSBOX_TRY(read_json_file(modules_path.string(), modules));
  if (!modules.IsArray())
    return error(ErrorCode::Malformed, modules_path.string(), ": must be a list of modules");
  for (const json::Value& module : modules.GetArray()) {
    const json::Value* type = json::find(module, "type");
    const json::Value* path = json::find(module, "path");
    if (!type || !type->IsString()) continue;
    const std::string_view kind = json::text_of(*type);
    if (kind.ends_with("Normalize")) c.normalize_embedding = true;
    if (!kind.ends_with("Pooling") || !path || !path->IsString()) continue;
    const std::string pooling_path = (folder / json::text_of(*path) / "config.json").string();
    json::Document pooling;
    GLASSBOX_TRY(read_json_file(pooling_path, pooling));
    const ConfigReader r{pooling, json::Fields(pooling_path)};
    GLASSBOX_ASSIGN(const bool cls, r.boolean("pooling_mode_cls_token", false));
    GLASSBOX_ASSIGN(const bool mean, r.boolean("pooling_mode_mean_tokens", false));
    if (cls == mean)
      return error(ErrorCode::UnsupportedArchitecture, pooling_path,
                   ": glassbox pools by exactly one of pooling_mode_cls_token and pooling_mode_mean_tokens");
    c.pooling = cls ? Pooling::Cls : Pooling::Mean;
  }
  return ok();
}

// BERT's tensors by role: Post-LN, so attention's LayerNorm follows its output and the layer's follows the
// feed-forward.
std::string bert_layer_tensor(int layer, LayerRole role) {
  const std::string l = "encoder.layer." + std::to_string(layer) + ".";
  switch (role) {
    case LayerRole::Q:
      return l + "attention.self.query.weight";
    case LayerRole::QBias:
      return l + "attention.self.query.bias";
    case LayerRole::K:
      return l + "attention.self.key.weight";
    case LayerRole::KBias:
      return l + "attention.self.key.bias";
    case LayerRole::V:
      return l + "attention.self.value.weight";
    case LayerRole::VBias:
      return l + "attention.self.value.bias";
    case LayerRole::O:
      return l + "attention.output.dense.weight";
    case LayerRole::OBias:
      return l + "attention.output.dense.bias";
    case LayerRole::AttnNorm:
      return l + "attention.output.LayerNorm.weight";
    case LayerRole::AttnNormBias:
      return l + "attention.output.LayerNorm.bias";
    case LayerRole::Up:
      return l + "intermediate.dense.weight";
    case LayerRole::UpBias:
      return l + "intermediate.dense.bias";
    case LayerRole::Down:
      return l + "output.dense.weight";
    case LayerRole::DownBias:
      return l + "output.dense.bias";
    case LayerRole::FfnNorm:
      return l + "output.LayerNorm.weight";
    case LayerRole::FfnNormBias:
      return l + "output.LayerNorm.bias";
    default:
      return "";
  }
}

// A positive number in rope_scaling; errors name rope_scaling.<key>.
Result<double> scaling_number(const ConfigReader& r, const json::Value& scaling, const char* key) {
  GLASSBOX_ASSIGN(const std::optional<double> value, r.fields.number(scaling, "rope_scaling", key));
  if (!value) return r.fields.fail("rope_scaling.", key, " is missing");
  if (!(*value > 0 && *value < 1e9))
    return r.fields.fail("rope_scaling.", key, " must be positive, found ", *value);
  return *value;
}

// config.json's rope_scaling as per-pair frequency divisors: absent, null or rope_type "default" is none;
// "linear" divides every frequency by `factor`; "llama3" is Llama 3.1's scaling (llama3_rope_factors). Other
// kinds (yarn, dynamic, longrope) change more than the frequencies and are refused.
Result<std::vector<float>> rope_factors(const ConfigReader& r, const ModelConfig& c) {
  GLASSBOX_ASSIGN(const json::Value* scaling, r.fields.object(r.json, "", "rope_scaling"));
  if (!scaling) return std::vector<float>{};
  // Older configs call rope_type "type".
  GLASSBOX_ASSIGN(std::string type, r.fields.text(*scaling, "rope_scaling", "rope_type", ""));
  if (type.empty()) {
    GLASSBOX_ASSIGN(type, r.fields.text(*scaling, "rope_scaling", "type", "default"));
  }
  if (type == "default") return std::vector<float>{};
  if (type != "linear" && type != "llama3")
    return error(ErrorCode::UnsupportedArchitecture, r.source(), ": rope_scaling type \"", type,
                 "\" is not supported (glassbox supports linear and llama3)");
  GLASSBOX_ASSIGN(const double factor, scaling_number(r, *scaling, "factor"));
  if (type == "linear")
    return std::vector<float>(static_cast<std::size_t>(c.rotary_dim() / 2), static_cast<float>(factor));
  Llama3RopeScaling llama3;
  llama3.factor = factor;
  GLASSBOX_ASSIGN(llama3.low_freq_factor, scaling_number(r, *scaling, "low_freq_factor"));
  GLASSBOX_ASSIGN(llama3.high_freq_factor, scaling_number(r, *scaling, "high_freq_factor"));
  GLASSBOX_ASSIGN(llama3.original_context, scaling_number(r, *scaling, "original_max_position_embeddings"));
  if (!(llama3.high_freq_factor > llama3.low_freq_factor))
    return r.fields.fail("rope_scaling.high_freq_factor (", llama3.high_freq_factor,
                         ") must exceed rope_scaling.low_freq_factor (", llama3.low_freq_factor, ")");
  return llama3_rope_factors(c, llama3);
}

// The Llama family's config.json: LlamaForCausalLM, Qwen2ForCausalLM (q/k/v biases), Qwen3ForCausalLM
// (q/k norms, and a head_dim of its own).
Result<ModelConfig> llama_config(const ConfigReader& r, const std::string& arch) {
  ModelConfig c;
  const bool qwen3 = arch == "Qwen3ForCausalLM";
  c.architecture = qwen3 ? "qwen3" : arch == "Qwen2ForCausalLM" ? "qwen2" : "llama";
  GLASSBOX_ASSIGN(c.dim, r.count("hidden_size"));
  GLASSBOX_ASSIGN(c.hidden_dim, r.count("intermediate_size"));
  GLASSBOX_ASSIGN(c.n_layers, r.count("num_hidden_layers"));
  GLASSBOX_ASSIGN(c.n_heads, r.count("num_attention_heads"));
  GLASSBOX_ASSIGN(c.n_kv_heads, r.count("num_key_value_heads", c.n_heads));
  GLASSBOX_ASSIGN(c.max_seq_len, r.count("max_position_embeddings"));
  GLASSBOX_ASSIGN(c.vocab_size, r.count("vocab_size"));
  GLASSBOX_ASSIGN(const double eps, r.number("rms_norm_eps", 1e-6));
  GLASSBOX_ASSIGN(const double theta, r.number("rope_theta", 10000.0));
  GLASSBOX_TRY(check_heads(r, "hidden_size", c.dim, "num_attention_heads", c.n_heads, "num_key_value_heads",
                           c.n_kv_heads));
  GLASSBOX_ASSIGN(c.head_dim, r.count("head_dim", c.dim / c.n_heads));
  if (c.head_dim > 1 << 16) return r.fields.fail("head_dim must be in 1..65536, found ", c.head_dim);
  c.qk_norm = qwen3;
  const std::string act = r.string("hidden_act", "silu");
  if (act != "silu")
    return error(ErrorCode::UnsupportedArchitecture, r.source(), ": hidden_act \"", act,
                 "\" is not supported (expected silu)");
  c.norm = NormKind::RMSNorm;
  c.norm_eps = static_cast<float>(eps);
  c.position = PositionKind::RoPE;
  c.rope_pairing = RopePairing::HalfSplit;  // Hugging Face rotates (i, i + head_dim/2)
  c.rope_theta = static_cast<float>(theta);
  GLASSBOX_ASSIGN(c.rope_freq_factors, rope_factors(r, c));
  c.activation = Activation::SiLU;
  c.gated_ffn = true;
  return c;
}

// The safetensors files of a folder: one model.safetensors, or the shards of model.safetensors.index.json.
// With an index, every tensor must be in the shard the index names, and every indexed tensor in its shard: a
// folder whose index disagrees with its shards is damaged (or mixes two checkpoints), so it is refused rather
// than loaded from wherever the tensors happen to be.
Result<std::vector<SafetensorsFile>> read_weights(const fs::path& folder) {
  std::vector<std::string> files;
  std::map<std::string, std::string> shard_of;  // tensor -> file, from the index
  const fs::path index = folder / "model.safetensors.index.json";
  const bool sharded = fs::exists(index);
  if (sharded) {
    json::Document doc;
    GLASSBOX_TRY(read_json_file(index.string(), doc));
    const json::Value* map = json::find(doc, "weight_map");
    if (!map || !map->IsObject())
      return error(ErrorCode::Malformed, index.string(), ": weight_map must be an object");
    std::set<std::string> unique;
    for (const auto& member : map->GetObject()) {
      const std::string tensor(json::text_of(member.name));
      const json::Value& file = member.value;
      if (!file.IsString() || json::text_of(file).find('/') != std::string::npos)
        return error(ErrorCode::Malformed, index.string(), ": weight_map[\"", tensor,
                     "\"] must name a file in the same folder");
      const std::string name(json::text_of(file));
      shard_of[tensor] = name;
      if (unique.insert(name).second) files.push_back(name);
    }
  } else {
    files.push_back("model.safetensors");
  }
  std::vector<SafetensorsFile> out;
  for (const std::string& name : files) {
    auto bytes = map_file((folder / name).string());
    if (!bytes) return bytes.error();
    auto file = read_safetensors(std::move(*bytes));
    if (!file) return file.error();
    if (sharded) {
      for (const auto& [tensor, info] : file->tensors) {
        const auto listed = shard_of.find(tensor);
        if (listed == shard_of.end())
          return error(ErrorCode::Malformed, index.string(), ": tensor ", tensor, " is in ", name,
                       " but weight_map does not list it");
        if (listed->second != name)
          return error(ErrorCode::Malformed, index.string(), ": tensor ", tensor, " is in ", name,
                       " but weight_map places it in ", listed->second);
      }
      for (const auto& [tensor, shard] : shard_of)
        if (shard == name && !file->tensors.count(tensor))
          return error(ErrorCode::Malformed, index.string(), ": weight_map places tensor ", tensor, " in ",
                       name, ", which does not contain it");
    }
    out.push_back(std::move(*file));
  }
  return out;
}

}  // namespace

Result<Model> load_hf_folder(const std::string& folder_path) {
  const fs::path folder(folder_path);
  const std::string config_path = (folder / "config.json").string();
  json::Document config_json;
  GLASSBOX_TRY(read_json_file(config_path, config_json));
  const ConfigReader reader{config_json, json::Fields(config_path)};
  GLASSBOX_ASSIGN(const std::string arch, architecture_of(reader));
  const bool gpt2 = arch == "GPT2LMHeadModel";
  const bool bert = arch == "BertModel" || arch == "BertForMaskedLM";
  if (!gpt2 && !bert && arch != "LlamaForCausalLM" && arch != "Qwen2ForCausalLM" &&
      arch != "Qwen3ForCausalLM")
    return error(ErrorCode::UnsupportedArchitecture, config_path, ": architecture ", arch,
                 " is not supported (glassbox reads GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM, "
                 "Qwen3ForCausalLM, BertModel and BertForMaskedLM)");
  GLASSBOX_ASSIGN(ModelConfig config, gpt2   ? gpt2_config(reader)
                                      : bert ? bert_config(reader)
                                             : llama_config(reader, arch));
  if (bert) GLASSBOX_TRY(read_sentence_transformers(folder, config));

  GLASSBOX_ASSIGN(std::vector<SafetensorsFile> files, read_weights(folder));
  std::map<std::string, const SafetensorsTensor*> tensors;
  for (const SafetensorsFile& f : files) {
    for (const auto& [name, t] : f.tensors) {
      // Hugging Face's GPT-2 names may or may not start with "transformer.", BERT's with "bert." (the
      // masked-LM model's encoder); use one spelling.
      std::string key = name;
      if (gpt2 && name.starts_with("transformer.")) key = name.substr(12);
      if (bert && name.starts_with("bert.")) key = name.substr(5);
      if (!tensors.emplace(key, &t).second)
        return error(ErrorCode::Malformed, folder_path, ": tensor ", name, " appears twice");
    }
  }

  if (!gpt2 && !bert) {
    GLASSBOX_ASSIGN(const bool tied, reader.boolean("tie_word_embeddings", false));
    if (!tied && !tensors.count("lm_head.weight"))
      return error(ErrorCode::Malformed, folder_path,
                   ": tensor lm_head.weight is missing (config.json says the embeddings are not tied)");
  }
  ModelBuilder builder(std::move(config), folder_path);
  for (const SafetensorsFile& f : files)
    builder.keep(f.bytes);
  // GPT-2's Conv1D matrices, transposed into float32 the first time they are asked for.
  std::map<std::string, std::shared_ptr<std::vector<float>>> transposed;
  const auto is_conv1d = [&](const std::string& name) {
    return gpt2 && (name.ends_with("c_attn.weight") || name.ends_with("c_proj.weight") ||
                    name.ends_with("c_fc.weight"));
  };
  const TensorLookup lookup = [&](const std::string& name) -> std::optional<TensorSource> {
    const auto found = tensors.find(name);
    if (found == tensors.end()) return std::nullopt;
    const SafetensorsTensor& t = *found->second;
    TensorSource source{t.data, std::vector<uint64_t>(t.shape.rbegin(), t.shape.rend()), t.type, t.dtype};
    if (!is_conv1d(name) || t.shape.size() != 2 || !t.type) return source;
    auto& floats = transposed[name];
    const auto in = static_cast<std::size_t>(t.shape[0]), out = static_cast<std::size_t>(t.shape[1]);
    if (!floats) {
      std::vector<float> stored(in * out);
      kernels::dequantize_row(*t.type, t.data, stored.data(), stored.size());
      floats = std::make_shared<std::vector<float>>(in * out);
      for (std::size_t i = 0; i < in; ++i)
        for (std::size_t o = 0; o < out; ++o)
          (*floats)[o * in + i] = stored[i * out + o];
      builder.keep(floats);
    }
    return TensorSource{reinterpret_cast<const std::byte*>(floats->data()), {in, out}, DType::F32, "F32"};
  };

  if (bert) {
    return builder.build(lookup, bert_layer_tensor,
                         {.token_embedding = "embeddings.word_embeddings.weight",
                          .position_embedding = "embeddings.position_embeddings.weight",
                          .token_type_embedding = "embeddings.token_type_embeddings.weight",
                          .embedding_norm = "embeddings.LayerNorm.weight",
                          .embedding_norm_bias = "embeddings.LayerNorm.bias",
                          .mlm_dense = "cls.predictions.transform.dense.weight",
                          .mlm_dense_bias = "cls.predictions.transform.dense.bias",
                          .mlm_norm = "cls.predictions.transform.LayerNorm.weight",
                          .mlm_norm_bias = "cls.predictions.transform.LayerNorm.bias",
                          .mlm_output_bias = "cls.predictions.bias"});
  }
  if (gpt2) {
    return builder.build(lookup,
                         [](int layer, LayerRole role) -> std::string {
                           const std::string h = "h." + std::to_string(layer) + ".";
                           switch (role) {
                             case LayerRole::AttnNorm:
                               return h + "ln_1.weight";
                             case LayerRole::AttnNormBias:
                               return h + "ln_1.bias";
                             case LayerRole::QKV:
                               return h + "attn.c_attn.weight";
                             case LayerRole::QKVBias:
                               return h + "attn.c_attn.bias";
                             case LayerRole::O:
                               return h + "attn.c_proj.weight";
                             case LayerRole::OBias:
                               return h + "attn.c_proj.bias";
                             case LayerRole::FfnNorm:
                               return h + "ln_2.weight";
                             case LayerRole::FfnNormBias:
                               return h + "ln_2.bias";
                             case LayerRole::Up:
                               return h + "mlp.c_fc.weight";
                             case LayerRole::UpBias:
                               return h + "mlp.c_fc.bias";
                             case LayerRole::Down:
                               return h + "mlp.c_proj.weight";
                             case LayerRole::DownBias:
                               return h + "mlp.c_proj.bias";
                             default:
                               return "";
                           }
                         },
                         {.token_embedding = "wte.weight",
                          .position_embedding = "wpe.weight",
                          .final_norm = "ln_f.weight",
                          .final_norm_bias = "ln_f.bias",
                          .output = "lm_head.weight"});
  }
  return builder.build(lookup,
                       [](int layer, LayerRole role) -> std::string {
                         const std::string l = "model.layers." + std::to_string(layer) + ".";
                         switch (role) {
                           case LayerRole::AttnNorm:
                             return l + "input_layernorm.weight";
                           case LayerRole::Q:
                             return l + "self_attn.q_proj.weight";
                           case LayerRole::K:
                             return l + "self_attn.k_proj.weight";
                           case LayerRole::V:
                             return l + "self_attn.v_proj.weight";
                           case LayerRole::QBias:
                             return l + "self_attn.q_proj.bias";
                           case LayerRole::KBias:
                             return l + "self_attn.k_proj.bias";
                           case LayerRole::VBias:
                             return l + "self_attn.v_proj.bias";
                           case LayerRole::QNorm:
                             return l + "self_attn.q_norm.weight";
                           case LayerRole::KNorm:
                             return l + "self_attn.k_norm.weight";
                           case LayerRole::O:
                             return l + "self_attn.o_proj.weight";
                           case LayerRole::FfnNorm:
                             return l + "post_attention_layernorm.weight";
                           case LayerRole::Gate:
                             return l + "mlp.gate_proj.weight";
                           case LayerRole::Up:
                             return l + "mlp.up_proj.weight";
                           case LayerRole::Down:
                             return l + "mlp.down_proj.weight";
                           default:
                             return "";
                         }
                       },
                       {.token_embedding = "model.embed_tokens.weight",
                        .final_norm = "model.norm.weight",
                        .output = "lm_head.weight"});
}

}  // namespace glassbox
