// Byte-level BPE (GPT-2, Llama 3, Qwen2). Being written; see the tokenizer work in progress.
#include "glassbox/tokenizer.hpp"

namespace glassbox {

std::vector<EncodedToken> Tokenizer::encode_byte_level(std::string_view) const {
  return {};
}
std::string Tokenizer::byte_level_text(int) const {
  return {};
}

}  // namespace glassbox
