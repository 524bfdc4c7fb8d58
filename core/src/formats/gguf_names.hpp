// The names of GGUF as glassbox reads and writes it, in one place for the reader (gguf_reader.cpp,
// gguf_model.cpp, tokenizer/loaders/gguf_tokenizer.cpp) and the writer (gguf_export.cpp): architectures and
// what each fixes, metadata keys, tensor names, tokenizer models, pre-tokenizers and token types. Spellings
// are llama.cpp's (gguf-py's constants.py), except for our own `glassbox` architecture, whose choice keys
// hold the spellings of model/config_names.hpp.
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "formats/model_builder.hpp"
#include "glassbox/config.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox::gguf {

// --- architectures
// ------------------------------------------------------------------------------------------

// The choices a llama.cpp architecture implies rather than stores.
struct FixedChoices {
  NormKind norm;
  NormPlacement placement;
  PositionKind position;
  RopePairing pairing;  // only meaningful with RoPE
  Activation activation;
  bool gated_ffn;
  bool qk_norm = false;            // per-head RMSNorm of queries and keys before RoPE
  bool scaled_embeddings = false;  // token embeddings times sqrt(dim) (Gemma)
  // Reads kSlidingWindow, its pattern, kRopeFreqBaseSliding and kFinalLogitSoftcap (gemma3). Elsewhere
  // llama.cpp ignores them (phi3 files carry a sliding window it does not apply), and so does glassbox.
  bool windowed = false;
  // An encoder (bert): bidirectional attention unless <arch>.attention.causal says otherwise, LayerNorm of
  // the embeddings, token-type embeddings, and the post-norm tensors named for where they sit
  // (kPostNormLayerTensors).
  bool encoder = false;
  // A LayerNorm of the embeddings (token_embd_norm) in a decoder (bloom); every encoder has one too.
  bool embedding_norm = false;
};

struct Architecture {
  const char* name;                   // general.architecture
  std::optional<FixedChoices> fixed;  // nullopt: the choices are metadata keys (`glassbox`)
  const char* norm_eps_key;           // under <arch>.
  bool fused_qkv;                     // the writer fuses q|k|v into blk.N.attn_qkv (readers take either)
  bool fused_gate_up;                 // blk.N.ffn_up: rows gate, then up (phi3)
  bool written;                       // export_gguf writes a config with these choices as this architecture
  bool writer_needs_whole_head_rope;  // llama.cpp refuses a partial rotation (rope.dimension_count < head)
  // false: llama.cpp's graph adds no feed-forward bias (nomic-bert), so none is read from such a file, and a
  // model that has them is not written as this architecture.
  bool ffn_biases = true;
  // mpt: positions as the file has them, as llama.cpp reads them: ALiBi where <arch>.attention.max_alibi_bias
  // is above 0 (with that max bias), else a learned table where position_embd.weight is present, else none.
  // FixedChoices::position is what the writer needs (ALiBi: the others are other architectures' configs).
  bool positions_from_file = false;
};

inline constexpr const char* kRmsNormEps = "attention.layer_norm_rms_epsilon";
inline constexpr const char* kLayerNormEps = "attention.layer_norm_epsilon";

