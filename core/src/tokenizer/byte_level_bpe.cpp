// Byte-level BPE (GPT-2, Llama 3, Qwen2): split the text into words with the pre-tokenizer's regex
// (pre_tokenizer.cpp), start each word as one symbol per byte (the byte's piece in GPT-2's mapping,
// byte_mapping.hpp), then repeatedly merge the adjacent pair with the lowest merge rank (ties: the leftmost
// pair) until no pair of the word is a merge. This is the order of Hugging Face's tokenizers and llama.cpp,
// and the result equals OpenAI's original loop for merge lists learned by BPE.
//
// Merges are looked up by pair of piece ids (no strings while encoding), candidates wait in a min-heap and a
// candidate whose sides changed since it was queued is stale and skipped, so a word of n bytes costs
// O(n log n). Symbols know their input bytes, so every token's span is exact.
#include <algorithm>

#include "glassbox/error.hpp"
#include "glassbox/tokenizer.hpp"
#include "glassbox/utf8.hpp"
#include "tokenizer/byte_mapping.hpp"
#include "tokenizer/pre_tokenizer.hpp"

namespace glassbox {
namespace {

struct Symbol {
  int id;  // the piece, -1 for a byte the vocabulary lacks, kMerged once merged into its left neighbour
  int begin;
  int end;
  int prev;
  int next;
};
constexpr int kMerged = -2;

struct Candidate {
  int rank;
  int left;
  int right;
  int left_id;  // the sides' ids when queued: detects stale candidates
  int right_id;
  int merged_id;
};

// Orders the heap so that the lowest rank, then the leftmost pair, comes out first.
bool comes_later(const Candidate& a, const Candidate& b) {
  if (a.rank != b.rank) return a.rank > b.rank;
  return a.left > b.left;
}

}  // namespace

Result<void> Tokenizer::build_merge_ranks(std::size_t merge_count,
                                          const std::function<std::string_view(std::size_t)>& merge,
                                          const std::string& source) {
  const ByteMapping& mapping = ByteMapping::get();
  for (int b = 0; b < 256; ++b)
    byte_piece_[static_cast<std::size_t>(b)] = piece_id(mapping.spelling(static_cast<uint8_t>(b)));

  merges_.clear();
  merges_.reserve(merge_count);
  merge_ranks_ = detail::IdIndex(merge_count);
  std::string merged;
  for (std::size_t rank = 0; rank < merge_count; ++rank) {
    const std::string_view line = merge(rank);
    const std::size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string::npos)
      return error(ErrorCode::Malformed, source, ": merge ", rank, " \"", line,
                   "\" must be two pieces separated by one space");
    const std::string_view left = line.substr(0, space);
    const std::string_view right = line.substr(space + 1);
    merged.assign(left).append(right);
    int ids[3];
    const std::string_view pieces[3] = {left, right, merged};
    for (int k = 0; k < 3; ++k) {
      ids[k] = piece_id(pieces[k]);
      if (ids[k] < 0)
        return error(ErrorCode::Malformed, source, ": merge ", rank, " \"", line, "\" needs the piece \"",
                     pieces[k], "\", which is not in the vocabulary");
    }
    merges_.push_back({ids[0], ids[1], ids[2]});
    // The first of duplicated merges stays: the one with the higher priority.
    merge_ranks_.insert(detail::IdIndex::hash_pair(ids[0], ids[1]), static_cast<int32_t>(rank),
                        [&](int32_t other) {
                          const Merge& m = merges_[static_cast<std::size_t>(other)];
                          return m.left == ids[0] && m.right == ids[1];
                        });
  }
  return ok();
}

int Tokenizer::merge_rank(int left, int right) const {
  return merge_ranks_.find(detail::IdIndex::hash_pair(left, right), [&](int32_t rank) {
    const Merge& m = merges_[static_cast<std::size_t>(rank)];
    return m.left == left && m.right == right;
  });
}

