// Text <-> token ids. A Tokenizer owns its vocabulary (pieces, merge scores, token types, special ids) and
// one encoding algorithm: SentencePiece-style BPE over merge scores (Llama 2, TinyStories) for now.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "glassbox/result.hpp"

namespace glassbox {

enum class TokenType : uint8_t { Normal, Unknown, Control, UserDefined, Unused, Byte };

// One token of an encoded text and the bytes of the input it covers, [byte_begin, byte_end). A token that
// covers no input (the dummy-prefix space, BOS) has an empty span at the position where it stands.
struct EncodedToken {
  int id = 0;
  int byte_begin = 0;
  int byte_end = 0;
};

struct Vocabulary {
  std::vector<std::string> pieces;  // SentencePiece's "▁" is stored as a plain space
  std::vector<float> scores;        // higher merges first
  std::vector<TokenType> types;
  int bos_id = -1;  // -1: none
  int eos_id = -1;
  int unk_id = -1;
  bool add_bos = true;           // whether encoding adds BOS unless told otherwise
  bool add_space_prefix = true;  // SentencePiece's dummy prefix: " " before non-empty text
};

class Tokenizer {
 public:
  // Builds the lookup tables. Checks that the vocabulary is consistent (sizes agree, special ids in range).
  static Result<Tokenizer> create(Vocabulary vocab, const std::string& source);

  // Encodes UTF-8 text. Any byte sequence is accepted: what the vocabulary lacks falls back to <0xXX> byte
  // tokens (or <unk> if the vocabulary has none).
  std::vector<EncodedToken> encode(std::string_view text, bool add_bos) const;
  std::vector<int> encode_ids(std::string_view text, bool add_bos) const;

  // The bytes a token stands for when printed after `previous` (-1 at the start): byte tokens become their
  // byte, control tokens (BOS/EOS) become nothing, and the dummy-prefix space of the first piece after BOS
  // or at the start is dropped. Concatenating these for a sequence gives decode().
  std::string token_text(int previous, int id) const;
  std::string decode(std::span<const int> ids) const;

  int vocab_size() const { return static_cast<int>(vocab_.pieces.size()); }
  const std::string& piece(int id) const { return vocab_.pieces[static_cast<std::size_t>(id)]; }
  TokenType type(int id) const { return vocab_.types[static_cast<std::size_t>(id)]; }
  bool valid_id(int id) const { return id >= 0 && id < vocab_size(); }
  int bos_id() const { return vocab_.bos_id; }
  int eos_id() const { return vocab_.eos_id; }
  bool adds_bos() const { return vocab_.add_bos; }
  const Vocabulary& vocabulary() const { return vocab_; }

 private:
  Vocabulary vocab_;
  std::unordered_map<std::string, int> piece_to_id_;
  int byte_token_[256] = {};  // id of <0xXX>, or -1
};

}  // namespace glassbox
