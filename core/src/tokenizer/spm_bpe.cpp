// SentencePiece-style BPE encoding (Llama 2, TinyStories' tok512): start from single UTF-8 characters and
// repeatedly merge the adjacent pair whose concatenation is the vocabulary piece with the highest score
// (ties: the leftmost pair). Characters the vocabulary lacks fall back to one <0xXX> token per byte.
//
// A priority queue of candidate pairs makes this O(n log n); a pair whose sides changed since it was queued
// is stale and skipped when it comes up. Each symbol remembers the input bytes it covers, so every output
// token knows its byte span.
#include <queue>

#include "glassbox/tokenizer.hpp"
#include "glassbox/utf8.hpp"

namespace glassbox {
namespace {

struct Symbol {
  std::size_t start;   // in the normalized text
  std::size_t length;  // 0 once merged into its left neighbour
  int prev;
  int next;
};

struct Candidate {
  float score;
  int left;
  int right;
  std::size_t length;  // left.length + right.length when queued: detects stale candidates
  bool operator<(const Candidate& other) const {  // std::priority_queue pops the "largest"
    if (score != other.score) return score < other.score;
    return left > other.left;
  }
};

}  // namespace

std::vector<EncodedToken> Tokenizer::encode_sentencepiece(std::string_view text) const {
  std::vector<EncodedToken> out;
  if (text.empty()) return out;

  // The dummy prefix: SentencePiece encodes " Hello" for "Hello" so a word looks the same at the start of
  // the text as in its middle. It covers no input bytes.
  const std::size_t prefix = vocab_.add_space_prefix ? 1 : 0;
  std::string normalized = prefix ? " " : "";
  normalized += text;
  auto input_offset = [&](std::size_t at) { return static_cast<int>(at < prefix ? 0 : at - prefix); };

  std::vector<Symbol> symbols;
  for (std::size_t i = 0; i < normalized.size();) {
    const std::size_t length = utf8_char_length(normalized, i);
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({i, length, index - 1, index + 1});
    i += length;
  }
  symbols.back().next = -1;

  std::priority_queue<Candidate> queue;
  auto consider = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const std::size_t length = symbols[left].length + symbols[right].length;
    const int id = piece_id(std::string_view(normalized).substr(symbols[left].start, length));
    if (id < 0) return;
    queue.push({vocab_.scores[static_cast<std::size_t>(id)], left, right, length});
  };
  for (std::size_t i = 1; i < symbols.size(); ++i)
    consider(static_cast<int>(i - 1), static_cast<int>(i));

  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    Symbol& left = symbols[c.left];
    Symbol& right = symbols[c.right];
    if (left.length == 0 || right.length == 0 || left.next != c.right ||
        left.length + right.length != c.length)
      continue;  // stale: one side was merged elsewhere since
    left.length += right.length;
    right.length = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = c.left;
    consider(left.prev, c.left);
    consider(c.left, left.next);
  }

  for (int i = 0; i >= 0; i = symbols[i].next) {
    const Symbol& s = symbols[i];
    const int id = piece_id(std::string_view(normalized).substr(s.start, s.length));
    if (id >= 0) {
      out.push_back({id, input_offset(s.start), input_offset(s.start + s.length)});
      continue;
    }
    // A byte with no <0xXX> token: <unk> if there is one, otherwise nothing (as byte-level BPE does, and
    // Hugging Face), never an id outside the vocabulary.
    for (std::size_t b = s.start; b < s.start + s.length; ++b) {
      const int byte_id = byte_token_[static_cast<unsigned char>(normalized[b])];
      const int id_or_unk = byte_id >= 0 ? byte_id : vocab_.unk_id;
      if (id_or_unk >= 0) out.push_back({id_or_unk, input_offset(b), input_offset(b + 1)});
    }
  }
  return out;
}

}  // namespace glassbox