// In the order the writer tries them; `glassbox`, last, takes any config.
inline constexpr Architecture kArchitectures[] = {
    // llama.cpp's converter permutes Llama's q/k rows so that adjacent-pair RoPE applies.
    {.name = "llama",
     .fixed = FixedChoices{NormKind::RMSNorm, NormPlacement::PreNorm, PositionKind::RoPE,
                           RopePairing::Adjacent, Activation::SiLU, true},
     .norm_eps_key = kRmsNormEps,
     .fused_qkv = false,
     .fused_gate_up = false,
     .written = true,
     .writer_needs_whole_head_rope = true},
    // qwen2 and phi3 are stored as trained, in NeoX's half-split pairing.
    {.name = "qwen2",
     .fixed = FixedChoices{NormKind::RMSNorm, NormPlacement::PreNorm, PositionKind::RoPE,
                           RopePairing::HalfSplit, Activation::SiLU, true},
     .norm_eps_key = kRmsNormEps,
     .fused_qkv = false,
     .fused_gate_up = false,
     .written = true,
     .writer_needs_whole_head_rope = true},
    // Qwen3: qwen2 without biases, plus per-head RMSNorm of queries and keys.
    {.name = "qwen3",
     .fixed = FixedChoices{NormKind::RMSNorm, NormPlacement::PreNorm, PositionKind::RoPE,
                           RopePairing::HalfSplit, Activation::SiLU, true, true},
     .norm_eps_key = kRmsNormEps,
     .fused_qkv = false,
     .fused_gate_up = false,
     .written = true,
     .writer_needs_whole_head_rope = true},
    // Gemma 3: sandwich norms (the converter bakes Gemma's 1 + w into the stored norm weights, so they are
    // plain RMSNorm here), GeGLU, q/k norm, embeddings times sqrt(dim), NeoX pairing; sliding-window layers
    // are metadata keys (attention.sliding_window, sliding_window_pattern, rope.freq_base_swa).
    {.name = "gemma3",
     .fixed = FixedChoices{NormKind::RMSNorm, NormPlacement::Sandwich, PositionKind::RoPE,
                           RopePairing::HalfSplit, Activation::GELU, true, true, true, true},
     .norm_eps_key = kRmsNormEps,
     .fused_qkv = false,
     .fused_gate_up = false,
     .written = true,
     .writer_needs_whole_head_rope = true},
    // Read only: the writer expresses the same configs as qwen2, unfused.
    {.name = "phi3",
     .fixed = FixedChoices{NormKind::RMSNorm, NormPlacement::PreNorm, PositionKind::RoPE,
                           RopePairing::HalfSplit, Activation::SiLU, true},
     .norm_eps_key = kRmsNormEps,
     .fused_qkv = true,
     .fused_gate_up = true,
     .written = false,
     .writer_needs_whole_head_rope = true},
    // BERT as llama.cpp's converter writes it: learned positions and token types, LayerNorm of the
    // embeddings, Post-LN blocks, exact GELU, biases everywhere, bidirectional attention; its pooling is
    // <arch>.pooling_type. The MLM head, which llama.cpp drops, is kept under our own names (kMaskedLm*).
    {.name = "bert",
     .fixed = FixedChoices{.norm = NormKind::LayerNorm,
                           .placement = NormPlacement::PostNorm,
                           .position = PositionKind::Learned,
                           .pairing = RopePairing::Adjacent,
                           .activation = Activation::GELUExact,
                           .gated_ffn = false,
                           .encoder = true},
     .norm_eps_key = kLayerNormEps,
     .fused_qkv = false,
     .fused_gate_up = false,
     .written = true,
     .writer_needs_whole_head_rope = false},
    // nomic-bert (nomic-embed-text v1 and v1.5) as llama.cpp's converter writes it: bert's embedding LayerNorm,
    // token types and Post-LN blocks, but rotary positions (NeoX's half-split pairs, <arch>.rope.freq_base)
    // instead of a learned table, SwiGLU (down(silu(ffn_gate x) * ffn_up x)) instead of GELU, q|k|v fused in
    // attn_qkv, and no biases but the LayerNorms' (llama.cpp ignores feed-forward biases here).
    {.name = "nomic-bert",
     .fixed = FixedChoices{.norm = NormKind::LayerNorm,
                           .placement = NormPlacement::PostNorm,
                           .position = PositionKind::RoPE,
                           .pairing = RopePairing::HalfSplit,
                           .activation = Activation::SiLU,
                           .gated_ffn = true,
                           .encoder = true},
     .norm_eps_key = kLayerNormEps,
     .fused_qkv = true,
     .fused_gate_up = false,
     .written = true,
     .writer_needs_whole_head_rope = true,
     .ffn_biases = false},
    // BLOOM as llama.cpp's converter writes it: gpt2's blocks (LayerNorm pre-norm with biases, q|k|v fused
    // in attn_qkv, GELU, biases everywhere) with ALiBi instead of a position table, and a LayerNorm (with
    // bias) of the embeddings, token_embd_norm. llama.cpp fixes bloom's max bias at 8, so only a model with
    // that max bias is written as bloom.
    {.name = "bloom",
     .fixed = FixedChoices{.norm = NormKind::LayerNorm,
                           .placement = NormPlacement::PreNorm,
                           .position = PositionKind::ALiBi,
                           .pairing = RopePairing::Adjacent,
                           .activation = Activation::GELU,
                           .gated_ffn = false,
                           .embedding_norm = true},
     .norm_eps_key = kLayerNormEps,
     .fused_qkv = true,
     .fused_gate_up = false,
     .written = true,
     .writer_needs_whole_head_rope = false},
    // MPT as llama.cpp's converter writes it: LayerNorm pre-norm (biases optional, MPT-7B has none), q|k|v
    // fused in attn_qkv, GELU, ALiBi with the file's max bias (or a learned table, or none:
    // positions_from_file), tied output. Its q/k LayerNorm (attn_q_norm over all heads) and clamp_kqv are
    // refused by name.
    {.name = "mpt",
     .fixed = FixedChoices{NormKind::LayerNorm, NormPlacement::PreNorm, PositionKind::ALiBi,
                           RopePairing::Adjacent, Activation::GELU, false},
     .norm_eps_key = kLayerNormEps,
     .fused_qkv = true,
     .fused_gate_up = false,
     .written = true,
     .writer_needs_whole_head_rope = false,
     .positions_from_file = true},
    {.name = "gpt2",
     .fixed = FixedChoices{NormKind::LayerNorm, NormPlacement::PreNorm, PositionKind::Learned,
                           RopePairing::Adjacent, Activation::GELU, false},
     .norm_eps_key = kLayerNormEps,
     .fused_qkv = true,
     .fused_gate_up = false,
     .written = true,
     .writer_needs_whole_head_rope = false},
    {.name = "glassbox",
     .fixed = std::nullopt,
     .norm_eps_key = kLayerNormEps,
     .fused_qkv = false,
     .fused_gate_up = false,
     .written = true,
     .writer_needs_whole_head_rope = false},
};
static_assert(!kArchitectures[std::size(kArchitectures) - 1].fixed,
              "the last architecture is our own, which the writer falls back to");

