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
#include <random>
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

// --- a small vocabulary in Hugging Face's form --------------------------------------------------------------

constexpr int kPad = 0, kUnk = 1, kCls = 2, kSep = 3, kMask = 4;

Vocabulary small_vocabulary(WordPieceOptions options = {}) {
  Vocabulary v;
  v.kind = TokenizerKind::WordPiece;
  v.pieces = {"[PAD]", "[UNK]", "[CLS]", "[SEP]",     "[MASK]", "hello", "world", "un",   "##aff", "##able",
              "##a",   "a",     "cafe",  ",",         "!",      "日",    "本",    "the",  "is",    "paris",
              ".",     "naive", "i",     "##stanbul", "$",      "##b",   "ab",    "##bc", "c"};
  v.types.assign(v.pieces.size(), TokenType::Normal);
  for (int id : {kPad, kCls, kSep, kMask})
    v.types[static_cast<std::size_t>(id)] = TokenType::Control;
  v.types[kUnk] = TokenType::Unknown;
  v.scores.assign(v.pieces.size(), 0.0f);
  v.unk_id = kUnk;
  v.bos_id = v.cls_id = kCls;
  v.eos_id = v.sep_id = kSep;
  v.mask_id = kMask;
  v.pad_id = kPad;
  v.add_bos = true;
  v.add_sep = true;
  v.add_space_prefix = false;
  v.wordpiece = std::move(options);
  return v;
}

Tokenizer make(Vocabulary v) {
  auto t = Tokenizer::create(std::move(v), "hand-made");
  EXPECT_TRUE(t.ok()) << t.error().message;
  return std::move(*t);
}

std::vector<std::string> pieces(const Tokenizer& t, std::string_view text, bool add = false,
                                SpecialTokens special = SpecialTokens::AsText) {
  std::vector<std::string> out;
  for (int id : t.encode_ids(text, add, special))
    out.push_back(t.piece(id));
  return out;
}

using Pieces = std::vector<std::string>;

TEST(WordPiece, LowercasesAndStripsAccents) {
  const Tokenizer t = make(small_vocabulary());
  EXPECT_EQ(pieces(t, "Hello WORLD"), (Pieces{"hello", "world"}));
  EXPECT_EQ(pieces(t, "Café naïve"), (Pieces{"cafe", "naive"}));
  EXPECT_EQ(pieces(t, "Cafe\xCC\x81"), (Pieces{"cafe"}));  // a combining accent, already decomposed
  EXPECT_EQ(pieces(t, "İS"), (Pieces{"is"}));              // İ lowercases to "i" U+0307, the dot stripped

  WordPieceOptions keep_accents;
  keep_accents.strip_accents = false;
  EXPECT_EQ(pieces(make(small_vocabulary(keep_accents)), "Café"), (Pieces{"[UNK]"}));
  WordPieceOptions cased;
  cased.lowercase = false;
  cased.strip_accents = false;
  EXPECT_EQ(pieces(make(small_vocabulary(cased)), "Hello hello"), (Pieces{"[UNK]", "hello"}));
  cased.strip_accents = true;  // strip_accents without lowercasing, as tokenizer.json may ask
  EXPECT_EQ(pieces(make(small_vocabulary(cased)), "cafés Café"), (Pieces{"[UNK]", "[UNK]"}));
  EXPECT_EQ(pieces(make(small_vocabulary(cased)), "café"), (Pieces{"cafe"}));
}

TEST(WordPiece, SetsCjkIdeographsApart) {
  const Tokenizer t = make(small_vocabulary());
  EXPECT_EQ(pieces(t, "日本"), (Pieces{"日", "本"}));
  EXPECT_EQ(pieces(t, "a日a"), (Pieces{"a", "日", "a"}));
  WordPieceOptions together;
  together.handle_chinese_chars = false;
  EXPECT_EQ(pieces(make(small_vocabulary(together)), "日本"), (Pieces{"[UNK]"}));  // "##本" is no piece
}

