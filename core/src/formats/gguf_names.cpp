#include "formats/gguf_names.hpp"

namespace glassbox::gguf {
namespace {

bool has_choices(const ModelConfig& c, const FixedChoices& f) {
  return c.norm == f.norm && c.norm_placement == f.placement && c.position == f.position &&
         (c.position != PositionKind::RoPE || c.rope_pairing == f.pairing) && c.activation == f.activation &&
         c.gated_ffn == f.gated_ffn && c.qk_norm == f.qk_norm && c.scaled_embeddings == f.scaled_embeddings &&
         (f.windowed || (c.sliding_window == 0 && c.final_logit_softcap == 0.0f)) &&
         c.rope_magnitude == 1.0f && c.causal != f.encoder &&
         c.embedding_norm == (f.encoder || f.embedding_norm) && (f.encoder || c.n_token_types == 0);
}

constexpr bool layer_tensors_in_role_order() {
  for (std::size_t i = 0; i < std::size(kLayerTensors); ++i)
    if (static_cast<std::size_t>(kLayerTensors[i].role) != i) return false;
  return true;
}
static_assert(layer_tensors_in_role_order());

}  // namespace

const Architecture* architecture_named(std::string_view name) {
  for (const Architecture& a : kArchitectures)
    if (name == a.name) return &a;
  return nullptr;
}

const Architecture& architecture_for(const ModelConfig& c, bool has_ffn_biases) {
  for (const Architecture& a : kArchitectures) {
    if (!a.written) continue;
    if (!a.fixed) return a;  // glassbox: any config
    if (!has_choices(c, *a.fixed)) continue;
    if (has_ffn_biases && !a.ffn_biases) continue;
    // llama.cpp assumes bloom's max bias (8); only mpt reads it from the file.
    if (c.position == PositionKind::ALiBi && !a.positions_from_file &&
        c.alibi_max_bias != kDefaultMaxAlibiBias)
      continue;
    if (a.writer_needs_whole_head_rope && c.position == PositionKind::RoPE && c.rotary_dim() != c.head_dim)
      continue;
    return a;
  }
  return kArchitectures[std::size(kArchitectures) - 1];
}

std::string architecture_list() {
  std::string list;
  const std::size_t n = std::size(kArchitectures);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) list += i + 1 == n ? " and " : ", ";
    list += kArchitectures[i].name;
  }
  return list;
}

std::string layer_tensor_name(const Architecture& arch, int layer, LayerRole role) {
  // Separate q/k/v are named for every architecture: a file may store them apart even where the converter
  // usually fuses them (llama.cpp reads either); the builder takes the fused matrix where the file has it.
  bool present = true;
  switch (role) {
    case LayerRole::Gate:
    case LayerRole::Up:
      present = !arch.fused_gate_up;
      break;
    case LayerRole::GateBias:
    case LayerRole::UpBias:
      present = !arch.fused_gate_up && arch.ffn_biases;
      break;
    case LayerRole::DownBias:
      present = arch.ffn_biases;
      break;
    case LayerRole::GateUp:
      present = arch.fused_gate_up;
      break;
    default:
      break;
  }
  if (!present) return "";
  const char* name = kLayerTensors[static_cast<int>(role)].name;
  if (arch.fixed && arch.fixed->encoder)
    for (const LayerTensorName& renamed : kPostNormLayerTensors)
      if (renamed.role == role) name = renamed.name;
  return std::string(kLayerPrefix) + std::to_string(layer) + "." + name;
}

bool writes_layer_tensor(const Architecture& arch, LayerRole role) {
  switch (role) {
    case LayerRole::Q:
    case LayerRole::K:
    case LayerRole::V:
    case LayerRole::QBias:
    case LayerRole::KBias:
    case LayerRole::VBias:
      return !arch.fused_qkv;
    case LayerRole::QKV:
    case LayerRole::QKVBias:
      return arch.fused_qkv;
    default:
      return !layer_tensor_name(arch, 0, role).empty();
  }
}

}  // namespace glassbox::gguf