// Null for an architecture glassbox does not run.
const Architecture* architecture_named(std::string_view name);
// The architecture export_gguf writes `config` as: the first written one that fixes exactly its choices (and
// reads feed-forward biases, where the model has them), else `glassbox`.
const Architecture& architecture_for(const ModelConfig& config, bool has_ffn_biases);
// "llama, qwen2, qwen3, gemma3, phi3, bert, nomic-bert, bloom, mpt, gpt2 and glassbox", for messages.
std::string architecture_list();

// --- metadata keys
// ------------------------------------------------------------------------------------------

inline constexpr const char* kArchitectureKey = "general.architecture";
inline constexpr const char* kNameKey = "general.name";
inline constexpr const char* kAlignmentKey = "general.alignment";

// Hyper-parameters, under "<arch>.": arch_key(arch, kBlockCount) is "llama.block_count".
inline constexpr const char* kContextLength = "context_length";
inline constexpr const char* kEmbeddingLength = "embedding_length";
inline constexpr const char* kFeedForwardLength = "feed_forward_length";
inline constexpr const char* kBlockCount = "block_count";
inline constexpr const char* kHeadCount = "attention.head_count";
inline constexpr const char* kHeadCountKv = "attention.head_count_kv";
inline constexpr const char* kRopeDimensionCount = "rope.dimension_count";
inline constexpr const char* kRopeFreqBase = "rope.freq_base";
inline constexpr const char* kRopeScalingType = "rope.scaling.type";
inline constexpr const char* kRopeScalingFactor = "rope.scaling.factor";
inline constexpr const char* kRopeScaleLinear = "rope.scale_linear";  // the older name of the factor
inline constexpr const char* kRopeScalingOriginalContext = "rope.scaling.original_context_length";  // YaRN
inline constexpr const char* kRopeScalingAttnFactor = "rope.scaling.attn_factor";                   // YaRN
inline constexpr const char* kRopeMagnitude =
    "rope.magnitude";  // our own architecture: ModelConfig::rope_magnitude