TEST(WordPiece, CleansControlCharactersAndWhitespace) {
  const Tokenizer t = make(small_vocabulary());
  EXPECT_EQ(pieces(t, std::string("hel\x07lo", 6)), (Pieces{"hello"}));
  EXPECT_EQ(pieces(t, std::string("hel\0lo", 6)), (Pieces{"hello"}));
  EXPECT_EQ(pieces(t, "hel\xEF\xBF\xBDlo"), (Pieces{"hello"}));  // U+FFFD
  EXPECT_EQ(pieces(t, "hel\xFFlo"), (Pieces{"hello"}));          // not UTF-8: read as U+FFFD
  EXPECT_EQ(pieces(t, "hel\xE2\x80\x8Blo"), (Pieces{"hello"}));  // zero-width space (Cf)
  EXPECT_EQ(pieces(t,
                   "hello\tworld\nhello\r\nworld\xE3\x80\x80"
                   "a\xC2\xA0"
                   "a"),
            (Pieces{"hello", "world", "hello", "world", "a", "a"}));
  EXPECT_EQ(pieces(t, "   "), Pieces{});
  EXPECT_EQ(pieces(t, ""), Pieces{});
  WordPieceOptions raw;
  raw.clean_text = false;
  EXPECT_EQ(pieces(make(small_vocabulary(raw)), "hel\x07lo world"), (Pieces{"[UNK]", "world"}));
}

TEST(WordPiece, SplitsEveryPunctuationCharacter) {
  const Tokenizer t = make(small_vocabulary());
  EXPECT_EQ(pieces(t, "hello,world!!"), (Pieces{"hello", ",", "world", "!", "!"}));
  EXPECT_EQ(pieces(t, "a$a"), (Pieces{"a", "$", "a"}));  // ASCII symbols split
  EXPECT_EQ(pieces(t, "a€a"), (Pieces{"[UNK]"}));        // other symbols do not
  EXPECT_EQ(pieces(t,
                   "a\xE3\x80\x82"
                   "a"),
            (Pieces{"a", "[UNK]", "a"}));  // "。" is punctuation
}

TEST(WordPiece, TakesTheLongestPieceFirst) {
  const Tokenizer t = make(small_vocabulary());
  EXPECT_EQ(pieces(t, "unaffable"), (Pieces{"un", "##aff", "##able"}));
  EXPECT_EQ(pieces(t, "aaa"), (Pieces{"a", "##a", "##a"}));
  // Greedy, not best: "ab" then "##c"... fails, although "a" "##bc" would cover it; the word is [UNK].
  EXPECT_EQ(pieces(t, "abc"), (Pieces{"[UNK]"}));
  EXPECT_EQ(pieces(t, "unaffablex"), (Pieces{"[UNK]"}));  // one uncovered character: the whole word
}

TEST(WordPiece, WordsLongerThanTheLimitAreUnknown) {
  const Tokenizer t = make(small_vocabulary());
  EXPECT_EQ(pieces(t, std::string(100, 'a')).size(), 100u);
  EXPECT_EQ(pieces(t, std::string(101, 'a')), (Pieces{"[UNK]"}));
  std::string accented;  // 101 characters, 202 bytes: the limit counts characters
  for (int k = 0; k < 101; ++k)
    accented += "\xC3\xA1";  // á
  EXPECT_EQ(pieces(t, accented), (Pieces{"[UNK]"}));
  WordPieceOptions short_words;
  short_words.max_input_chars_per_word = 3;
  EXPECT_EQ(pieces(make(small_vocabulary(short_words)), "aaa aaaa"), (Pieces{"a", "##a", "##a", "[UNK]"}));
  WordPieceOptions no_limit;  // a GGUF vocabulary's, as llama.cpp's: every word gets its pieces
  no_limit.max_input_chars_per_word = 0;
  EXPECT_EQ(pieces(make(small_vocabulary(no_limit)), std::string(101, 'a')).size(), 101u);
}

TEST(WordPiece, SpansAreTheInputsBytes) {
  const Tokenizer t = make(small_vocabulary());
  const std::vector<EncodedToken> tokens = t.encode("  Café, naïve!", true);
  const std::vector<EncodedToken> want = {{kCls, 0, 0}, {12, 2, 7},   {13, 7, 8},
                                          {21, 9, 15},  {14, 15, 16}, {kSep, 16, 16}};
  ASSERT_EQ(tokens.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(tokens[k].id, want[k].id) << k;
    EXPECT_EQ(tokens[k].byte_begin, want[k].byte_begin) << k;
    EXPECT_EQ(tokens[k].byte_end, want[k].byte_end) << k;
  }
  // Pieces within a word, and an [UNK] word over all of its bytes.
  const std::vector<EncodedToken> word = t.encode("UNAFFABLE x\xE2\x82\xAC", false);
  ASSERT_EQ(word.size(), 4u);
  EXPECT_EQ((std::pair{word[1].byte_begin, word[1].byte_end}), (std::pair{2, 5}));
  EXPECT_EQ((std::pair{word[2].byte_begin, word[2].byte_end}), (std::pair{5, 9}));
  EXPECT_EQ(word[3].id, kUnk);
  EXPECT_EQ((std::pair{word[3].byte_begin, word[3].byte_end}), (std::pair{10, 14}));
}

