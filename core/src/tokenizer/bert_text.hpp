// BERT's text pipeline before WordPiece: the normalizer (Hugging Face's BertNormalizer) and the pre-tokenizer
// (BertPreTokenizer), on characters that remember the input bytes they came from, so that every token's span
// is in the input even after lowercasing and accent stripping changed the text.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "glassbox/tokenizer.hpp"

namespace glassbox {

// One character of the normalized text and the input bytes [begin, end) it came from. Several characters
// may share a span ("İ" lowercases to "i" U+0307; a Hangul syllable decomposes to two or three jamo).
struct NormalizedChar {
  char32_t code_point;
  int begin;
  int end;
  bool chinese;  // a CJK ideograph of the input: with handle_chinese_chars, a word of its own
};

// A word of the normalized text: characters [first, last).
struct BertWord {
  std::size_t first;
  std::size_t last;
};

// BertNormalizer, in its order: clean the text (drop NUL, U+FFFD and control characters; whitespace becomes
// " "), mark CJK ideographs, lowercase, strip accents (canonical decomposition, then nonspacing marks
// dropped). Bytes that are not UTF-8 read as U+FFFD (so clean_text drops them). Replaces `out`.
void normalize_bert(std::string_view text, const WordPieceOptions& options, std::vector<NormalizedChar>& out);

// BertPreTokenizer: words split at whitespace (which is dropped), and each punctuation character (and, with
// handle_chinese_chars, each CJK ideograph) a word of its own. Replaces `words`.
void split_bert_words(const std::vector<NormalizedChar>& chars, bool handle_chinese_chars,
                      std::vector<BertWord>& words);

// The CJK ideograph blocks BERT sets apart (the CJK Unified Ideographs and their extensions A to E, and the
// compatibility ideographs), exactly the ranges of Google's BERT and Hugging Face's tokenizers.
bool is_chinese_char(char32_t cp);

}  // namespace glassbox