// ALiBi's max bias (ModelConfig::alibi_max_bias), llama.cpp's key. llama.cpp reads it for mpt (absent or 0:
// no ALiBi) and fixes 8 for bloom; glassbox reads it for every ALiBi model (absent: 8) and writes it for mpt
// and our own architecture (a model written as bloom has 8: architecture_for).
// MPT's clamp of q, k and v (clip_qkv), which glassbox refuses rather than ignores.
inline constexpr const char* kMaxAlibiBias = "attention.max_alibi_bias";
inline constexpr float kDefaultMaxAlibiBias = 8.0f;
inline constexpr const char* kClampKqv = "attention.clamp_kqv";
inline constexpr const char* kKeyLength = "attention.key_length";  // head_dim, where not dim / heads
inline constexpr const char* kValueLength = "attention.value_length";
// Sliding-window attention, as llama.cpp reads it for gemma3 (and writes it for any architecture that has it).
inline constexpr const char* kSlidingWindow = "attention.sliding_window";  // keys a sliding layer sees
// Which layers slide: an array of n_layers bools, or a number n (every n-th layer, the last of each group of
// n, is global; 0: all slide). Absent where sliding_window is set: gemma3's pattern, kGemma3SlidingPattern.
inline constexpr const char* kSlidingWindowPattern = "attention.sliding_window_pattern";
inline constexpr int kGemma3SlidingPattern = 6;
inline constexpr const char* kRopeFreqBaseSliding = "rope.freq_base_swa";  // absent: 10000
inline constexpr double kDefaultRopeFreqBaseSliding = 10000.0;
inline constexpr const char* kFinalLogitSoftcap = "final_logit_softcapping";
// Our `glassbox` architecture's choices; their values are spelled as in model/config_names.hpp.
inline constexpr const char* kNorm = "norm";
inline constexpr const char* kNormPlacement = "norm_placement";
inline constexpr const char* kPosition = "position";
inline constexpr const char* kRopePairing = "rope.pairing";
inline constexpr const char* kActivation = "activation";
inline constexpr const char* kFfnGated = "ffn_gated";
inline constexpr const char* kQkNorm = "attention.qk_norm";
inline constexpr const char* kScaledEmbeddings = "scaled_embeddings";
// Encoders (read for every architecture, as llama.cpp does): whether attention is causal (absent: true, but
// false for an encoder architecture), and how token states pool into one embedding (kPoolingTypes).
inline constexpr const char* kCausalAttention = "attention.causal";
inline constexpr const char* kPoolingType = "pooling_type";
// Our own key (llama.cpp leaves normalizing to the caller): a sentence-transformers model whose embeddings
// are L2-normalized (ModelConfig::normalize_embedding) keeps saying so.
inline constexpr const char* kNormalizeEmbedding = "pooling_normalize";
struct PoolingTypeCode {
  Pooling pooling;
  int32_t code;  // llama.cpp's enum llama_pooling_type; 3 (last) and 4 (rank) glassbox does not compute
};
inline constexpr PoolingTypeCode kPoolingTypes[] = {
    {Pooling::None, 0},
    {Pooling::Mean, 1},
    {Pooling::Cls, 2},
};

inline std::string arch_key(std::string_view arch, std::string_view name) {
  return std::string(arch) + "." + std::string(name);
}