TEST(WordPiece, AddsClsAndSepAndParsesMask) {
  const Tokenizer t = make(small_vocabulary());
  EXPECT_EQ(t.cls_id(), kCls);
  EXPECT_EQ(t.sep_id(), kSep);
  EXPECT_EQ(t.mask_id(), kMask);
  EXPECT_EQ(t.pad_id(), kPad);
  EXPECT_EQ(pieces(t, "hello", true), (Pieces{"[CLS]", "hello", "[SEP]"}));
  EXPECT_EQ(pieces(t, "", true), (Pieces{"[CLS]", "[SEP]"}));
  EXPECT_EQ(pieces(t, "Paris is the [MASK].", true, SpecialTokens::Parse),
            (Pieces{"[CLS]", "paris", "is", "the", "[MASK]", ".", "[SEP]"}));
  const std::vector<EncodedToken> parsed = t.encode("the [MASK].", false, SpecialTokens::Parse);
  ASSERT_EQ(parsed.size(), 3u);
  EXPECT_EQ((std::pair{parsed[1].byte_begin, parsed[1].byte_end}), (std::pair{4, 10}));
  // As text, "[MASK]" is punctuation and a word: never the mask token.
  const std::vector<int> as_text = t.encode_ids("the [MASK].", false);
  EXPECT_EQ(std::count(as_text.begin(), as_text.end(), kMask), 0);
  EXPECT_EQ(pieces(t, "[mask]", false, SpecialTokens::Parse), (Pieces{"[UNK]", "[UNK]", "[UNK]"}));

  Vocabulary no_sep = small_vocabulary();
  no_sep.add_sep = false;
  EXPECT_EQ(pieces(make(no_sep), "hello", true), (Pieces{"[CLS]", "hello"}));
  Vocabulary broken = small_vocabulary();
  broken.sep_id = -1;
  expect_error(Tokenizer::create(broken, "hand-made"), ErrorCode::Malformed, "names no sep token");
  broken = small_vocabulary();
  broken.mask_id = 99;
  expect_error(Tokenizer::create(broken, "hand-made"), ErrorCode::Malformed, "mask token id");
}

// Random bytes and random characters: every id in the vocabulary, every span inside the text and in order.
TEST(WordPiece, AnyInputGivesValidIdsAndOrderedSpans) {
  const Tokenizer t = make(small_vocabulary());
  std::mt19937 rng(26);
  const std::u32string alphabet = U"aAbBcé日本 \t\n,!$€\u0301\u200b\uFFFD\u0130한ǅ\U0001F917";
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    const int length = static_cast<int>(rng() % 24);
    for (int k = 0; k < length; ++k) {
      if (round % 2 == 0) {
        text += static_cast<char>(rng() & 0xFF);
      } else {
        std::string utf8;
        const char32_t c = alphabet[rng() % alphabet.size()];
        if (c < 0x80) {
          utf8 += static_cast<char>(c);
        } else if (c < 0x800) {
          utf8 += {static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))};
        } else if (c < 0x10000) {
          utf8 += {static_cast<char>(0xE0 | (c >> 12)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)),
                   static_cast<char>(0x80 | (c & 0x3F))};
        } else {
          utf8 += {static_cast<char>(0xF0 | (c >> 18)), static_cast<char>(0x80 | ((c >> 12) & 0x3F)),
                   static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
        }
        text += utf8;
      }
    }
    for (const SpecialTokens special : {SpecialTokens::AsText, SpecialTokens::Parse}) {
      int last_end = 0;
      for (const EncodedToken& token : t.encode(text, true, special)) {
        ASSERT_TRUE(t.valid_id(token.id)) << round;
        ASSERT_LE(0, token.byte_begin) << round;
        ASSERT_LE(token.byte_begin, token.byte_end) << round;
        ASSERT_LE(static_cast<std::size_t>(token.byte_end), text.size()) << round;
        ASSERT_LE(last_end, token.byte_end) << round;
        last_end = token.byte_end;
      }
    }
  }
}

TEST(WordPiece, DecodesJoiningContinuingPieces) {
  const Tokenizer t = make(small_vocabulary());
  EXPECT_EQ(t.decode(t.encode_ids("Unaffable, hello world!", true)), "unaffable , hello world !");
  EXPECT_EQ(t.decode(t.encode_ids("the [MASK] is", true, SpecialTokens::Parse)), "the is");
}

