// Byte-level BPE's first step: splitting text into words, exactly as these regexes do (Hugging Face's
// tokenizers, with Oniguruma; merges never cross a word boundary):
//   GPT-2    's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   Llama 3  (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|
//            \s*[\r\n]+|\s+(?!\S)|\s+
//   Qwen2    Llama 3 with \p{N} (one digit per word) instead of \p{N}{1,3}
// Hand-written matchers instead of a regex engine: no dependency, linear time, and any byte sequence is
// accepted. Bytes that are not well-formed UTF-8 are characters of their own, neither letters, numbers nor
// whitespace (so they group like punctuation).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "glassbox/tokenizer.hpp"

namespace glassbox {

// A word: the input bytes [begin, end). The words of a text tile it, in order.
struct WordSpan {
  std::size_t begin;
  std::size_t end;
};

// Replaces `words` with the words of `text` (a buffer the caller may reuse across calls).
void split_words(PreTokenizer pre_tokenizer, std::string_view text, std::vector<WordSpan>& words);

inline std::vector<WordSpan> split_words(PreTokenizer pre_tokenizer, std::string_view text) {
  std::vector<WordSpan> words;
  split_words(pre_tokenizer, text, words);
  return words;
}

}  // namespace glassbox
