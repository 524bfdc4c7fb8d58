// Writing a loaded model (any format) as GGUF, re-encoding the weight matrices: what `glassbox convert` does.
// Llama-family models are written with llama.cpp's own architecture names and keys (so llama.cpp reads the
// result); any other config is written as architecture "glassbox" with every choice spelled out.
#include <cstring>

#include "formats/gguf_writer.hpp"
#include "glassbox/formats.hpp"
#include "kernels/quantized.hpp"
#include "model/dtype.hpp"
#include "tokenizer/sentencepiece_space.hpp"
#include "glassbox/error.hpp"

namespace glassbox {
namespace {

// llama.cpp's token types.
int32_t gguf_token_type(TokenType t) {
  switch (t) {
    case TokenType::Normal:
      return 1;
    case TokenType::Unknown:
      return 2;
    case TokenType::Control:
      return 3;
    case TokenType::UserDefined:
      return 4;
    case TokenType::Unused:
      return 5;
    case TokenType::Byte:
      return 6;
  }
  return 1;
}

bool llama_compatible(const ModelConfig& c) {
  return c.norm == NormKind::RMSNorm && c.norm_placement == NormPlacement::PreNorm &&
         c.position == PositionKind::RoPE && c.activation == Activation::SiLU && c.gated_ffn;
}

class Exporter {
 public:
  explicit Exporter(ExportType type) : type_(type) {}

  // Re-encodes a matrix to the target type (vectors stay float32). Rows whose length is not a whole number of
  // quantization blocks fall back to F16, as llama.cpp's quantizer does.
  void matrix(const std::string& name, const Tensor& t) {
    DType target = type_ == ExportType::F32    ? DType::F32
                   : type_ == ExportType::F16  ? DType::F16
                   : type_ == ExportType::Q8_0 ? DType::Q8_0
                                               : DType::Q4_0;
    if (tensor_bytes(target, 1, t.cols) < 0) {
      target = DType::F16;
      ++fallbacks_;
    }
    const auto cols = static_cast<std::size_t>(t.cols);
    const auto out_row_bytes = static_cast<std::size_t>(tensor_bytes(target, 1, t.cols));
    const auto in_row_bytes = static_cast<std::size_t>(tensor_bytes(t.type, 1, t.cols));
    auto data = std::make_shared<std::vector<std::byte>>(out_row_bytes * static_cast<std::size_t>(t.rows));
    std::vector<float> row(cols);
    for (int64_t r = 0; r < t.rows; ++r) {
      kernels::dequantize_row(t.type, t.data + static_cast<std::size_t>(r) * in_row_bytes, row.data(), cols);
      std::byte* out = data->data() + static_cast<std::size_t>(r) * out_row_bytes;
      switch (target) {
        case DType::F16:
          for (std::size_t i = 0; i < cols; ++i) {
            const uint16_t h = kernels::float_to_half(row[i]);
            std::memcpy(out + 2 * i, &h, 2);
          }
          break;
        case DType::Q8_0:
          kernels::quantize_row_q8_0(row.data(), out, cols);
          break;
        case DType::Q4_0:
          kernels::quantize_row_q4_0(row.data(), out, cols);
          break;
        default:
          std::memcpy(out, row.data(), cols * sizeof(float));
          break;
      }
    }
    add(name, {static_cast<uint64_t>(t.cols), static_cast<uint64_t>(t.rows)}, ggml_type_for_dtype(target),
        data);
  }

  void vector(const std::string& name, const Tensor& t) {
    if (!t.present()) return;
    const auto n = static_cast<std::size_t>(t.elements());
    auto data = std::make_shared<std::vector<std::byte>>(n * sizeof(float));
    kernels::dequantize_row(t.type, t.data, reinterpret_cast<float*>(data->data()), n);
    add(name, {n}, 0, data);
  }

