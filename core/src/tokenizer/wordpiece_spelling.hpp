// How GGUF spells a WordPiece vocabulary: llama.cpp's converter writes BERT's pieces in a "phantom space" form,
// "▁" (U+2581) before a piece that begins a word and nothing before one that continues a word ("##ing" is
// stored as "ing"); its special tokens ([CLS], [SEP], ...) are stored as they are. glassbox keeps Hugging
// Face's form (WordPieceOptions::continuing_prefix before continuing pieces), so pieces read the same from
// tokenizer.json and GGUF; the GGUF reader and writer convert.
#pragma once

#include <string>
#include <string_view>

#include "glassbox/tokenizer.hpp"
#include "tokenizer/sentencepiece_space.hpp"

namespace glassbox {

// Control tokens are stored verbatim by llama.cpp's converter ([UNK] among them: glassbox marks it Unknown
// once read, and writes it verbatim too); so are unused slots, which no word contains.
inline bool wordpiece_spelled_verbatim(TokenType type) {
  return type == TokenType::Control || type == TokenType::Unknown || type == TokenType::Unused;
}

inline std::string wordpiece_from_phantom(std::string_view piece, TokenType type, std::string_view prefix) {
  if (wordpiece_spelled_verbatim(type)) return std::string(piece);
  if (piece.substr(0, kSentencePieceSpace.size()) == kSentencePieceSpace)
    return std::string(piece.substr(kSentencePieceSpace.size()));
  return std::string(prefix) + std::string(piece);
}

inline std::string phantom_from_wordpiece(std::string_view piece, TokenType type, std::string_view prefix) {
  if (wordpiece_spelled_verbatim(type)) return std::string(piece);
  if (!prefix.empty() && piece.substr(0, prefix.size()) == prefix)
    return std::string(piece.substr(prefix.size()));
  return kSentencePieceSpace + std::string(piece);
}

}  // namespace glassbox