// The tokenizer, tokenizer.ggml.*.
inline constexpr const char* kTokenizerModelKey = "tokenizer.ggml.model";
inline constexpr const char* kTokenizerPreKey = "tokenizer.ggml.pre";
inline constexpr const char* kTokensKey = "tokenizer.ggml.tokens";
inline constexpr const char* kScoresKey = "tokenizer.ggml.scores";
inline constexpr const char* kTokenTypeKey = "tokenizer.ggml.token_type";
inline constexpr const char* kMergesKey = "tokenizer.ggml.merges";
inline constexpr const char* kBosTokenIdKey = "tokenizer.ggml.bos_token_id";
inline constexpr const char* kEosTokenIdKey = "tokenizer.ggml.eos_token_id";
inline constexpr const char* kUnknownTokenIdKey = "tokenizer.ggml.unknown_token_id";
inline constexpr const char* kEotTokenIdKey = "tokenizer.ggml.eot_token_id";  // end of turn
inline constexpr const char* kEomTokenIdKey = "tokenizer.ggml.eom_token_id";  // end of message
// The chat template (Jinja), outside tokenizer.ggml.*.
inline constexpr const char* kChatTemplateKey = "tokenizer.chat_template";
inline constexpr const char* kAddBosTokenKey = "tokenizer.ggml.add_bos_token";
inline constexpr const char* kAddSpacePrefixKey = "tokenizer.ggml.add_space_prefix";
// Rows of the token-type embedding (BERT's type_vocab_size), under tokenizer.ggml. as llama.cpp keeps it.
inline constexpr const char* kTokenTypeCountKey = "tokenizer.ggml.token_type_count";
// Encoders (tokenizer.ggml.model "bert"): BERT's special tokens ("seperator" is llama.cpp's spelling), whether
// [SEP] ends a text (add_sep_token, or else add_eos_token, as the converter writes it), and BertNormalizer's
// two choices llama.cpp keeps (absent: lowercase, and strip accents when lowercasing).
inline constexpr const char* kClsTokenIdKey = "tokenizer.ggml.cls_token_id";
inline constexpr const char* kSepTokenIdKey = "tokenizer.ggml.seperator_token_id";
inline constexpr const char* kPadTokenIdKey = "tokenizer.ggml.padding_token_id";
inline constexpr const char* kMaskTokenIdKey = "tokenizer.ggml.mask_token_id";
inline constexpr const char* kAddEosTokenKey = "tokenizer.ggml.add_eos_token";
inline constexpr const char* kAddSepTokenKey = "tokenizer.ggml.add_sep_token";
inline constexpr const char* kNormalizerLowercaseKey = "tokenizer.ggml.normalizer.lowercase";
inline constexpr const char* kNormalizerStripAccentsKey = "tokenizer.ggml.normalizer.strip_accents";

// --- tokenizer values
// ---------------------------------------------------------------------------------------

struct TokenizerModelName {
  TokenizerKind kind;
  const char* name;  // tokenizer.ggml.model
};
inline constexpr TokenizerModelName kTokenizerModels[] = {
    {TokenizerKind::SentencePiece, "llama"},
    {TokenizerKind::ByteLevelBpe, "gpt2"},
    {TokenizerKind::WordPiece, "bert"},
};

// tokenizer.ggml.pre names of the byte-level pre-tokenizers glassbox knows. The writer uses the first name of
// each; the reader accepts all, since llama.cpp's converters have written each of them.
struct PreTokenizerName {
  const char* name;
  PreTokenizer pre;
  // Whether llama.cpp adds BOS when tokenizer.ggml.add_bos_token is absent (llama_vocab::impl::load in
  // src/llama-vocab.cpp): smaug-bpe shares Llama 3's regex but not its BOS.
  bool adds_bos_by_default;
};
inline constexpr PreTokenizerName kPreTokenizers[] = {
    {"gpt-2", PreTokenizer::Gpt2, false},       {"default", PreTokenizer::Gpt2, false},
    {"gpt2", PreTokenizer::Gpt2, false},        {"llama-bpe", PreTokenizer::Llama3, true},
    {"llama3", PreTokenizer::Llama3, true},     {"llama-v3", PreTokenizer::Llama3, true},
    {"smaug-bpe", PreTokenizer::Llama3, false}, {"qwen2", PreTokenizer::Qwen2, false},
};

// tokenizer.ggml.token_type codes (llama.cpp's llama_token_type).
struct TokenTypeCode {
  TokenType type;
  int32_t code;
};
inline constexpr TokenTypeCode kTokenTypeCodes[] = {
    {TokenType::Normal, 1},      {TokenType::Unknown, 2}, {TokenType::Control, 3},
    {TokenType::UserDefined, 4}, {TokenType::Unused, 5},  {TokenType::Byte, 6},
};

// --- tensors
// ------------------------------------------------------------------------------------------------

