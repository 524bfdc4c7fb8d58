// Text <-> token ids. A Tokenizer owns its vocabulary (pieces, merges, token types, special ids) and one of
// two encoding algorithms:
//   SentencePiece-style BPE (Llama 2, TinyStories, Phi-3): merges chosen by piece score, byte fallback
//   byte-level BPE (GPT-2, Llama 3, Qwen2): text split by a pre-tokenizer regex, bytes mapped to printable
//   characters, merges applied by rank
#pragma once

#include <array>
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

enum class TokenizerKind { SentencePiece, ByteLevelBpe };

// How byte-level BPE splits text into words before merging (the regexes of the GPT-2, Llama 3 and Qwen2
// tokenizers).
enum class PreTokenizer { Gpt2, Llama3, Qwen2 };

struct Vocabulary {
  TokenizerKind kind = TokenizerKind::SentencePiece;
  std::vector<std::string> pieces;  // SentencePiece's "▁" is stored as a plain space; byte-level pieces keep
                                    // GPT-2's printable byte mapping ("Ġ" for a space)
  std::vector<float> scores;  // SentencePiece: higher merges first
  std::vector<TokenType> types;
  std::vector<std::string> merges;  // byte-level BPE: "left right", highest priority first
  PreTokenizer pre_tokenizer = PreTokenizer::Gpt2;
  // Byte-level BPE: a word that is itself a piece becomes that one token without merging (tiktoken's rule,
  // which Llama 3 follows). Tokenizer::create turns it on for the Llama 3 pre-tokenizer, as llama.cpp does,
  // since GGUF files do not store it.
  bool ignore_merges = false;
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
  // A prompt to generate from: BOS first when the vocabulary asks for it, or when the text is empty (the
  // model needs one token to start from).
  std::vector<int> encode_prompt(std::string_view text) const {
    return encode_ids(text, adds_bos() || text.empty());
  }

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
  // Whether sampling `id` ends a text: EOS, or BOS (a new text would begin, llama2.c's rule). The one place
  // that says so; Generator stops on it.
  bool ends_text(int id) const { return id >= 0 && (id == vocab_.eos_id || id == vocab_.bos_id); }
  const Vocabulary& vocabulary() const { return vocab_; }

 private:
  std::vector<EncodedToken> encode_sentencepiece(std::string_view text) const;
  std::vector<EncodedToken> encode_byte_level(std::string_view text) const;
  std::string byte_level_text(int id) const;
  Result<void> build_merge_ranks(const std::string& source);

  // What merging a pair of adjacent byte-level symbols gives: the pair's rank (lower merges first) and the
  // id of the merged piece.
  struct Merge {
    int rank;
    int id;
  };
  static uint64_t pair_key(int left, int right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }

  Vocabulary vocab_;
  std::unordered_map<std::string, int> piece_to_id_;
  int byte_token_[256] = {};  // id of <0xXX>, or -1
  // Byte-level BPE: the merges by pair of piece ids, and the id of each byte's one-character piece (-1 if the
  // vocabulary lacks it).
  std::unordered_map<uint64_t, Merge> merges_;
  std::array<int, 256> byte_piece_{};
};

}  // namespace glassbox
