// The Engine's encoder tasks: sentence embeddings with their similarities, and fill-mask. The core does both
// (glassbox/encoder.hpp: embed_texts, fill_masks, the same functions `glassbox embed` and `glassbox
// fill-mask` call); these only move the texts in and the numbers out.
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
// ([MASK] written in it is the mask token) and the `top_k` most likely tokens at each [MASK].
val Engine::fill_mask(const std::string& text, int top_k) {
  if (!model_) return no_model();
  if (!encoder_) return failure(Encoder::create(model_).error());
  auto filled = fill_masks(*encoder_, *tokenizer_, text, top_k);
  if (!filled) return failure(filled.error());
  val masks = val::array();
  for (const MaskFill& m : filled->masks) {
    val candidates = val::array();
    for (const TokenProbability& c : m.candidates) {
      val candidate = val::object();
      candidate.set("id", c.id);
      candidate.set("piece", tokenizer_->piece(c.id));  // WordPiece pieces are whole UTF-8 characters
      candidate.set("probability", c.probability);
      candidates.call<void>("push", candidate);
    }
    val mask = val::object();
    mask.set("position", m.position);
    mask.set("candidates", candidates);
    masks.call<void>("push", mask);
  }
  val out = val::object();
  out.set("tokens",
          array_to_js(std::vector<int32_t>(filled->tokens.begin(), filled->tokens.end()), "Int32Array"));
  out.set("masks", masks);
  return out;
}

}  // namespace glassbox::wasm
