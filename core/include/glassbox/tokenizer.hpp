// Text <-> token ids. A Tokenizer owns its vocabulary (pieces, merges, token types, special ids) and one of
// three encoding algorithms:
//   SentencePiece-style BPE (Llama 2, TinyStories, Phi-3): merges chosen by piece score, byte fallback
//   byte-level BPE (GPT-2, Llama 3, Qwen2): text split by a pre-tokenizer regex, bytes mapped to printable
//   characters, merges applied by rank
//   WordPiece (BERT and its family of encoders): text normalized (cleaned, CJK characters apart, lowercased and
//   accents stripped where the file says), split on whitespace and punctuation, then each word covered
//   greedily by the longest pieces, "##" before the pieces that continue a word
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
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

enum class TokenizerKind { SentencePiece, ByteLevelBpe, WordPiece };

// Whether encoding reads the spellings of special tokens in the text as those tokens ("<|im_start|>" becomes
// one Control token) or as ordinary text. A chat template writes its turns' markers as text, so a rendered
// conversation is encoded with Parse; text a person typed is encoded with AsText, so that it cannot forge them.
enum class SpecialTokens { AsText, Parse };

// How byte-level BPE splits text into words before merging (the regexes of the GPT-2, Llama 3 and Qwen2
// tokenizers).
enum class PreTokenizer { Gpt2, Llama3, Qwen2 };

namespace detail {

// A hash index of int32 values (token ids, merge ranks) whose keys live elsewhere: a slot holds only the value
// (4 bytes, where a std::unordered_map<std::string, int> entry costs a node and a copy of the key, about 64),
// and each lookup brings the key's hash and a test of whether a value's key is the one sought. Linear probing
// in a power-of-two table at most 3/4 full.
class IdIndex {
 public:
  IdIndex() : IdIndex(0) {}
  // Room for `count` values.
  explicit IdIndex(std::size_t count) {
    int bits = 1;
    while ((std::size_t{1} << bits) * 3 < count * 4 + 4)
      ++bits;
    slots_.assign(std::size_t{1} << bits, -1);
    shift_ = 64 - bits;
  }

  // The value whose key `matches` accepts, or -1.
  template <class Matches>
  int find(uint64_t hash, const Matches& matches) const {
    for (std::size_t i = first_slot(hash);; i = (i + 1) & (slots_.size() - 1)) {
      const int32_t value = slots_[i];
      if (value < 0 || matches(value)) return value;
    }
  }

