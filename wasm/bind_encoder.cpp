// The Engine's encoder tasks: sentence embeddings with their similarities, and fill-mask. The core does both
// (glassbox/encoder.hpp: embed_texts, fill_masks, the same functions `glassbox embed` and `glassbox
// fill-mask` call); these only move the texts in and the numbers out.
#include <algorithm>
#include <cstdint>

#include "engine.hpp"

namespace glassbox::wasm {
namespace {

// Rows of floats as Float32Arrays.
val float_rows_to_js(const std::vector<std::vector<float>>& rows) {
  val out = val::array();
  for (const std::vector<float>& row : rows)
    out.call<void>("push", array_to_js(row, "Float32Array"));
  return out;
}

// [{id, piece, probability}] of a list of candidates.
val candidates_to_js(const Tokenizer& tokenizer, const std::vector<TokenProbability>& list) {
  val candidates = val::array();
  for (const TokenProbability& c : list) {
    val candidate = val::object();
    candidate.set("id", c.id);
    candidate.set("piece", tokenizer.piece(c.id));  // WordPiece pieces are whole UTF-8 characters
    candidate.set("probability", c.probability);
    candidates.call<void>("push", candidate);
  }
  return candidates;
}

}  // namespace

// {tokens: Int32Array[] (each text's ids, [CLS] and [SEP] included), embeddings: Float32Array[], similarity:
// Float32Array[] (the cosine of every pair), pooling: 'mean' | 'cls'}. `pooling` '' means what the file
// asks for. All the texts go through one padded batch.
val Engine::embed(const val& texts, const std::string& pooling, bool normalize) {
  if (!model_) return no_model();
  if (!encoder_) return failure(Encoder::create(model_).error());  // the core's words: a decoder generates
  std::optional<Pooling> chosen;
  if (pooling == "mean")
    chosen = Pooling::Mean;
  else if (pooling == "cls")
    chosen = Pooling::Cls;
  else if (!pooling.empty())
    return failure(ErrorCode::BadArgument, "pooling must be 'mean' or 'cls' (or empty: the file's), found '",
                   pooling, "'");
  const std::vector<std::string> list = emscripten::vecFromJSArray<std::string>(texts);
  auto result = embed_texts(*encoder_, *tokenizer_, list, chosen, normalize);
  if (!result) return failure(result.error());
  val tokens = val::array();
  for (const std::vector<int>& ids : result->tokens)
    tokens.call<void>("push", array_to_js(std::vector<int32_t>(ids.begin(), ids.end()), "Int32Array"));
  val out = val::object();
  out.set("tokens", tokens);
  out.set("embeddings", float_rows_to_js(result->embeddings));
  out.set("similarity", float_rows_to_js(result->similarity));
  out.set("pooling", std::string(to_string(result->pooling)));
  return out;
}

// {tokens: Int32Array, masks: [{position, candidates: [{id, piece, probability}]}]}: the text's ids
// ([MASK] written in it is the mask token) and the `top_k` most likely tokens at each [MASK]. While heads
// are switched off (setEncoderHeadScales) the candidates are the ablated run's, and each mask also has
// `before` (every head on) and `klBits` (how far the distribution moved: the core's ablate_fill_masks).
val Engine::fill_mask(const std::string& text, int top_k) {
  if (!model_) return no_model();
  if (!encoder_) return failure(Encoder::create(model_).error());
  val masks = val::array();
  std::vector<int> tokens;
  if (encoder_->head_scales().empty()) {
    auto filled = fill_masks(*encoder_, *tokenizer_, text, top_k);
    if (!filled) return failure(filled.error());
    for (const MaskFill& m : filled->masks) {
      val mask = val::object();
      mask.set("position", m.position);
      mask.set("candidates", candidates_to_js(*tokenizer_, m.candidates));
      masks.call<void>("push", mask);
    }
    tokens = filled->tokens;
  } else {
    const std::vector<float> table(encoder_->head_scales().begin(), encoder_->head_scales().end());
    auto ablated = ablate_fill_masks(*encoder_, *tokenizer_, text, top_k, table);
    if (!ablated) return failure(ablated.error());
    for (const MaskAblation& m : ablated->masks) {
      val mask = val::object();
      mask.set("position", m.position);
      mask.set("candidates", candidates_to_js(*tokenizer_, m.after));
      mask.set("before", candidates_to_js(*tokenizer_, m.before));
      mask.set("klBits", m.change.kl_bits);
      masks.call<void>("push", mask);
    }
    tokens = ablated->tokens;
  }
  val out = val::object();
  out.set("tokens", array_to_js(std::vector<int32_t>(tokens.begin(), tokens.end()), "Int32Array"));
  out.set("masks", masks);
  return out;
}

// Switches an encoder's heads off or scales them (table[layer * heads + head]; empty or all ones: none) for
// every task from now on: embed, fillMask and encoderAttention all read the ablated run. Returns how many
// heads are not at 1.
val Engine::set_encoder_head_scales(const val& scale_list) {
  if (!model_) return no_model();
  if (!encoder_) return failure(Encoder::create(model_).error());
  const std::vector<float> table = emscripten::vecFromJSArray<float>(scale_list);
  if (auto set = encoder_->set_head_scales(table); !set) return failure(set.error());
  const std::span<const float> now = encoder_->head_scales();
  return val(static_cast<int>(std::count_if(now.begin(), now.end(), [](float s) { return s != 1.0f; })));
}

// Where the heads look in a batch of texts (the core's attend_texts, one padded batch), for text `index`:
// {tokens: Int32Array (its ids), length, stride (the batch's padded width), texts, layers, heads, matrix:
// Float32Array [layer][head][stride][stride] (query rows, key columns; 0 in the padding's rows and columns,
// which the page draws as padding), headReports: [{layer, head, role, entropyBits, uniformEntropyBits, sink,
// previousToken, nextToken, separator, punctuation, local}] measured over the text's own rows}.
val Engine::encoder_attention(const val& texts, bool parse_special, int index) {
  if (!model_) return no_model();
  if (!encoder_) return failure(Encoder::create(model_).error());
  const std::vector<std::string> list = emscripten::vecFromJSArray<std::string>(texts);
  if (index < 0 || static_cast<std::size_t>(index) >= list.size())
    return failure(ErrorCode::BadArgument, "encoderAttention: text ", index, " of ", list.size(),
                   " texts (from 0)");
  auto attended = attend_texts(*encoder_, *tokenizer_, list,
                               parse_special ? SpecialTokens::Parse : SpecialTokens::AsText);
  if (!attended) return failure(attended.error());
  const ModelConfig& c = model_->config;
  const std::vector<int>& ids = attended->tokens[static_cast<std::size_t>(index)];
  const AttentionTrace text = attended->text(index);
  const auto n = ids.size(), stride = static_cast<std::size_t>(attended->stride);
  std::vector<float> matrix(static_cast<std::size_t>(c.n_layers) * c.n_heads * stride * stride, 0.0f);
  for (int layer = 0; layer < c.n_layers; ++layer)
    for (int head = 0; head < c.n_heads; ++head)
      for (std::size_t q = 0; q < n; ++q) {
        const std::span<const float> row = text.row(layer, head, static_cast<int>(q));
        std::copy(row.begin(), row.end(),
                  matrix.begin() +
                      static_cast<std::ptrdiff_t>(
                          ((static_cast<std::size_t>(layer) * c.n_heads + head) * stride + q) * stride));
      }
  val heads = val::array();
  for (const EncoderHeadReport& h : measure_encoder_heads(text, *tokenizer_, ids)) {
    val entry = val::object();
    entry.set("layer", h.layer);
    entry.set("head", h.head);
    entry.set("role", std::string(to_string(h.role)));
    entry.set("entropyBits", h.stats.entropy_bits);
    entry.set("uniformEntropyBits", h.stats.uniform_entropy_bits);
    entry.set("sink", h.stats.sink);
    entry.set("previousToken", h.stats.previous);
    entry.set("nextToken", h.next);
    entry.set("separator", h.separator);
    entry.set("punctuation", h.punctuation);
    entry.set("local", h.stats.local);
    heads.call<void>("push", entry);
  }
  val out = val::object();
  out.set("tokens", array_to_js(std::vector<int32_t>(ids.begin(), ids.end()), "Int32Array"));
  out.set("length", static_cast<int>(n));
  out.set("stride", attended->stride);
  out.set("texts", static_cast<int>(list.size()));
  out.set("layers", c.n_layers);
  out.set("heads", c.n_heads);
  out.set("matrix", array_to_js(matrix, "Float32Array"));
  out.set("headReports", heads);
  return out;
}

}  // namespace glassbox::wasm