inline constexpr const char* kTokenEmbedding = "token_embd.weight";
inline constexpr const char* kPositionEmbedding = "position_embd.weight";
inline constexpr const char* kOutputNorm = "output_norm.weight";
inline constexpr const char* kOutputNormBias = "output_norm.bias";
inline constexpr const char* kOutput = "output.weight";  // absent: the classifier is the token embedding
// Encoders: the token-type embedding and the LayerNorm of the summed embeddings (llama.cpp's names), and
// the masked-language-model head (our own names: llama.cpp's converter drops it).
inline constexpr const char* kTokenTypes = "token_types.weight";
inline constexpr const char* kTokenEmbeddingNorm = "token_embd_norm.weight";
inline constexpr const char* kTokenEmbeddingNormBias = "token_embd_norm.bias";
inline constexpr const char* kMaskedLmDense = "mlm_dense.weight";
inline constexpr const char* kMaskedLmDenseBias = "mlm_dense.bias";
inline constexpr const char* kMaskedLmNorm = "mlm_norm.weight";
inline constexpr const char* kMaskedLmNormBias = "mlm_norm.bias";
inline constexpr const char* kMaskedLmOutputBias = "mlm_output.bias";
// One divisor per rotated pair of RoPE's frequencies (Llama 3.1's scaling): ModelConfig::rope_freq_factors.
inline constexpr const char* kRopeFreqs = "rope_freqs.weight";
// MPT's LayerNorm of all heads' queries and keys at once (qk_ln), which glassbox refuses rather than ignores.
inline constexpr const char* kUnsupportedMptQkNorm = "blk.0.attn_q_norm.weight";
// LongRoPE's factors (Phi-3 128k), which glassbox refuses rather than ignores.
inline constexpr const char* kUnsupportedRopeTensors[] = {"rope_factors_long.weight",
                                                          "rope_factors_short.weight"};

// A transformer block's tensors are blk.N.<name>.
inline constexpr std::string_view kLayerPrefix = "blk.";
struct LayerTensorName {
  LayerRole role;
  const char* name;
};
// In LayerRole order, which is also the order the writer stores them in.
inline constexpr LayerTensorName kLayerTensors[] = {
    {LayerRole::AttnNorm, "attn_norm.weight"},
    {LayerRole::AttnNormBias, "attn_norm.bias"},
    {LayerRole::Q, "attn_q.weight"},
    {LayerRole::K, "attn_k.weight"},
    {LayerRole::V, "attn_v.weight"},
    {LayerRole::QBias, "attn_q.bias"},
    {LayerRole::KBias, "attn_k.bias"},
    {LayerRole::VBias, "attn_v.bias"},
    {LayerRole::QKV, "attn_qkv.weight"},
    {LayerRole::QKVBias, "attn_qkv.bias"},
    {LayerRole::QNorm, "attn_q_norm.weight"},
    {LayerRole::KNorm, "attn_k_norm.weight"},
    {LayerRole::O, "attn_output.weight"},
    {LayerRole::OBias, "attn_output.bias"},
    {LayerRole::AttnPostNorm, "post_attention_norm.weight"},
    {LayerRole::FfnNorm, "ffn_norm.weight"},
    {LayerRole::FfnNormBias, "ffn_norm.bias"},
    {LayerRole::Gate, "ffn_gate.weight"},
    {LayerRole::GateBias, "ffn_gate.bias"},
    {LayerRole::Up, "ffn_up.weight"},
    {LayerRole::UpBias, "ffn_up.bias"},
    {LayerRole::GateUp, "ffn_up.weight"},
    {LayerRole::Down, "ffn_down.weight"},
    {LayerRole::DownBias, "ffn_down.bias"},
    {LayerRole::FfnPostNorm, "post_ffw_norm.weight"},
};

// An encoder architecture's post-norms, named for where they sit: after attention's residual, after the
// layer's output (BERT). The roles are the same (forward.cpp's Post-LN uses attn_norm and ffn_norm).
inline constexpr LayerTensorName kPostNormLayerTensors[] = {
    {LayerRole::AttnNorm, "attn_output_norm.weight"},
    {LayerRole::AttnNormBias, "attn_output_norm.bias"},
    {LayerRole::FfnNorm, "layer_output_norm.weight"},
    {LayerRole::FfnNormBias, "layer_output_norm.bias"},
};

// "blk.3.attn_q.weight", or "" when the architecture has no such tensor (phi3's separate gate, nomic-bert's
// feed-forward biases).
std::string layer_tensor_name(const Architecture& arch, int layer, LayerRole role);
// Whether the writer stores `role` for this architecture: fused q|k|v where the architecture fuses them.
bool writes_layer_tensor(const Architecture& arch, LayerRole role);

}  // namespace glassbox::gguf
