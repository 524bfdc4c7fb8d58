// Special tokens written as text: a chat template spells its markers ("<|im_start|>user\n"), and encoding
// with SpecialTokens::Parse turns each spelling back into its one token before the text between is encoded.
//
// The order of the search is llama.cpp's (tokenizer_st_partition): special tokens are taken longest
// spelling first, and each one splits every stretch of text still unclaimed at each of its occurrences. So a
// longer spelling wins over a shorter one it contains ("<|im_start|>" over "<|im"), wherever they stand.
#include <algorithm>

#include "glassbox/tokenizer.hpp"

namespace glassbox {
namespace {

// A stretch of the input: either text still to encode or one special token found in it.
struct Fragment {
  std::size_t begin;
  std::size_t end;
  int token;  // -1: text
};

bool is_special_by_spelling(TokenType type) {
  // Unknown too: llama.cpp reads "<unk>" as the unknown token when it parses special tokens.
  return type == TokenType::Control || type == TokenType::UserDefined || type == TokenType::Unknown;
}

}  // namespace

std::vector<int> special_ids_longest_first(const Vocabulary& vocab) {
  std::vector<int> ids;
  for (std::size_t id = 0; id < vocab.pieces.size(); ++id)
    if (is_special_by_spelling(vocab.types[id]) && !vocab.pieces[id].empty())
      ids.push_back(static_cast<int>(id));
  // Longest first; among equal lengths the lower id, so that the first of duplicated spellings wins.
  std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) {
    return vocab.pieces[static_cast<std::size_t>(a)].size() >
           vocab.pieces[static_cast<std::size_t>(b)].size();
  });
  return ids;
}

std::vector<EncodedToken> Tokenizer::encode(std::string_view text, bool add_bos,
                                            SpecialTokens special) const {
  std::vector<EncodedToken> out;
  if (add_bos && vocab_.bos_id >= 0) out.push_back({vocab_.bos_id, 0, 0});
  if (special == SpecialTokens::AsText) {
    std::vector<EncodedToken> body = encode_text(text);
    out.insert(out.end(), body.begin(), body.end());
  } else {
    encode_parsing_special(text, out);
  }
  // BERT's "[CLS] text [SEP]": the end token stands after the text, covering none of it.
  if (add_bos && vocab_.add_sep && vocab_.sep_id >= 0)
    out.push_back({vocab_.sep_id, static_cast<int>(text.size()), static_cast<int>(text.size())});
  return out;
}

void Tokenizer::encode_parsing_special(std::string_view text, std::vector<EncodedToken>& out) const {
  std::vector<Fragment> fragments{{0, text.size(), -1}};
  std::vector<Fragment> split;
  for (int id : special_ids_) {
    const std::string& spelling = piece(id);
    split.clear();
    for (const Fragment& f : fragments) {
      if (f.token >= 0) {
        split.push_back(f);
        continue;
      }
      std::size_t at = f.begin;
      while (at < f.end) {
        const std::size_t found = text.substr(0, f.end).find(spelling, at);
        if (found == std::string_view::npos) break;
        if (found > at) split.push_back({at, found, -1});
        split.push_back({found, found + spelling.size(), id});
        at = found + spelling.size();
      }
      if (at < f.end) split.push_back({at, f.end, -1});
    }
    fragments.swap(split);
  }

  for (const Fragment& f : fragments) {
    if (f.token >= 0) {
      out.push_back({f.token, static_cast<int>(f.begin), static_cast<int>(f.end)});
      continue;
    }
    // Each stretch of text is encoded on its own, as if it began a text (SentencePiece's dummy prefix
    // included, as in llama.cpp), and its tokens' spans are moved to where it stands in the input.
    for (EncodedToken t : encode_text(text.substr(f.begin, f.end - f.begin))) {
      t.byte_begin += static_cast<int>(f.begin);
      t.byte_end += static_cast<int>(f.begin);
      out.push_back(t);
    }
  }
}

std::vector<EncodedToken> Tokenizer::encode_text(std::string_view text) const {
  switch (vocab_.kind) {
    case TokenizerKind::SentencePiece:
      return encode_sentencepiece(text);
    case TokenizerKind::ByteLevelBpe:
      return encode_byte_level(text);
    case TokenizerKind::WordPiece:
      return encode_wordpiece(text);
  }
  return {};
}

std::vector<int> Tokenizer::encode_ids(std::string_view text, bool add_bos, SpecialTokens special) const {
  std::vector<int> ids;
  for (const EncodedToken& t : encode(text, add_bos, special))
    ids.push_back(t.id);
  return ids;
}

}  // namespace glassbox
