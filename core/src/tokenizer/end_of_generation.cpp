// Which sampled tokens end a text (Tokenizer::ends_text). A base model's text ends at EOS; a chat model's
// reply ends at the end of its turn, which GGUF names in tokenizer.ggml.eot_token_id (and eom_token_id for
// Llama 3.1's end of a tool-calling message). Many files leave those keys out, or name EOS as something else
// than the turn's end (Qwen2.5: EOS <|endoftext|>, turns end with <|im_end|>), so a special token spelled as
// one of the ends of turn the common chat vocabularies use ends a text too, as it does in llama.cpp.
#include <algorithm>
#include <string_view>

#include "glassbox/tokenizer.hpp"

namespace glassbox {
namespace {

// Spellings of the end of a turn or of a text in the chat vocabularies glassbox is used with: ChatML
// (SmolLM2, Qwen), Gemma, Llama 3, Phi-3, GPT-2-style base vocabularies.
constexpr std::string_view kEndSpellings[] = {
    "<|im_end|>", "<end_of_turn>", "<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<|endoftext|>", "<|end|>",
};

bool spelled_as_end(std::string_view piece) {
  return std::find(std::begin(kEndSpellings), std::end(kEndSpellings), piece) != std::end(kEndSpellings);
}

}  // namespace

std::vector<bool> ending_tokens(const Vocabulary& vocab) {
  std::vector<bool> ends(vocab.pieces.size(), false);
  for (int id : {vocab.eos_id, vocab.bos_id, vocab.eot_id, vocab.eom_id})
    if (id >= 0 && static_cast<std::size_t>(id) < ends.size()) ends[static_cast<std::size_t>(id)] = true;
  // Only special tokens: an ordinary piece that happens to read "<|end|>" is text a model may write.
  for (std::size_t id = 0; id < vocab.pieces.size(); ++id)
    if ((vocab.types[id] == TokenType::Control || vocab.types[id] == TokenType::UserDefined) &&
        spelled_as_end(vocab.pieces[id]))
      ends[id] = true;
  return ends;
}

std::vector<int> Tokenizer::end_ids() const {
  std::vector<int> ids;
  for (std::size_t id = 0; id < ends_text_.size(); ++id)
    if (ends_text_[id]) ids.push_back(static_cast<int>(id));
  return ids;
}

}  // namespace glassbox
