// BERT's normalizer and pre-tokenizer (bert_text.hpp). Each step works one character at a time, as Hugging
// Face's do; the canonical reordering of NFD is left out because only nonspacing marks, which are dropped,
// are reordered in practice (25 spacing marks have a non-zero combining class; none occurs in BERT's
// vocabularies).
#include "tokenizer/bert_text.hpp"

#include "glassbox/utf8.hpp"
#include "tokenizer/unicode_tables.hpp"

namespace glassbox {

bool is_chinese_char(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) ||
         (cp >= 0x2B920 && cp <= 0x2CEAF) ||  // Hugging Face's bound (BERT's original has 0x2B820)
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

namespace {

constexpr char32_t kReplacement = 0xFFFD;
constexpr char32_t kDotAbove = 0x0307;  // İ's full lowercase is "i" and this

// Appends cp's canonical decomposition without nonspacing marks: stripping accents.
void append_stripped(const NormalizedChar& c, std::vector<NormalizedChar>& out) {
  char32_t hangul[3];
  const int jamo = hangul_decomposition(c.code_point, hangul);
  if (jamo > 0) {
    for (int k = 0; k < jamo; ++k)
      out.push_back({hangul[k], c.begin, c.end, c.chinese});
    return;
  }
  std::span<const char32_t> parts = canonical_decomposition_from_table(c.code_point);
  if (parts.empty()) parts = {&c.code_point, 1};
  for (char32_t part : parts)
    if (!(bert_char_flags(part) & bert_flag::kNonspacingMark))
      out.push_back({part, c.begin, c.end, c.chinese});
}

}  // namespace

void normalize_bert(std::string_view text, const WordPieceOptions& o, std::vector<NormalizedChar>& out) {
  out.clear();
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Char u = decode_utf8(text, i);
    NormalizedChar c{u.code_point == kInvalidCodePoint ? kReplacement : u.code_point, static_cast<int>(i),
                     static_cast<int>(i + u.length), false};
    i += u.length;
    if (o.clean_text) {
      const uint8_t flags = bert_char_flags(c.code_point);
      if (c.code_point == 0 || c.code_point == kReplacement || (flags & bert_flag::kControl)) continue;
      if (flags & bert_flag::kWhitespace) c.code_point = ' ';
    }
    c.chinese = is_chinese_char(c.code_point);
    NormalizedChar lowered[2] = {c, c};
    int count = 1;
    if (o.lowercase) {
      lowered[0].code_point = simple_lowercase(c.code_point);
      if (c.code_point == 0x0130) {
        lowered[1].code_point = kDotAbove;
        count = 2;
      }
    }
    for (int k = 0; k < count; ++k) {
      if (o.strip_accents) {
        append_stripped(lowered[k], out);
      } else {
        out.push_back(lowered[k]);
      }
    }
  }
}

void split_bert_words(const std::vector<NormalizedChar>& chars, bool handle_chinese_chars,
                      std::vector<BertWord>& words) {
  words.clear();
  std::size_t start = 0;
  auto end_word = [&](std::size_t at) {
    if (at > start) words.push_back({start, at});
  };
  for (std::size_t k = 0; k < chars.size(); ++k) {
    const uint8_t flags = bert_char_flags(chars[k].code_point);
    if (flags & bert_flag::kWhitespace) {
      end_word(k);
      start = k + 1;
    } else if ((flags & bert_flag::kPunctuation) || (handle_chinese_chars && chars[k].chinese)) {
      end_word(k);
      words.push_back({k, k + 1});
      start = k + 1;
    }
  }
  end_word(chars.size());
}

}  // namespace glassbox