  // Rows of several matrices stacked into one (GPT-2's fused q/k/v), re-encoded.
  void stacked(const std::string& name, std::initializer_list<Tensor> parts) {
    Tensor whole = *parts.begin();
    std::vector<float> rows;
    const auto cols = static_cast<std::size_t>(whole.cols);
    for (const Tensor& t : parts) {
      const auto in_row_bytes = static_cast<std::size_t>(tensor_bytes(t.type, 1, t.cols));
      for (int64_t r = 0; r < t.rows; ++r) {
        rows.resize(rows.size() + cols);
        kernels::dequantize_row(t.type, t.data + static_cast<std::size_t>(r) * in_row_bytes,
                                rows.data() + rows.size() - cols, cols);
      }
    }
    auto floats = std::make_shared<std::vector<float>>(std::move(rows));
    matrix(name, Tensor{DType::F32, reinterpret_cast<const std::byte*>(floats->data()),
                        static_cast<int64_t>(floats->size() / cols), whole.cols});
    keep_.push_back(floats);
  }

  GgufWriter& writer() { return writer_; }
  int fallbacks() const { return fallbacks_; }

 private:
  void add(const std::string& name, std::vector<uint64_t> dims, uint32_t ggml_type,
           const std::shared_ptr<std::vector<std::byte>>& data) {
    writer_.add_tensor(name, std::move(dims), ggml_type, std::span<const std::byte>(*data), data);
  }

