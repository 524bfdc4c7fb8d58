// WordPiece (BERT): the Unicode tables behind BERT's normalizer, the normalizer (clean text, CJK characters
// apart, lowercase, accents stripped), the pre-tokenizer (whitespace and punctuation), greedy longest-match
// pieces, [UNK] for words that cannot be covered or are too long, byte spans in the input, [CLS] ... [SEP],
// [MASK] parsed as a special token, decoding; and reading it from small GGUF ("bert", llama.cpp's
// phantom-space form) and tokenizer.json (WordPiece model) files written here. tests/peers/wordpiece.test.mjs
// checks the whole 30,522-piece uncased vocabulary against Hugging Face's implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "formats/gguf_writer.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/tokenizer.hpp"
#include "test_support.hpp"
#include "tokenizer/bert_text.hpp"
#include "tokenizer/unicode_tables.hpp"

namespace glassbox {
namespace {

using test::expect_error;

// --- the Unicode tables -------------------------------------------------------------------------------------

TEST(WordPieceUnicode, AsciiShortcutAgreesWithTheTable) {
  for (char32_t cp = 0; cp < 0x80; ++cp) {
    EXPECT_EQ(bert_char_flags(cp), bert_char_flags_from_table(cp))
        << "U+" << std::hex << static_cast<uint32_t>(cp);
    EXPECT_EQ(simple_lowercase(cp), simple_lowercase_from_table(cp))
        << "U+" << std::hex << static_cast<uint32_t>(cp);
  }
}

TEST(WordPieceUnicode, FlagsLowercaseAndDecompositions) {
  using namespace bert_flag;
  EXPECT_EQ(bert_char_flags(U'$'), kPunctuation);       // an ASCII symbol (Sc) splits like punctuation
  EXPECT_EQ(bert_char_flags(U'€'), 0);                  // Sc outside ASCII does not
  EXPECT_EQ(bert_char_flags(U'。'), kPunctuation);      // Po
  EXPECT_EQ(bert_char_flags(U'¿'), kPunctuation);       // Po
  EXPECT_EQ(bert_char_flags(U'«'), kPunctuation);       // Pi
  EXPECT_EQ(bert_char_flags(0x0301), kNonspacingMark);  // combining acute accent
  EXPECT_EQ(bert_char_flags(0x200B), kControl);         // zero-width space is Cf
  EXPECT_EQ(bert_char_flags(0xE000), kControl);         // private use
  EXPECT_EQ(bert_char_flags(0x0085), kWhitespace | kControl);
  EXPECT_EQ(bert_char_flags(0x3000), kWhitespace);
  EXPECT_EQ(bert_char_flags(U'\t'), kWhitespace);
  EXPECT_EQ(bert_char_flags(U'é'), 0);
  EXPECT_EQ(simple_lowercase(U'Ä'), U'ä');
  EXPECT_EQ(simple_lowercase(U'Σ'), U'σ');
  EXPECT_EQ(simple_lowercase(0x0130), U'i');
  EXPECT_EQ(simple_lowercase(0x212A), U'k');  // Kelvin sign
  EXPECT_EQ(simple_lowercase(U'中'), U'中');
  const auto e_acute = canonical_decomposition_from_table(U'é');
  EXPECT_EQ(std::u32string(e_acute.begin(), e_acute.end()), U"e\u0301");
  const auto e_dot_circumflex = canonical_decomposition_from_table(U'ệ');  // full, in canonical order
  EXPECT_EQ(std::u32string(e_dot_circumflex.begin(), e_dot_circumflex.end()), U"e\u0323\u0302");
  EXPECT_TRUE(canonical_decomposition_from_table(U'a').empty());
  char32_t jamo[3];
  ASSERT_EQ(hangul_decomposition(U'한', jamo), 3);
  EXPECT_EQ(std::u32string(jamo, 3), U"\u1112\u1161\u11AB");
  ASSERT_EQ(hangul_decomposition(U'가', jamo), 2);
  EXPECT_EQ(hangul_decomposition(U'a', jamo), 0);
}

}  // namespace
}  // namespace glassbox
