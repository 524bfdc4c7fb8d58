// Writing a loaded model (any format) as GGUF, re-encoding the weight matrices: what `glassbox convert` does.
// A config that a llama.cpp architecture fixes is written under that architecture's names and keys (so
// llama.cpp reads the result); any other config is written as architecture "glassbox" with every choice
// spelled out. The names, and which architecture fixes what, are in gguf_names.hpp, shared with the reader.
#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>

#include "formats/gguf_names.hpp"
#include "formats/gguf_writer.hpp"
#include "glassbox/error.hpp"
#include "glassbox/formats.hpp"
#include "kernels/element_types.hpp"
#include "kernels/quantized.hpp"
#include "model/config_names.hpp"
#include "model/dtype.hpp"
#include "tokenizer/sentencepiece_space.hpp"
#include "tokenizer/wordpiece_spelling.hpp"

namespace glassbox {
namespace {

int32_t gguf_token_type(TokenType t) {
  for (const gguf::TokenTypeCode& c : gguf::kTokenTypeCodes)
    if (c.type == t) return c.code;
  return 1;
}

DType dtype_of(ExportType type) {
  switch (type) {
    case ExportType::F32:
      return DType::F32;
    case ExportType::F16:
      return DType::F16;
    case ExportType::Q8_0:
      return DType::Q8_0;
    case ExportType::Q4_0:
      return DType::Q4_0;
  }
  return DType::F32;
}

class Exporter {
 public:
  explicit Exporter(ExportType type) : target_(dtype_of(type)) {}

  // Re-encodes a matrix to the target type (vectors stay float32). Rows whose length is not a whole number of
  // quantization blocks fall back to F16, as llama.cpp's quantizer does. An absent matrix (the gate of a
  // plain feed-forward layer) writes nothing.
  void matrix(const std::string& name, const Tensor& t, bool keep_float32 = false) {
    if (!t.present()) return;
    DType target = keep_float32 ? DType::F32 : target_;
    if (tensor_bytes(target, 1, t.cols) < 0) {
      target = DType::F16;
      ++fallbacks_;
    }
    const ElementType& out_type = element_type(target);
    const auto cols = static_cast<std::size_t>(t.cols);
    const auto out_row_bytes = static_cast<std::size_t>(tensor_bytes(target, 1, t.cols));
    const auto in_row_bytes = static_cast<std::size_t>(tensor_bytes(t.type, 1, t.cols));
    auto data = std::make_shared<std::vector<std::byte>>(out_row_bytes * static_cast<std::size_t>(t.rows));
    std::vector<float> row(cols);
    for (int64_t r = 0; r < t.rows; ++r) {
      kernels::dequantize_row(t.type, t.data + static_cast<std::size_t>(r) * in_row_bytes, row.data(), cols);
      kernels::encode_row(target, row.data(), data->data() + static_cast<std::size_t>(r) * out_row_bytes,
                          cols);
    }
    add(name, {static_cast<uint64_t>(t.cols), static_cast<uint64_t>(t.rows)}, out_type.ggml_id, data);
  }

  void vector(const std::string& name, const Tensor& t) {
    if (!t.present()) return;
    const auto n = static_cast<std::size_t>(t.elements());
    auto data = std::make_shared<std::vector<std::byte>>(n * sizeof(float));
    kernels::dequantize_row(t.type, t.data, reinterpret_cast<float*>(data->data()), n);
    add(name, {n}, element_type(DType::F32).ggml_id, data);
  }

  // Rows of several matrices stacked into one (fused q/k/v, gate/up), re-encoded.
  void stacked(const std::string& name, std::initializer_list<Tensor> parts) {
    const std::vector<float>* floats = decoded_rows(parts);
    if (!floats) return;
    const int64_t cols = parts.begin()->cols;
    matrix(name, Tensor{DType::F32, reinterpret_cast<const std::byte*>(floats->data()),
                        static_cast<int64_t>(floats->size()) / cols, cols});
  }

  // Vectors joined end to end (fused q/k/v biases); nothing when the first is absent.
  void joined(const std::string& name, std::initializer_list<Tensor> parts) {
    const std::vector<float>* floats = decoded_rows(parts);
    if (!floats) return;
    vector(name, Tensor{DType::F32, reinterpret_cast<const std::byte*>(floats->data()), 1,
                        static_cast<int64_t>(floats->size())});
  }

  GgufWriter& writer() { return writer_; }
  int fallbacks() const { return fallbacks_; }

