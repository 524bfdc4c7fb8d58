// The Engine's vocabulary: tokenizing text, the pieces of ids, what a chat needs.
#include <cstdint>

#include "engine.hpp"

namespace glassbox::wasm {

// Pieces of many tokens at once (labels of the attention view): an array of Uint8Array, an empty one for an
// id outside the vocabulary.
val Engine::pieces(const val& ids) const {
  if (!tokenizer_) return no_model();
  const std::vector<int> list = emscripten::vecFromJSArray<int>(ids);
  val out = val::array();
  for (int id : list)
    out.call<void>("push", bytes_to_js(tokenizer_->valid_id(id) ? tokenizer_->piece(id) : std::string()));
  return out;
}

// {ids: Int32Array, begins: Int32Array, ends: Int32Array, pieces: Uint8Array[]}: each token's id, the input
// byte span it covers, and its vocabulary piece as bytes. With `parse_special` the spellings of special tokens
// in the text become those tokens (a rendered chat).
val Engine::tokenize(const std::string& text, bool add_bos, bool parse_special) const {
  if (!tokenizer_) return no_model();
  const std::vector<EncodedToken> tokens =
      tokenizer_->encode(text, add_bos, parse_special ? SpecialTokens::Parse : SpecialTokens::AsText);
  std::vector<int32_t> ids, begins, ends;
  val pieces = val::array();
  for (const EncodedToken& t : tokens) {
    ids.push_back(t.id);
    begins.push_back(t.byte_begin);
    ends.push_back(t.byte_end);
    pieces.call<void>("push", bytes_to_js(tokenizer_->piece(t.id)));
  }
  val result = val::object();
  result.set("ids", array_to_js(ids, "Int32Array"));
  result.set("begins", array_to_js(begins, "Int32Array"));
  result.set("ends", array_to_js(ends, "Int32Array"));
  result.set("pieces", pieces);
  return result;
}

// What a chat needs of the vocabulary: {template, bosId, eosId, addsBos, endIds, specialIds} (the template's
// Jinja source, "" when the model has none; whether a prompt starts with BOS; the ids that end a turn; the ids
// spelled as special tokens).
val Engine::chat_info() const {
  if (!tokenizer_) return no_model();
  std::vector<int32_t> special(tokenizer_->special_ids().begin(), tokenizer_->special_ids().end());
  std::sort(special.begin(), special.end());
  const std::vector<int> ends = tokenizer_->end_ids();
  val result = val::object();
  result.set("template", tokenizer_->chat_template());
  result.set("bosId", tokenizer_->bos_id());
  result.set("eosId", tokenizer_->eos_id());
  result.set("addsBos", tokenizer_->adds_bos());
  result.set("endIds", array_to_js(std::vector<int32_t>(ends.begin(), ends.end()), "Int32Array"));
  result.set("specialIds", array_to_js(special, "Int32Array"));
  return result;
}

// The vocabulary piece of a token, as bytes.
val Engine::piece(int id) const {
  if (!tokenizer_) return no_model();
  if (auto valid = check_token_id(id, tokenizer_->vocab_size()); !valid) return failure(valid.error());
  return bytes_to_js(tokenizer_->piece(id));
}

}  // namespace glassbox::wasm
