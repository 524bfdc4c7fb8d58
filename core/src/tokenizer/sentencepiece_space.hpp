// SentencePiece writes a space as "▁" (U+2581) inside its pieces; glassbox's SentencePiece code works with
// plain spaces. Files that store pieces (GGUF, tokenizer.json) are converted on the way in and out.
#pragma once

#include <string>
#include <string_view>

namespace glassbox {

inline const std::string kSentencePieceSpace = "\xE2\x96\x81";  // "▁"

inline std::string spaces_from_sentencepiece(std::string_view piece) {
  std::string out;
  for (std::size_t i = 0; i < piece.size();) {
    if (piece.substr(i, kSentencePieceSpace.size()) == kSentencePieceSpace) {
      out += ' ';
      i += kSentencePieceSpace.size();
    } else {
      out += piece[i++];
    }
  }
  return out;
}

inline std::string sentencepiece_from_spaces(const std::string& piece) {
  std::string out;
  for (char c : piece) {
    if (c == ' ') {
      out += kSentencePieceSpace;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace glassbox