std::vector<EncodedToken> Tokenizer::encode_byte_level(std::string_view text) const {
  std::vector<EncodedToken> out;
  std::vector<WordSpan> words;
  split_words(vocab_.pre_tokenizer, text, words);
  out.reserve(words.size() + text.size() / 4);

  const ByteMapping& mapping = ByteMapping::get();
  std::vector<Symbol> symbols;
  std::vector<Candidate> heap;
  std::string spelled;

  auto emit = [&](int id, std::size_t begin, std::size_t end) {
    // A byte missing from the vocabulary (never so in a real byte-level vocabulary): <unk> if there is one,
    // otherwise nothing, as Hugging Face does.
    if (id < 0) id = vocab_.unk_id;
    if (id >= 0) out.push_back({id, static_cast<int>(begin), static_cast<int>(end)});
  };
  auto consider = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const int left_id = symbols[static_cast<std::size_t>(left)].id;
    const int right_id = symbols[static_cast<std::size_t>(right)].id;
    if (left_id < 0 || right_id < 0) return;
    const int rank = merge_rank(left_id, right_id);
    if (rank < 0) return;
    heap.push_back({rank, left, right, left_id, right_id, merges_[static_cast<std::size_t>(rank)].merged});
    std::push_heap(heap.begin(), heap.end(), comes_later);
  };

  for (const WordSpan& word : words) {
    if (word.end - word.begin == 1) {
      emit(byte_piece_[static_cast<unsigned char>(text[word.begin])], word.begin, word.end);
      continue;
    }
    if (vocab_.ignore_merges) {
      spelled.clear();
      for (std::size_t i = word.begin; i < word.end; ++i)
        spelled += mapping.spelling(static_cast<unsigned char>(text[i]));
      const int id = piece_id(spelled);
      if (id >= 0) {
        emit(id, word.begin, word.end);
        continue;
      }
    }

    symbols.clear();
    heap.clear();
    for (std::size_t i = word.begin; i < word.end; ++i) {
      const int index = static_cast<int>(symbols.size());
      symbols.push_back({byte_piece_[static_cast<unsigned char>(text[i])], static_cast<int>(i),
                         static_cast<int>(i + 1), index - 1, index + 1});
    }
    symbols.back().next = -1;
    for (std::size_t i = 1; i < symbols.size(); ++i)
      consider(static_cast<int>(i - 1), static_cast<int>(i));

    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), comes_later);
      const Candidate c = heap.back();
      heap.pop_back();
      Symbol& left = symbols[static_cast<std::size_t>(c.left)];
      Symbol& right = symbols[static_cast<std::size_t>(c.right)];
      if (left.id != c.left_id || left.next != c.right || right.id != c.right_id) continue;  // stale
      left.id = c.merged_id;
      left.end = right.end;
      left.next = right.next;
      if (right.next >= 0) symbols[static_cast<std::size_t>(right.next)].prev = c.left;
      right.id = kMerged;
      consider(left.prev, c.left);
      consider(c.left, left.next);
    }

    for (int i = 0; i >= 0; i = symbols[static_cast<std::size_t>(i)].next) {
      const Symbol& s = symbols[static_cast<std::size_t>(i)];
      emit(s.id, static_cast<std::size_t>(s.begin), static_cast<std::size_t>(s.end));
    }
  }
  return out;
}

std::string Tokenizer::byte_level_text(int id) const {
  const std::string& spelled = piece(id);
  // Added (user-defined) tokens hold their text as it is, not in the byte mapping; so do Hugging Face's
  // decoder and llama.cpp.
  if (type(id) == TokenType::UserDefined) return spelled;
  const ByteMapping& mapping = ByteMapping::get();
  std::string bytes;
  bytes.reserve(spelled.size());
  for (std::size_t i = 0; i < spelled.size();) {
    const Utf8Char c = decode_utf8(spelled, i);
    const int byte = mapping.byte_of(c.code_point);
    if (byte >= 0) {
      bytes += static_cast<char>(byte);
    } else {
      bytes.append(spelled, i, c.length);  // not a mapped character: keep it as written
    }
    i += c.length;
  }
  return bytes;
}

}  // namespace glassbox