 private:
  // Every row of `parts` decoded to float32 one after another, kept alive until the file is written; null
  // when the first part is absent.
  const std::vector<float>* decoded_rows(std::initializer_list<Tensor> parts) {
    if (!parts.begin()->present()) return nullptr;
    auto rows = std::make_shared<std::vector<float>>();
    for (const Tensor& t : parts) {
      const auto cols = static_cast<std::size_t>(t.cols);
      const auto in_row_bytes = static_cast<std::size_t>(tensor_bytes(t.type, 1, t.cols));
      for (int64_t r = 0; r < t.rows; ++r) {
        rows->resize(rows->size() + cols);
        kernels::dequantize_row(t.type, t.data + static_cast<std::size_t>(r) * in_row_bytes,
                                rows->data() + rows->size() - cols, cols);
      }
    }
    keep_.push_back(rows);
    return rows.get();
  }

  void add(const std::string& name, std::vector<uint64_t> dims, uint32_t ggml_type,
           const std::shared_ptr<std::vector<std::byte>>& data) {
    writer_.add_tensor(name, std::move(dims), ggml_type, std::span<const std::byte>(*data), data);
  }

  DType target_;
  GgufWriter writer_;
  int fallbacks_ = 0;
  std::vector<std::shared_ptr<const void>> keep_;
};

// Writes one tensor of a transformer block under the name the architecture gives its role (none: skipped).
void write_layer_tensor(Exporter& out, const gguf::Architecture& arch, int layer, const LayerWeights& L,
                        LayerRole role) {
  if (!gguf::writes_layer_tensor(arch, role)) return;
  const std::string name = gguf::layer_tensor_name(arch, layer, role);
  switch (role) {
    case LayerRole::AttnNorm:
      return out.vector(name, L.attn_norm);
    case LayerRole::AttnNormBias:
      return out.vector(name, L.attn_norm_bias);
    case LayerRole::Q:
      return out.matrix(name, L.wq);
    case LayerRole::K:
      return out.matrix(name, L.wk);
    case LayerRole::V:
      return out.matrix(name, L.wv);
    case LayerRole::QBias:
      return out.vector(name, L.bq);
    case LayerRole::KBias:
      return out.vector(name, L.bk);
    case LayerRole::VBias:
      return out.vector(name, L.bv);
    case LayerRole::QKV:
      return out.stacked(name, {L.wq, L.wk, L.wv});
    case LayerRole::QKVBias:
      return out.joined(name, {L.bq, L.bk, L.bv});
    case LayerRole::QNorm:
      return out.vector(name, L.q_norm);
    case LayerRole::KNorm:
      return out.vector(name, L.k_norm);
    case LayerRole::O:
      return out.matrix(name, L.wo);
    case LayerRole::OBias:
      return out.vector(name, L.bo);
    case LayerRole::FfnNorm:
      return out.vector(name, L.ffn_norm);
    case LayerRole::FfnNormBias:
      return out.vector(name, L.ffn_norm_bias);
    case LayerRole::Gate:
      return out.matrix(name, L.ffn_gate);
    case LayerRole::GateBias:
      return out.vector(name, L.ffn_gate_bias);
    case LayerRole::Up:
      return out.matrix(name, L.ffn_up);
    case LayerRole::UpBias:
      return out.vector(name, L.ffn_up_bias);
    case LayerRole::GateUp:
      return out.stacked(name, {L.ffn_gate, L.ffn_up});
    case LayerRole::Down:
      return out.matrix(name, L.ffn_down);
    case LayerRole::DownBias:
      return out.vector(name, L.ffn_down_bias);
    case LayerRole::AttnPostNorm:
      return out.vector(name, L.attn_post_norm);
    case LayerRole::FfnPostNorm:
      return out.vector(name, L.ffn_post_norm);
  }
}

// The one factor every RoPE pair is divided by, where the scaling is linear.
std::optional<float> linear_rope_factor(const ModelConfig& c) {
  const std::vector<float>& f = c.rope_freq_factors;
  if (f.empty() || std::adjacent_find(f.begin(), f.end(), std::not_equal_to<>()) != f.end())
    return std::nullopt;
  return f.front();
}

void add_config(GgufWriter& w, const gguf::Architecture& arch, const ModelConfig& c) {
  const auto key = [&](const char* name) { return gguf::arch_key(arch.name, name); };
  w.add_uint32(key(gguf::kContextLength), static_cast<uint32_t>(c.max_seq_len));
  w.add_uint32(key(gguf::kEmbeddingLength), static_cast<uint32_t>(c.dim));
  w.add_uint32(key(gguf::kFeedForwardLength), static_cast<uint32_t>(c.hidden_dim));
  w.add_uint32(key(gguf::kBlockCount), static_cast<uint32_t>(c.n_layers));
  w.add_uint32(key(gguf::kHeadCount), static_cast<uint32_t>(c.n_heads));
  w.add_uint32(key(gguf::kHeadCountKv), static_cast<uint32_t>(c.n_kv_heads));
  if (c.head_dim * c.n_heads != c.dim) {
    w.add_uint32(key(gguf::kKeyLength), static_cast<uint32_t>(c.head_dim));
    w.add_uint32(key(gguf::kValueLength), static_cast<uint32_t>(c.head_dim));
  }
  w.add_float32(key(arch.norm_eps_key), c.norm_eps);
  if (c.position == PositionKind::RoPE) {
    w.add_uint32(key(gguf::kRopeDimensionCount), static_cast<uint32_t>(c.rotary_dim()));
    w.add_float32(key(gguf::kRopeFreqBase), c.rope_theta);
    if (const std::optional<float> factor = linear_rope_factor(c)) {
      w.add_string(key(gguf::kRopeScalingType), "linear");
      w.add_float32(key(gguf::kRopeScalingFactor), *factor);
    }
  }
  // bloom's is always 8 (architecture_for), which llama.cpp assumes: mpt and our own architecture say it.
  if (c.position == PositionKind::ALiBi && (!arch.fixed || arch.positions_from_file))
    w.add_float32(key(gguf::kMaxAlibiBias), c.alibi_max_bias);
  if (c.sliding_window > 0) {
    w.add_uint32(key(gguf::kSlidingWindow), static_cast<uint32_t>(c.sliding_window));
    w.add_bool_array(key(gguf::kSlidingWindowPattern), c.sliding_layers);
    // Absent, llama.cpp's gemma3 turns sliding layers with base 10000: say the base wherever it is not 0.
    if (c.rope_theta_sliding > 0.0f || arch.fixed)
      w.add_float32(key(gguf::kRopeFreqBaseSliding),
                    c.rope_theta_sliding > 0.0f ? c.rope_theta_sliding : c.rope_theta);
  }
  if (c.final_logit_softcap > 0.0f) w.add_float32(key(gguf::kFinalLogitSoftcap), c.final_logit_softcap);
  const bool encoder_arch = arch.fixed && arch.fixed->encoder;
  if (!c.causal || encoder_arch) w.add_bool(key(gguf::kCausalAttention), c.causal);
  for (const gguf::PoolingTypeCode& p : gguf::kPoolingTypes)
    if (p.pooling == c.pooling && c.pooling != Pooling::None) w.add_uint32(key(gguf::kPoolingType), p.code);
  if (c.normalize_embedding) w.add_bool(key(gguf::kNormalizeEmbedding), true);
  if (c.n_token_types > 0) w.add_uint32(gguf::kTokenTypeCountKey, static_cast<uint32_t>(c.n_token_types));
  if (arch.fixed) return;
  w.add_string(key(gguf::kNorm), choice_name(c.norm));
  w.add_string(key(gguf::kNormPlacement), choice_name(c.norm_placement));
  w.add_string(key(gguf::kPosition), choice_name(c.position));
  if (c.position == PositionKind::RoPE) w.add_string(key(gguf::kRopePairing), choice_name(c.rope_pairing));
  w.add_string(key(gguf::kActivation), choice_name(c.activation));
  w.add_bool(key(gguf::kFfnGated), c.gated_ffn);
  if (c.qk_norm) w.add_bool(key(gguf::kQkNorm), true);
  if (c.scaled_embeddings) w.add_bool(key(gguf::kScaledEmbeddings), true);
  // YaRN's scaling of q and k, which no llama.cpp key says apart from YaRN's own parameters.
  if (c.rope_magnitude != 1.0f) w.add_float32(key(gguf::kRopeMagnitude), c.rope_magnitude);
}

// A WordPiece vocabulary as llama.cpp's converter writes BERT's ("bert", pieces in the phantom-space form).
// GGUF keeps only two of BertNormalizer's choices; a vocabulary that needs the others is refused rather than
// written to tokenize differently when read back. Its limit on a word's length is not kept: read back, the
// vocabulary has llama.cpp's (none), so a word past Hugging Face's 100 characters gets pieces, not [UNK].
Result<void> add_wordpiece_tokenizer(GgufWriter& w, const Vocabulary& v) {
  const WordPieceOptions& o = v.wordpiece;
  if (!o.clean_text || !o.handle_chinese_chars)
    return error(
        ErrorCode::UnsupportedArchitecture,
        "GGUF's \"bert\" vocabulary always cleans the text and sets CJK characters apart; this WordPiece "
        "tokenizer does otherwise");
  for (const gguf::TokenizerModelName& m : gguf::kTokenizerModels)
    if (m.kind == v.kind) w.add_string(gguf::kTokenizerModelKey, m.name);
  std::vector<std::string> pieces;
  std::vector<int32_t> types;
  for (std::size_t id = 0; id < v.pieces.size(); ++id) {
    pieces.push_back(phantom_from_wordpiece(v.pieces[id], v.types[id], o.continuing_prefix));
    types.push_back(gguf_token_type(v.types[id]));
  }
  w.add_string_array(gguf::kTokensKey, pieces);
  w.add_int32_array(gguf::kTokenTypeKey, types);
  for (auto [key, id] : {std::pair{gguf::kBosTokenIdKey, v.bos_id},
                         {gguf::kEosTokenIdKey, v.eos_id},
                         {gguf::kUnknownTokenIdKey, v.unk_id},
                         {gguf::kClsTokenIdKey, v.cls_id},
                         {gguf::kSepTokenIdKey, v.sep_id},
                         {gguf::kPadTokenIdKey, v.pad_id},
                         {gguf::kMaskTokenIdKey, v.mask_id}}) {
    // An absent id is written as "none": the reader's defaults (bert-base's ids) must not stand in for it.
    w.add_uint32(key, id >= 0 ? static_cast<uint32_t>(id) : 0xFFFFFFFFu);
  }
  w.add_bool(gguf::kAddBosTokenKey, v.add_bos);
  w.add_bool(gguf::kAddEosTokenKey, v.add_sep);
  w.add_bool(gguf::kNormalizerLowercaseKey, o.lowercase);
  w.add_bool(gguf::kNormalizerStripAccentsKey, o.strip_accents);
  if (!v.chat_template.empty()) w.add_string(gguf::kChatTemplateKey, v.chat_template);
  return ok();
}

Result<void> add_tokenizer(GgufWriter& w, const Tokenizer& tokenizer) {
  const Vocabulary& v = tokenizer.vocabulary();
  if (v.kind == TokenizerKind::WordPiece) return add_wordpiece_tokenizer(w, v);
  const bool spm = v.kind == TokenizerKind::SentencePiece;
  for (const gguf::TokenizerModelName& m : gguf::kTokenizerModels)
    if (m.kind == v.kind) w.add_string(gguf::kTokenizerModelKey, m.name);
  if (!spm) {
    for (const gguf::PreTokenizerName& p : gguf::kPreTokenizers) {
      if (p.pre != v.pre_tokenizer) continue;
      w.add_string(gguf::kTokenizerPreKey, p.name);  // the first name of each is the one to write
      break;
    }
  }
  std::vector<std::string> pieces;
  std::vector<int32_t> types;
  for (std::size_t id = 0; id < v.pieces.size(); ++id) {
    // llama2.c spells BOS/EOS "\n<s>\n" and "\n</s>\n"; GGUF vocabularies use the SentencePiece names.
    std::string piece = v.pieces[id];
    if (spm && v.types[id] == TokenType::Control && static_cast<int>(id) == v.bos_id) piece = "<s>";
    if (spm && v.types[id] == TokenType::Control && static_cast<int>(id) == v.eos_id) piece = "</s>";
    pieces.push_back(spm ? sentencepiece_from_spaces(piece) : piece);
    types.push_back(gguf_token_type(v.types[id]));
  }
  w.add_string_array(gguf::kTokensKey, pieces);
  if (spm) w.add_float32_array(gguf::kScoresKey, v.scores);
  w.add_int32_array(gguf::kTokenTypeKey, types);
  if (!spm) w.add_string_array(gguf::kMergesKey, v.merges);
  if (v.bos_id >= 0) w.add_uint32(gguf::kBosTokenIdKey, static_cast<uint32_t>(v.bos_id));
  if (v.eos_id >= 0) w.add_uint32(gguf::kEosTokenIdKey, static_cast<uint32_t>(v.eos_id));
  if (v.unk_id >= 0) w.add_uint32(gguf::kUnknownTokenIdKey, static_cast<uint32_t>(v.unk_id));
  if (v.eot_id >= 0) w.add_uint32(gguf::kEotTokenIdKey, static_cast<uint32_t>(v.eot_id));
  if (v.eom_id >= 0) w.add_uint32(gguf::kEomTokenIdKey, static_cast<uint32_t>(v.eom_id));
  if (!v.chat_template.empty()) w.add_string(gguf::kChatTemplateKey, v.chat_template);
  w.add_bool(gguf::kAddBosTokenKey, v.add_bos);
  if (spm) w.add_bool(gguf::kAddSpacePrefixKey, v.add_space_prefix);
  return ok();
}

}  // namespace

namespace {

// Builds the file and hands its writer to `finish` (to a file or to bytes) while the converted tensors live.
template <class Finish>
Result<ExportSummary> export_with(const Model& model, const Tokenizer& tokenizer, ExportType type,
                                  const std::string& name, Finish&& finish) {
  const ModelConfig& c = model.config;
  bool has_ffn_biases = false;
  for (const LayerWeights& layer : model.weights.layers)
    has_ffn_biases = has_ffn_biases || layer.ffn_gate_bias.present() || layer.ffn_up_bias.present() ||
                     layer.ffn_down_bias.present();
  const gguf::Architecture& arch = gguf::architecture_for(c, has_ffn_biases);

  Exporter out(type);
  GgufWriter& w = out.writer();
  w.add_string(gguf::kArchitectureKey, arch.name);
  w.add_string(gguf::kNameKey, name);
  add_config(w, arch, c);
  GLASSBOX_TRY(add_tokenizer(w, tokenizer));

  const ModelWeights& m = model.weights;
  out.matrix(gguf::kTokenEmbedding, m.token_embedding);
  // Position and token-type tables stay float32, as llama.cpp's quantizer leaves them.
  out.matrix(gguf::kPositionEmbedding, m.position_embedding, true);
  out.matrix(gguf::kTokenTypes, m.token_type_embedding, true);
  out.vector(gguf::kTokenEmbeddingNorm, m.embedding_norm);
  out.vector(gguf::kTokenEmbeddingNormBias, m.embedding_norm_bias);
  // RoPE scaling as one divisor per pair, the way llama.cpp's converter writes Llama 3.1's (and any linear
  // factor folded in), which the reader reads back whatever the architecture; one factor for every pair is
  // linear scaling, written as keys by add_config (gemma3 has no rope_freqs tensor in llama.cpp).
  if (c.position == PositionKind::RoPE && !c.rope_freq_factors.empty() && !linear_rope_factor(c))
    out.vector(gguf::kRopeFreqs,
               Tensor{DType::F32, reinterpret_cast<const std::byte*>(c.rope_freq_factors.data()), 1,
                      static_cast<int64_t>(c.rope_freq_factors.size())});
  for (std::size_t l = 0; l < m.layers.size(); ++l)
    for (const gguf::LayerTensorName& t : gguf::kLayerTensors)
      write_layer_tensor(out, arch, static_cast<int>(l), m.layers[l], t.role);
  out.vector(gguf::kOutputNorm, m.final_norm);
  out.vector(gguf::kOutputNormBias, m.final_norm_bias);
  if (!c.tied_embeddings) out.matrix(gguf::kOutput, m.output);
  const MaskedLmHead& mlm = m.masked_lm;
  out.matrix(gguf::kMaskedLmDense, mlm.dense);
  out.vector(gguf::kMaskedLmDenseBias, mlm.dense_bias);
  out.vector(gguf::kMaskedLmNorm, mlm.norm);
  out.vector(gguf::kMaskedLmNormBias, mlm.norm_bias);
  out.vector(gguf::kMaskedLmOutputBias, mlm.output_bias);
  GLASSBOX_TRY(finish(w));
  return ExportSummary{arch.name, out.fallbacks()};
}

}  // namespace

Result<ExportSummary> export_gguf(const Model& model, const Tokenizer& tokenizer, ExportType type,
                                  const std::string& name, const std::string& path) {
  return export_with(model, tokenizer, type, name, [&](const GgufWriter& w) { return w.write_file(path); });
}

Result<std::vector<std::byte>> export_gguf_bytes(const Model& model, const Tokenizer& tokenizer,
                                                 ExportType type, const std::string& name) {
  std::vector<std::byte> bytes;
  GLASSBOX_TRY(export_with(model, tokenizer, type, name, [&](const GgufWriter& w) -> Result<void> {
    bytes = w.to_bytes();
    return ok();
  }));
  return bytes;
}

}  // namespace glassbox
