// The vocabulary side of a Tokenizer: lookup tables, validation and decoding. Encoding lives beside it, one
// file per algorithm (spm_bpe.cpp, byte_level_bpe.cpp, wordpiece.cpp).
#include <algorithm>
#include <cstdio>
#include <functional>

#include "glassbox/error.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox {
namespace {

// "<0x41>" -> 0x41; -1 for anything else.
int parse_byte_piece(const std::string& piece) {
  unsigned value = 0;
  char tail = 0;
  if (piece.size() != 6 || std::sscanf(piece.c_str(), "<0x%2X>%c", &value, &tail) != 1) return -1;
  return static_cast<int>(value);
}

}  // namespace

// end_of_generation.cpp, special_tokens.cpp
std::vector<bool> ending_tokens(const Vocabulary& vocab);
std::vector<int> special_ids_longest_first(const Vocabulary& vocab);

Result<Tokenizer> Tokenizer::create(Vocabulary vocab, const std::string& source) {
  const std::vector<std::string> merges = std::move(vocab.merges);
  return create(
      std::move(vocab), merges.size(), [&](std::size_t k) -> std::string_view { return merges[k]; }, source);
}

Result<Tokenizer> Tokenizer::create(Vocabulary vocab, std::size_t merge_count,
                                    const std::function<std::string_view(std::size_t)>& merge,
                                    const std::string& source) {
  vocab.merges = {};
  const std::size_t n = vocab.pieces.size();
  if (n == 0) return error(ErrorCode::Malformed, source, ": the vocabulary is empty");
  if (vocab.scores.size() != n)
    return error(ErrorCode::Malformed, source, ": vocabulary has ", n, " pieces but ", vocab.scores.size(),
                 " scores");
  if (vocab.types.size() != n)
    return error(ErrorCode::Malformed, source, ": vocabulary has ", n, " pieces but ", vocab.types.size(),
                 " token types");
  for (auto [name, id] : {std::pair{"bos", vocab.bos_id},
                          {"eos", vocab.eos_id},
                          {"unk", vocab.unk_id},
                          {"end-of-turn", vocab.eot_id},
                          {"end-of-message", vocab.eom_id},
                          {"cls", vocab.cls_id},
                          {"sep", vocab.sep_id},
                          {"mask", vocab.mask_id},
                          {"pad", vocab.pad_id}}) {
    if (id < -1 || id >= static_cast<int>(n))
      return error(ErrorCode::Malformed, source, ": ", name, " token id must be below the vocabulary size ",
                   n, ", found ", id);
  }

  if (vocab.kind == TokenizerKind::WordPiece) {
    if (vocab.add_sep && vocab.sep_id < 0)
      return error(ErrorCode::Malformed, source,
                   ": the vocabulary ends a text with [SEP] but names no sep token");
    if (vocab.wordpiece.max_input_chars_per_word < 0)
      return error(ErrorCode::Malformed, source,
                   ": max_input_chars_per_word must be 0 (no limit) or more, found ",
                   vocab.wordpiece.max_input_chars_per_word);
  }

  Tokenizer t;
  t.vocab_ = std::move(vocab);
  std::fill(std::begin(t.byte_token_), std::end(t.byte_token_), -1);
  t.piece_ids_ = detail::IdIndex(n);
  const std::vector<std::string>& pieces = t.vocab_.pieces;
  for (std::size_t id = 0; id < n; ++id) {
    const std::string& piece = pieces[id];
    const int byte = parse_byte_piece(piece);
    if (byte >= 0 && t.vocab_.types[id] == TokenType::Byte) t.byte_token_[byte] = static_cast<int>(id);
    // Only ordinary pieces take part in merging; the first of duplicated pieces wins, as in SentencePiece.
    if (t.vocab_.types[id] == TokenType::Normal || t.vocab_.types[id] == TokenType::UserDefined) {
      t.piece_ids_.insert(detail::IdIndex::hash_text(piece), static_cast<int32_t>(id),
                          [&](int32_t other) { return pieces[static_cast<std::size_t>(other)] == piece; });
      t.longest_piece_ = std::max(t.longest_piece_, piece.size());
    }
  }
  t.ends_text_ = ending_tokens(t.vocab_);
  t.special_ids_ = special_ids_longest_first(t.vocab_);
  if (t.vocab_.kind == TokenizerKind::ByteLevelBpe) {
    // llama.cpp ignores merges for whole-piece words with Llama 3's pre-tokenizer, as tiktoken does; GGUF
    // files do not store the flag, so it follows from the pre-tokenizer.
    if (t.vocab_.pre_tokenizer == PreTokenizer::Llama3) t.vocab_.ignore_merges = true;
    GLASSBOX_TRY(t.build_merge_ranks(merge_count, merge, source));
  }
  return t;
}

Vocabulary Tokenizer::vocabulary() const {
  Vocabulary v = vocab_;
  v.merges.reserve(merges_.size());
  for (const Merge& m : merges_)
    v.merges.push_back(piece(m.left) + " " + piece(m.right));
  return v;
}

uint64_t detail::IdIndex::hash_text(std::string_view text) {
  return std::hash<std::string_view>{}(text);
}

uint64_t detail::IdIndex::hash_pair(int left, int right) {
  // MurmurHash3's finalizer: neighbouring pairs land far apart.
  uint64_t h = (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  return h;
}

int Tokenizer::piece_id(std::string_view piece) const {
  return piece_ids_.find(detail::IdIndex::hash_text(piece),
                         [&](int32_t id) { return vocab_.pieces[static_cast<std::size_t>(id)] == piece; });
}

std::string Tokenizer::token_text(int previous, int id) const {
  if (!valid_id(id)) return {};
  switch (type(id)) {
    case TokenType::Control:
    case TokenType::Unused:
      return {};
    case TokenType::Byte: {
      const int byte = parse_byte_piece(piece(id));
      return byte >= 0 ? std::string(1, static_cast<char>(byte)) : std::string{};
    }
    default:
      break;
  }
  if (vocab_.kind == TokenizerKind::ByteLevelBpe) return byte_level_text(id);
  if (vocab_.kind == TokenizerKind::WordPiece) return wordpiece_text(previous, id);
  const std::string& text = piece(id);
  const bool after_start = previous < 0 || previous == vocab_.bos_id;
  if (vocab_.add_space_prefix && after_start && !text.empty() && text[0] == ' ') return text.substr(1);
  return text;
}

std::string Tokenizer::decode(std::span<const int> ids) const {
  std::string text;
  int previous = -1;
  for (int id : ids) {
    text += token_text(previous, id);
    previous = id;
  }
  return text;
}

}  // namespace glassbox