// --- GGUF: tokenizer.ggml.model "bert" ----------------------------------------------------------------------

const std::string kPhantom = "\xE2\x96\x81";  // "▁"

// bert-base's layout in small: specials first (ids 0..4), word-initial pieces with "▁", continuing ones bare.
struct BertGguf {
  std::vector<std::string> tokens = {"[PAD]",         "[UNK]",
                                     "[CLS]",         "[SEP]",
                                     "[MASK]",        kPhantom + "hello",
                                     kPhantom + "un", "aff",
                                     "able",          kPhantom + "world",
                                     kPhantom + ",",  kPhantom + "[unused0]"};
  std::vector<int32_t> types = {3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  std::map<std::string, uint32_t> ids = {
      {"tokenizer.ggml.bos_token_id", 2},       {"tokenizer.ggml.eos_token_id", 3},
      {"tokenizer.ggml.unknown_token_id", 1},   {"tokenizer.ggml.cls_token_id", 2},
      {"tokenizer.ggml.seperator_token_id", 3}, {"tokenizer.ggml.padding_token_id", 0},
      {"tokenizer.ggml.mask_token_id", 4}};
  std::map<std::string, bool> flags = {{"tokenizer.ggml.add_bos_token", true},
                                       {"tokenizer.ggml.add_eos_token", true}};

  Result<Tokenizer> read() const {
    GgufWriter w;
    w.add_string("general.architecture", "bert");
    w.add_string("tokenizer.ggml.model", "bert");
    w.add_string_array("tokenizer.ggml.tokens", tokens);
    w.add_int32_array("tokenizer.ggml.token_type", types);
    for (const auto& [key, id] : ids)
      w.add_uint32(key, id);
    for (const auto& [key, flag] : flags)
      w.add_bool(key, flag);
    return read_gguf_tokenizer(bytes_from_buffer(w.to_bytes(), "bert.gguf"));
  }
};

TEST(WordPieceGguf, ReadsLlamaCppsPhantomSpaceForm) {
  auto t = BertGguf{}.read();
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->kind(), TokenizerKind::WordPiece);
  EXPECT_EQ(t->piece(5), "hello");
  EXPECT_EQ(t->piece(7), "##aff");
  EXPECT_EQ(t->piece(2), "[CLS]");
  EXPECT_EQ(pieces(*t, "Hello, unaffable world", true),
            (Pieces{"[CLS]", "hello", ",", "un", "##aff", "##able", "world", "[SEP]"}));
  EXPECT_EQ(pieces(*t, "[MASK] world", true, SpecialTokens::Parse),
            (Pieces{"[CLS]", "[MASK]", "world", "[SEP]"}));
  EXPECT_EQ(t->cls_id(), 2);
  EXPECT_EQ(t->sep_id(), 3);
  EXPECT_EQ(t->mask_id(), 4);
  EXPECT_EQ(t->pad_id(), 0);
  EXPECT_EQ(t->type(1), TokenType::Unknown);
}

TEST(WordPieceGguf, NormalizerKeysAndDefaults) {
  BertGguf cased;
  cased.flags["tokenizer.ggml.normalizer.lowercase"] = false;
  auto t = cased.read();
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(pieces(*t, "Hello hello"), (Pieces{"[UNK]", "hello"}));
  EXPECT_FALSE(t->vocabulary().wordpiece.strip_accents);  // follows lowercase when absent

  // Without the cls/sep keys, bos and eos stand in (the converter writes both); without add_eos_token,
  // [SEP] is added (llama.cpp's add_sep for "bert").
  BertGguf plain;
  plain.ids.erase("tokenizer.ggml.cls_token_id");
  plain.ids.erase("tokenizer.ggml.seperator_token_id");
  plain.flags.clear();
  t = plain.read();
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(pieces(*t, "hello", true), (Pieces{"[CLS]", "hello", "[SEP]"}));
  EXPECT_EQ(t->cls_id(), 2);
  EXPECT_EQ(t->sep_id(), 3);

  BertGguf out_of_range;
  out_of_range.ids["tokenizer.ggml.mask_token_id"] = 12;
  expect_error(out_of_range.read(), ErrorCode::Malformed, "bert.gguf",
               "tokenizer.ggml.mask_token_id is 12, past the vocabulary of 12 tokens");
}

// --- tokenizer.json: model.type "WordPiece" -----------------------------------------------------------------

Result<Tokenizer> read_json(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return read_tokenizer_json(*bytes_from_buffer(std::move(bytes), "tokenizer.json"));
}

