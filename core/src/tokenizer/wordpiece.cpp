// WordPiece (BERT): the text is normalized and split into words (bert_text.hpp), then each word is covered
// from its start by the longest piece the vocabulary has, the pieces after the first spelled with the
// continuing prefix ("##"): "unaffable" -> "un", "##aff", "##able". A word with a stretch no piece covers, or
// longer than max_input_chars_per_word characters, becomes one [UNK]. This is Google's BERT and Hugging
// Face's WordPiece model; llama.cpp's WPM tokenizer does the same in its phantom-space spelling.
#include <algorithm>

#include "glassbox/tokenizer.hpp"
#include "glassbox/utf8.hpp"
#include "tokenizer/bert_text.hpp"

namespace glassbox {

std::vector<EncodedToken> Tokenizer::encode_wordpiece(std::string_view text) const {
  const WordPieceOptions& o = vocab_.wordpiece;
  std::vector<NormalizedChar> chars;
  std::vector<BertWord> words;
  normalize_bert(text, o, chars);
  split_bert_words(chars, o.handle_chinese_chars, words);

  std::vector<EncodedToken> out;
  std::vector<EncodedToken> pieces;  // the current word's, until it is known to be covered
  std::string word;                  // the word in UTF-8
  std::vector<std::size_t> offset;   // offset[k]: where the word's character k starts in `word`
  std::string candidate;
  for (const BertWord& w : words) {
    const std::size_t n = w.last - w.first;
    const EncodedToken whole{vocab_.unk_id, chars[w.first].begin, chars[w.last - 1].end};
    if (o.max_input_chars_per_word > 0 && n > static_cast<std::size_t>(o.max_input_chars_per_word)) {
      if (whole.id >= 0) out.push_back(whole);
      continue;
    }
    word.clear();
    offset.clear();
    for (std::size_t k = w.first; k < w.last; ++k) {
      offset.push_back(word.size());
      append_utf8(word, chars[k].code_point);
    }
    offset.push_back(word.size());

    pieces.clear();
    bool covered = true;
    for (std::size_t start = 0; start < n && covered;) {
      const std::size_t prefix = start > 0 ? o.continuing_prefix.size() : 0;
      // The longest candidate that could be a piece at all: no piece is longer than longest_piece_ bytes.
      std::size_t end = n;
      while (end > start && prefix + offset[end] - offset[start] > longest_piece_)
        --end;
      int id = -1;
      for (; end > start; --end) {
        candidate.assign(start > 0 ? o.continuing_prefix : std::string());
        candidate.append(word, offset[start], offset[end] - offset[start]);
        id = piece_id(candidate);
        if (id >= 0) break;
      }
      if (id < 0) {
        covered = false;
        break;
      }
      pieces.push_back({id, chars[w.first + start].begin, chars[w.first + end - 1].end});
      start = end;
    }
    if (covered) {
      out.insert(out.end(), pieces.begin(), pieces.end());
    } else if (whole.id >= 0) {
      out.push_back(whole);
    }
  }
  return out;
}

// Hugging Face's WordPiece decoder: a continuing piece joins the one before it; any other piece starts a new
// word, after a space unless it begins the text. (Its optional clean-up, which also removes the space before
// punctuation, is not done: "hello , world" stays as the pieces say.)
std::string Tokenizer::wordpiece_text(int previous, int id) const {
  const std::string& text = piece(id);
  const std::string& prefix = vocab_.wordpiece.continuing_prefix;
  if (!prefix.empty() && text.compare(0, prefix.size(), prefix) == 0) return text.substr(prefix.size());
  const bool at_start = previous < 0 || previous == vocab_.bos_id;
  return at_start ? text : " " + text;
}

}  // namespace glassbox
