// The pre-tokenizer regexes as matchers over decoded characters. At each position the regex tries its
// alternatives in order and the first that matches wins; every character is a letter, a number, whitespace
// or "other", and each class is matched by some alternative, so the matches tile the text. The comments name
// the alternative each branch implements.
#include "tokenizer/pre_tokenizer.hpp"

#include "glassbox/utf8.hpp"
#include "tokenizer/unicode_tables.hpp"

namespace glassbox {
namespace {

struct Char {
  std::size_t begin;  // byte offset in the text
  char32_t code_point;
  CharClass cls;
};

class Matcher {
 public:
  explicit Matcher(std::string_view text) {
    chars_.reserve(text.size() + 1);
    for (std::size_t i = 0; i < text.size();) {
      const Utf8Char c = decode_utf8(text, i);
      chars_.push_back({i, c.code_point, char_class(c.code_point)});
      i += c.length;
    }
    n_ = chars_.size();
    chars_.push_back({text.size(), kInvalidCodePoint, CharClass::Other});  // the end, to read spans from
  }

  std::size_t size() const { return n_; }
  std::size_t byte(std::size_t i) const { return chars_[i].begin; }

  // The end (a character index) of the word starting at character i.
  std::size_t match(PreTokenizer pre_tokenizer, std::size_t i) const {
    switch (pre_tokenizer) {
      case PreTokenizer::Gpt2:
        return match_gpt2(i);
      case PreTokenizer::Llama3:
        return match_llama3(i, 3);
      case PreTokenizer::Qwen2:
        return match_llama3(i, 1);
    }
    return i + 1;
  }

 private:
  bool is(std::size_t i, char32_t c) const { return i < n_ && chars_[i].code_point == c; }
  bool has(std::size_t i, CharClass cls) const { return i < n_ && chars_[i].cls == cls; }
  bool letter(std::size_t i) const { return has(i, CharClass::Letter); }
  bool number(std::size_t i) const { return has(i, CharClass::Number); }
  bool space(std::size_t i) const { return has(i, CharClass::Whitespace); }
  bool other(std::size_t i) const { return has(i, CharClass::Other); }
  bool newline(std::size_t i) const { return is(i, '\r') || is(i, '\n'); }

  template <class Pred>
  std::size_t run(std::size_t i, Pred pred) const {
    while (i < n_ && (this->*pred)(i))
      ++i;
    return i;
  }

  // 's|'t|'re|'ve|'m|'ll|'d: the length of the contraction at i, 0 if none. Llama 3 matches them ignoring
  // case, where Unicode case folding also lets U+017F (ſ, long s) stand for s.
  std::size_t contraction(std::size_t i, bool ignore_case) const {
    if (!is(i, '\'')) return 0;
    auto folded = [&](std::size_t k) -> char32_t {
      if (k >= n_) return 0;
      const char32_t c = chars_[k].code_point;
      if (ignore_case && c >= 'A' && c <= 'Z') return c - 'A' + 'a';
      if (ignore_case && c == 0x17F) return 's';
      return c;
    };
    switch (folded(i + 1)) {
      case 's':
      case 't':
      case 'm':
      case 'd':
        return 2;
      case 'r':
      case 'v':
        return folded(i + 2) == 'e' ? 3 : 0;
      case 'l':
        return folded(i + 2) == 'l' ? 3 : 0;
      default:
        return 0;
    }
  }

  // \s+(?!\S)|\s+ at whitespace: a run of whitespace, less its last character when a non-space follows
  // (that one then leads the next word, as in " Hello"), unless the run is a single character.
  std::size_t whitespace_run(std::size_t i) const {
    const std::size_t end = run(i, &Matcher::space);
    if (end < n_ && end - i >= 2) return end - 1;
    return end > i ? end : i + 1;
  }

  std::size_t match_gpt2(std::size_t i) const {
    if (const std::size_t c = contraction(i, false)) return i + c;
    // ` ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+`: an optional space, then a run of one class. Without a match
    // after the space, the space alone starts none of them (it is whitespace).
    const std::size_t j = is(i, ' ') ? i + 1 : i;
    if (letter(j)) return run(j, &Matcher::letter);
    if (number(j)) return run(j, &Matcher::number);
    if (other(j)) return run(j, &Matcher::other);
    return whitespace_run(i);
  }

  std::size_t match_llama3(std::size_t i, std::size_t max_digits) const {
    if (const std::size_t c = contraction(i, true)) return i + c;
    // [^\r\n\p{L}\p{N}]?\p{L}+: letters, optionally led by one character that is none of those.
    if (letter(i)) return run(i, &Matcher::letter);
    if (i < n_ && !newline(i) && !number(i) && letter(i + 1)) return run(i + 1, &Matcher::letter);
    // \p{N}{1,3} (Qwen2: \p{N})
    if (number(i)) {
      std::size_t end = i;
      while (end - i < max_digits && number(end))
        ++end;
      return end;
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n]*`: punctuation and the like, with the line breaks right after it.
    const std::size_t j = is(i, ' ') ? i + 1 : i;
    if (other(j)) return run(run(j, &Matcher::other), &Matcher::newline);
    // \s*[\r\n]+: whitespace up to and including the last line break in the run. (Greedy \s* gives back
    // characters until [\r\n]+ can match, which first happens at the run's last line break.)
    const std::size_t end = run(i, &Matcher::space);
    for (std::size_t k = end; k > i; --k) {
      if (newline(k - 1)) return k;
    }
    return whitespace_run(i);
  }

  std::vector<Char> chars_;
  std::size_t n_ = 0;
};

}  // namespace

void split_words(PreTokenizer pre_tokenizer, std::string_view text, std::vector<WordSpan>& words) {
  words.clear();
  const Matcher matcher(text);
  for (std::size_t i = 0; i < matcher.size();) {
    std::size_t end = matcher.match(pre_tokenizer, i);
    if (end <= i) end = i + 1;  // cannot happen (see above); a guarantee of progress all the same
    words.push_back({matcher.byte(i), matcher.byte(end)});
    i = end;
  }
}

}  // namespace glassbox