std::string bert_json(const std::string& normalizer,
                      const std::string& pre_tokenizer = R"({"type": "BertPreTokenizer"})",
                      const std::string& post_processor =
                          R"({"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]})",
                      const std::string& model_extra = "") {
  return R"({
    "version": "1.0",
    "padding": {"strategy": "BatchLongest", "pad_id": 0, "pad_token": "[PAD]"},
    "added_tokens": [
      {"id": 0, "content": "[PAD]", "special": true}, {"id": 1, "content": "[UNK]", "special": true},
      {"id": 2, "content": "[CLS]", "special": true}, {"id": 3, "content": "[SEP]", "special": true},
      {"id": 4, "content": "[MASK]", "special": true}
    ],
    "normalizer": )" +
         normalizer + R"(,
    "pre_tokenizer": )" +
         pre_tokenizer + R"(,
    "post_processor": )" +
         post_processor + R"(,
    "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", )" +
         model_extra + R"(
      "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "hello": 5, "un": 6, "##aff": 7,
                "##able": 8, "cafe": 9, ",": 10, "café": 11, "@@aff": 12, "@@able": 13}
    }
  })";
}

const char* const kBertNormalizer =
    R"({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true})";

TEST(WordPieceJson, ReadsBertBaseUncasedsForm) {
  auto t = read_json(bert_json(kBertNormalizer));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->kind(), TokenizerKind::WordPiece);
  EXPECT_EQ(pieces(*t, "Hello, Unaffable CAFÉ", true),
            (Pieces{"[CLS]", "hello", ",", "un", "##aff", "##able", "cafe", "[SEP]"}));
  EXPECT_EQ(t->cls_id(), 2);
  EXPECT_EQ(t->sep_id(), 3);
  EXPECT_EQ(t->mask_id(), 4);
  EXPECT_EQ(t->pad_id(), 0);
  EXPECT_EQ(t->type(1), TokenType::Unknown);
  EXPECT_EQ(pieces(*t, "[MASK]", false, SpecialTokens::Parse), (Pieces{"[MASK]"}));

  const std::string template_processing =
      R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
          {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}]})";
  t = read_json(bert_json(kBertNormalizer, R"({"type": "BertPreTokenizer"})", template_processing));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(pieces(*t, "hello", true), (Pieces{"[CLS]", "hello", "[SEP]"}));
}

TEST(WordPieceJson, NormalizerChoicesAndModelSettings) {
  // Cased, accents kept: "café" is its own piece.
  auto t = read_json(bert_json(R"({"type": "BertNormalizer", "lowercase": false})"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(pieces(*t, "café Hello"), (Pieces{"café", "[UNK]"}));
  // No normalizer: text as it is.
  t = read_json(bert_json("null"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(pieces(*t, "café Café"), (Pieces{"café", "[UNK]"}));
  // The same steps spelled as a Sequence.
  t = read_json(bert_json(
      R"({"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"}]})"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(pieces(*t, "CAFÉ"), (Pieces{"cafe"}));
  EXPECT_FALSE(t->vocabulary().wordpiece.clean_text);
  // The file's continuing prefix and word limit.
  t = read_json(bert_json(kBertNormalizer, R"({"type": "BertPreTokenizer"})", "null",
                          R"("continuing_subword_prefix": "@@", "max_input_chars_per_word": 5,)"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(pieces(*t, "unaff unaffable"), (Pieces{"un", "@@aff", "[UNK]"}));
  EXPECT_FALSE(t->adds_bos());  // no post_processor: nothing added
  EXPECT_EQ(pieces(*t, "hello", t->adds_bos()), (Pieces{"hello"}));
}

TEST(WordPieceJson, RefusesWhatItCannotFollow) {
  expect_error(read_json(bert_json(kBertNormalizer, R"({"type": "Whitespace"})")), ErrorCode::Malformed,
               "tokenizer.json", "pre_tokenizer.type \"Whitespace\" is not supported with a WordPiece model");
  expect_error(read_json(bert_json(R"({"type": "NFD"})")), ErrorCode::Malformed,
               "NFD and StripAccents are supported only together");
  expect_error(read_json(bert_json(R"({"type": "NFKC"})")), ErrorCode::Malformed,
               "normalizer.type \"NFKC\" is not supported with a WordPiece model");
  expect_error(read_json(bert_json(kBertNormalizer, R"({"type": "BertPreTokenizer"})", "null",
                                   R"("max_input_chars_per_word": 0,)")),
               ErrorCode::Malformed, "model.max_input_chars_per_word must be a whole number in 1..");
}

}  // namespace
}  // namespace glassbox