  // Adds `value` unless a value with the same key is there already (which stays). False when the index is
  // full (one slot always stays empty, so that find ends).
  template <class Matches>
  bool insert(uint64_t hash, int32_t value, const Matches& matches) {
    for (std::size_t i = first_slot(hash);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] >= 0) {
        if (matches(slots_[i])) return true;
        continue;
      }
      if (size_ + 2 > slots_.size()) return false;
      slots_[i] = value;
      ++size_;
      return true;
    }
  }

  static uint64_t hash_text(std::string_view text);
  static uint64_t hash_pair(int left, int right);

 private:
  // Fibonacci hashing: the top bits of the product depend on every bit of the hash.
  std::size_t first_slot(uint64_t hash) const {
    return static_cast<std::size_t>((hash * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  std::vector<int32_t> slots_;  // -1: empty
  int shift_ = 63;
  std::size_t size_ = 0;
};

}  // namespace detail

// How a WordPiece tokenizer reads text: BERT's normalizer (Hugging Face's BertNormalizer), and the spelling and
// limits of its pieces. The defaults are bert-base-uncased's.
struct WordPieceOptions {
  bool clean_text = true;            // drop NUL, U+FFFD and control characters; any whitespace becomes " "
  bool handle_chinese_chars = true;  // each CJK ideograph is a word of its own
  bool lowercase = true;
  bool strip_accents = true;  // canonical decomposition (NFD), then nonspacing marks (Mn) dropped
  // How a piece that continues a word is spelled: "##ing". Pieces are stored so in the Vocabulary, whatever
  // the file's form (GGUF's phantom-space form is converted when read and written).
  std::string continuing_prefix = "##";
  // A longer word (in characters, after normalizing) becomes [UNK]; 0: no limit. Hugging Face's (tokenizer.json)
  // is 100 by default; llama.cpp's WordPiece has none, and GGUF no key for one, so a GGUF vocabulary has none
  // either and a 120-letter word gets the pieces llama.cpp gives it.
  int max_input_chars_per_word = 100;
};

struct Vocabulary {
  TokenizerKind kind = TokenizerKind::SentencePiece;
  std::vector<std::string> pieces;  // SentencePiece's "▁" is stored as a plain space; byte-level pieces keep
                                    // GPT-2's printable byte mapping ("Ġ" for a space)
  std::vector<float> scores;        // SentencePiece: higher merges first
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
  int eot_id = -1;  // end of turn (<|im_end|>, <end_of_turn>, <|eot_id|>): a chat model's reply ends on it
  int eom_id = -1;  // end of message (Llama 3.1's <|eom_id|>, after a tool call): generation ends on it too
  // Encoders' special tokens (BERT's [CLS], [SEP], [MASK], [PAD]). A WordPiece vocabulary's bos_id is its
  // [CLS] (what a text starts with) and eos_id its [SEP]; mask_id is what fill-mask predicts, pad_id what a
  // batch pads with.
  int cls_id = -1;
  int sep_id = -1;
  int mask_id = -1;
  int pad_id = -1;
  bool add_bos = true;  // whether encoding adds BOS unless told otherwise
  // Whether encoding that adds BOS also ends the text with sep_id: BERT's "[CLS] text [SEP]". Only WordPiece
  // vocabularies set it (the decoders' files that name an EOS after the text are not given one, as before).
  bool add_sep = false;
  bool add_space_prefix = true;  // SentencePiece's dummy prefix: " " before non-empty text
  // The model's chat template (Jinja source, GGUF's tokenizer.chat_template): how a conversation becomes the
  // text an instruct model was trained on. Empty when the file has none. Rendering it is the caller's work.
  std::string chat_template;
  WordPieceOptions wordpiece;  // WordPiece only
};

class Tokenizer {
 public:
  // Builds the lookup tables. Checks that the vocabulary is consistent (sizes agree, special ids in range).
  static Result<Tokenizer> create(Vocabulary vocab, const std::string& source);
  // The same with a byte-level vocabulary's merges given apart (vocab.merges is ignored): `merge(k)` is merge
  // k, "left right", for k < merge_count. A reader holding its merges packed in one buffer need not make a
  // std::string of each (tokenizer.json: Qwen2's 151k merges would take 5 MB as strings).
  static Result<Tokenizer> create(Vocabulary vocab, std::size_t merge_count,
                                  const std::function<std::string_view(std::size_t)>& merge,
                                  const std::string& source);

  // Encodes UTF-8 text. Any byte sequence is accepted: what the vocabulary lacks falls back to <0xXX> byte
  // tokens (or <unk> if the vocabulary has none; WordPiece: [UNK] for each word it cannot cover). With
  // add_bos, a vocabulary with add_sep also ends the tokens with sep_id ([CLS] text [SEP]).
  // Every token's span is in the input's bytes, whatever normalizing did to the text (WordPiece lowercases and
  // strips accents: "Café" gives "cafe" over all 5 bytes).
  // With SpecialTokens::Parse the text is first split on the spellings of the Control, UserDefined and
  // Unknown tokens (the longest spelling first, as llama.cpp's parse_special does), each found spelling
  // becomes its token and the pieces between are encoded as text.
  std::vector<EncodedToken> encode(std::string_view text, bool add_bos,
                                   SpecialTokens special = SpecialTokens::AsText) const;
  std::vector<int> encode_ids(std::string_view text, bool add_bos,
                              SpecialTokens special = SpecialTokens::AsText) const;
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
  int eot_id() const { return vocab_.eot_id; }
  int eom_id() const { return vocab_.eom_id; }
  bool adds_bos() const { return vocab_.add_bos; }
  TokenizerKind kind() const { return vocab_.kind; }
  // Encoders' special tokens, -1 where the vocabulary has none (see Vocabulary).
  int cls_id() const { return vocab_.cls_id; }
  int sep_id() const { return vocab_.sep_id; }
  int mask_id() const { return vocab_.mask_id; }
  int pad_id() const { return vocab_.pad_id; }
  const std::string& chat_template() const { return vocab_.chat_template; }
  // Whether sampling `id` ends a text: EOS, BOS (a new text would begin, llama2.c's rule), the end of a turn
  // or of a message, or a special token spelled as one of the ends of turn that chat vocabularies use
  // (end_of_generation.cpp; many GGUF files do not name their end of turn). The one place that says so;
  // Generator stops on it.
  bool ends_text(int id) const {
    return id >= 0 && id < vocab_size() && ends_text_[static_cast<std::size_t>(id)];
  }
  // The ids that end a text, in increasing order (for a caller that must know them all, the page's chat).
  std::vector<int> end_ids() const;
  // The ids encode(..., SpecialTokens::Parse) recognizes by spelling, longest spelling first.
  const std::vector<int>& special_ids() const { return special_ids_; }
  // The vocabulary as create() takes it. A copy: the tokenizer keeps its merges as piece ids, not as text.
  Vocabulary vocabulary() const;

 private:
  std::vector<EncodedToken> encode_text(std::string_view text) const;
  // SpecialTokens::Parse: the spellings of special tokens become those tokens, the text between is encoded.
  void encode_parsing_special(std::string_view text, std::vector<EncodedToken>& out) const;
  std::vector<EncodedToken> encode_sentencepiece(std::string_view text) const;
  std::vector<EncodedToken> encode_byte_level(std::string_view text) const;
  std::vector<EncodedToken> encode_wordpiece(std::string_view text) const;
  std::string wordpiece_text(int previous, int id) const;
  std::string byte_level_text(int id) const;
  Result<void> build_merge_ranks(std::size_t merge_count,
                                 const std::function<std::string_view(std::size_t)>& merge,
                                 const std::string& source);

  // The id of a piece that takes part in encoding (a Normal or UserDefined one), or -1.
  int piece_id(std::string_view piece) const;

  // A byte-level merge: two adjacent symbols' pieces and the piece they make.
  struct Merge {
    int32_t left;
    int32_t right;
    int32_t merged;
  };
  // The rank of the merge of two adjacent byte-level symbols (lower merges first), or -1 if they do not merge.
  int merge_rank(int left, int right) const;

  // The tables hold ids only; the text they are looked up by is the vocabulary's own. vocab_.merges stays
  // empty: merges_ holds them.
  Vocabulary vocab_;
  detail::IdIndex piece_ids_;  // Normal and UserDefined pieces; the first of duplicates
  int byte_token_[256] = {};   // id of <0xXX>, or -1
  // Byte-level BPE: the merges by rank and their ranks by pair of piece ids (the first of duplicates), and
  // the id of each byte's one-character piece (-1 if the vocabulary lacks it).
  std::vector<Merge> merges_;
  detail::IdIndex merge_ranks_;
  std::array<int, 256> byte_piece_{};
  std::size_t longest_piece_ = 0;  // WordPiece: the longest piece's length in bytes (bounds the search)
  std::vector<bool> ends_text_;    // by id: whether sampling it ends a text (ends_text)
  std::vector<int> special_ids_;   // tokens found by spelling with SpecialTokens::Parse, longest first
};

}  // namespace glassbox