  ExportType type_;
  GgufWriter writer_;
  int fallbacks_ = 0;
  std::vector<std::shared_ptr<const void>> keep_;
};

void add_tokenizer(GgufWriter& w, const Tokenizer& tokenizer) {
  const Vocabulary& v = tokenizer.vocabulary();
  const bool spm = v.kind == TokenizerKind::SentencePiece;
  w.add_string("tokenizer.ggml.model", spm ? "llama" : "gpt2");
  if (!spm) {
    const char* pre = v.pre_tokenizer == PreTokenizer::Llama3  ? "llama-bpe"
                      : v.pre_tokenizer == PreTokenizer::Qwen2 ? "qwen2"
                                                               : "gpt-2";
    w.add_string("tokenizer.ggml.pre", pre);
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
  w.add_string_array("tokenizer.ggml.tokens", pieces);
  if (spm) w.add_float32_array("tokenizer.ggml.scores", v.scores);
  w.add_int32_array("tokenizer.ggml.token_type", types);
  if (!spm) w.add_string_array("tokenizer.ggml.merges", v.merges);
  if (v.bos_id >= 0) w.add_uint32("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(v.bos_id));
  if (v.eos_id >= 0) w.add_uint32("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(v.eos_id));
  if (v.unk_id >= 0) w.add_uint32("tokenizer.ggml.unknown_token_id", static_cast<uint32_t>(v.unk_id));
  w.add_bool("tokenizer.ggml.add_bos_token", v.add_bos);
  if (spm) w.add_bool("tokenizer.ggml.add_space_prefix", v.add_space_prefix);
}

}  // namespace

Result<ExportSummary> export_gguf(const Model& model, const Tokenizer& tokenizer, ExportType type,
                                  const std::string& name, const std::string& path) {
  const ModelConfig& c = model.config;
  const bool llama = llama_compatible(c);
  const bool gpt2 = c.norm == NormKind::LayerNorm && c.position == PositionKind::Learned && !c.gated_ffn &&
                    c.activation == Activation::GELU && c.norm_placement == NormPlacement::PreNorm;
  // llama.cpp's qwen2 rotates whole heads; a partial half-split rotation goes out under our own name.
  const bool whole_heads = c.rotary_dim() == c.head_dim;
  std::string arch = "glassbox";
  if (llama && c.rope_pairing == RopePairing::Adjacent) arch = "llama";
  if (llama && c.rope_pairing == RopePairing::HalfSplit && whole_heads) arch = "qwen2";
  if (gpt2) arch = "gpt2";

  Exporter out(type);
  GgufWriter& w = out.writer();
  const auto key = [&](const char* k) { return arch + "." + k; };
  w.add_string("general.architecture", arch);
  w.add_string("general.name", name);
  w.add_uint32(key("context_length"), static_cast<uint32_t>(c.max_seq_len));
  w.add_uint32(key("embedding_length"), static_cast<uint32_t>(c.dim));
  w.add_uint32(key("feed_forward_length"), static_cast<uint32_t>(c.hidden_dim));
  w.add_uint32(key("block_count"), static_cast<uint32_t>(c.n_layers));
  w.add_uint32(key("attention.head_count"), static_cast<uint32_t>(c.n_heads));
  w.add_uint32(key("attention.head_count_kv"), static_cast<uint32_t>(c.n_kv_heads));
  if (arch == "gpt2" || arch == "glassbox") {
    w.add_float32(key("attention.layer_norm_epsilon"), c.norm_eps);
  } else {
    w.add_float32(key("attention.layer_norm_rms_epsilon"), c.norm_eps);
  }
  if (c.position == PositionKind::RoPE) {
    w.add_uint32(key("rope.dimension_count"), static_cast<uint32_t>(c.rotary_dim()));
    w.add_float32(key("rope.freq_base"), c.rope_theta);
  }
  if (arch == "glassbox") {
    w.add_string(key("norm"), c.norm == NormKind::RMSNorm ? "rmsnorm" : "layernorm");
    w.add_string(key("norm_placement"), c.norm_placement == NormPlacement::PreNorm ? "pre" : "post");
    w.add_string(key("position"), to_string(c.position));
    w.add_string(key("rope.pairing"), c.rope_pairing == RopePairing::Adjacent ? "adjacent" : "half");
    w.add_string(key("activation"), to_string(c.activation));
    w.add_bool(key("ffn_gated"), c.gated_ffn);
  }
  add_tokenizer(w, tokenizer);

  const ModelWeights& m = model.weights;
  out.matrix("token_embd.weight", m.token_embedding);
  if (m.position_embedding.present()) out.matrix("position_embd.weight", m.position_embedding);
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    const LayerWeights& L = m.layers[l];
    const std::string blk = "blk." + std::to_string(l) + ".";
    out.vector(blk + "attn_norm.weight", L.attn_norm);
    out.vector(blk + "attn_norm.bias", L.attn_norm_bias);
    if (arch == "gpt2") {
      out.stacked(blk + "attn_qkv.weight", {L.wq, L.wk, L.wv});
      if (L.bq.present()) {
        auto bias = std::make_shared<std::vector<float>>();
        for (const Tensor* b : {&L.bq, &L.bk, &L.bv})
          bias->insert(bias->end(), b->f32(), b->f32() + b->elements());
        out.vector(blk + "attn_qkv.bias", Tensor{DType::F32, reinterpret_cast<const std::byte*>(bias->data()),
                                                 1, static_cast<int64_t>(bias->size())});
      }
    } else {
      out.matrix(blk + "attn_q.weight", L.wq);
      out.matrix(blk + "attn_k.weight", L.wk);
      out.matrix(blk + "attn_v.weight", L.wv);
      out.vector(blk + "attn_q.bias", L.bq);
      out.vector(blk + "attn_k.bias", L.bk);
      out.vector(blk + "attn_v.bias", L.bv);
    }
    out.matrix(blk + "attn_output.weight", L.wo);
    out.vector(blk + "attn_output.bias", L.bo);
    out.vector(blk + "ffn_norm.weight", L.ffn_norm);
    out.vector(blk + "ffn_norm.bias", L.ffn_norm_bias);
    if (L.ffn_gate.present()) out.matrix(blk + "ffn_gate.weight", L.ffn_gate);
    out.vector(blk + "ffn_gate.bias", L.ffn_gate_bias);
    out.matrix(blk + "ffn_up.weight", L.ffn_up);
    out.vector(blk + "ffn_up.bias", L.ffn_up_bias);
    out.matrix(blk + "ffn_down.weight", L.ffn_down);
    out.vector(blk + "ffn_down.bias", L.ffn_down_bias);
  }
  out.vector("output_norm.weight", m.final_norm);
  out.vector("output_norm.bias", m.final_norm_bias);
  if (!c.tied_embeddings) out.matrix("output.weight", m.output);
  GLASSBOX_TRY(w.write_file(path));
  return ExportSummary{arch, out.fallbacks()};
}

}  // namespace glassbox
