// Byte-level BPE: the pre-tokenizers' word splits, merge order, byte spans, invalid input, and conformance
// with Hugging Face's reference ids for the vocabularies in ../shared/tokenizer-vectors (llama.cpp's test
// vectors; ids from `encode(text, add_special_tokens=False)`).
//
// llama-bpe (Llama 3) and qwen2 have only .inp/.out files there, not their vocabularies (their GGUFs are too
// large to be kept), so their pre-tokenizers are checked on hand-made splits derived from the regexes
// instead.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "glassbox/formats.hpp"
#include "glassbox/tokenizer.hpp"
#include "test_support.hpp"
#include "tokenizer/pre_tokenizer.hpp"
#include "tokenizer/unicode_tables.hpp"

namespace glassbox {
namespace {

using Words = std::vector<std::string>;

Words words_of(PreTokenizer pre, std::string_view text) {
  Words out;
  for (const WordSpan& w : split_words(pre, text))
    out.emplace_back(text.substr(w.begin, w.end - w.begin));
  return out;
}

// --- character classes ------------------------------------------------------------------------------------

TEST(BpeUnicodeTables, ClassifiesLettersNumbersAndWhitespace) {
  EXPECT_EQ(char_class(U'a'), CharClass::Letter);
  EXPECT_EQ(char_class(U'é'), CharClass::Letter);
  EXPECT_EQ(char_class(U'я'), CharClass::Letter);
  EXPECT_EQ(char_class(U'我'), CharClass::Letter);  // Lo
  EXPECT_EQ(char_class(U'ក'), CharClass::Letter);   // Khmer
  EXPECT_EQ(char_class(0x17B6), CharClass::Other);  // a Khmer vowel sign is Mc, not a letter
  EXPECT_EQ(char_class(U'7'), CharClass::Number);
  EXPECT_EQ(char_class(U'٣'), CharClass::Number);  // Arabic-Indic digit (Nd)
  EXPECT_EQ(char_class(U'Ⅻ'), CharClass::Number);  // Roman numeral (Nl)
  EXPECT_EQ(char_class(U'½'), CharClass::Number);  // No
  for (char32_t c : {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x200A, 0x2028, 0x2029,
                     0x202F, 0x205F, 0x3000})
    EXPECT_EQ(char_class(c), CharClass::Whitespace) << std::hex << static_cast<uint32_t>(c);
  for (char32_t c : {0x1C, 0x1F, 0x200B, 0x180E, 0xFEFF})  // not White_Space, whatever isspace() says
    EXPECT_EQ(char_class(c), CharClass::Other) << std::hex << static_cast<uint32_t>(c);
  EXPECT_EQ(char_class(U'!'), CharClass::Other);
  EXPECT_EQ(char_class(U'😁'), CharClass::Other);
  EXPECT_EQ(char_class(0x10FFFF), CharClass::Other);
  EXPECT_EQ(char_class(0x110000), CharClass::Other);
  EXPECT_EQ(char_class(0xFFFFFFFF), CharClass::Other);
  // The ASCII shortcut agrees with the table.
  for (char32_t c = 0; c < 0x80; ++c)
    EXPECT_EQ(char_class(c), char_class_from_table(c)) << static_cast<uint32_t>(c);
  // Which Unicode the generated table follows (scripts/gen-unicode-tables.py; 14.0.0 when written).
  std::printf("Unicode tables: %s\n", kUnicodeTablesVersion);
}

// --- pre-tokenizers ---------------------------------------------------------------------------------------

TEST(BpePreTokenizer, Gpt2Words) {
  const PreTokenizer p = PreTokenizer::Gpt2;
  EXPECT_EQ(words_of(p, ""), Words{});
  EXPECT_EQ(words_of(p, "Hello world"), (Words{"Hello", " world"}));
  EXPECT_EQ(words_of(p, "Hello, world!"), (Words{"Hello", ",", " world", "!"}));
  // Contractions are case-sensitive and split off even inside a word.
  EXPECT_EQ(words_of(p, "I'm they'll we'RE 'sup"),
            (Words{"I", "'m", " they", "'ll", " we", "'", "RE", " '", "sup"}));
  // A whitespace run leaves its last character to the next word; a single one stands alone.
  EXPECT_EQ(words_of(p, "  Hello"), (Words{" ", " Hello"}));
  EXPECT_EQ(words_of(p, "a   b"), (Words{"a", "  ", " b"}));
  EXPECT_EQ(words_of(p, "a\n\nb"), (Words{"a", "\n", "\n", "b"}));
  EXPECT_EQ(words_of(p, "\n ="), (Words{"\n", " ="}));
  EXPECT_EQ(words_of(p, "a\tb"), (Words{"a", "\t", "b"}));
  EXPECT_EQ(words_of(p, "hi  "), (Words{"hi", "  "}));    // trailing whitespace stays together
  EXPECT_EQ(words_of(p, "hi \n"), (Words{"hi", " \n"}));  // (?!\S) holds at the end
  // Numbers in one run; letters and numbers never share a word; the optional space is ASCII only.
  EXPECT_EQ(words_of(p, "abc123def 4567"), (Words{"abc", "123", "def", " 4567"}));
  EXPECT_EQ(words_of(p, "a\u00A0b"), (Words{"a", "\u00A0", "b"}));
  EXPECT_EQ(words_of(p, ".foo ..."), (Words{".", "foo", " ..."}));
  EXPECT_EQ(words_of(p, "Привет мир 😁!"), (Words{"Привет", " мир", " 😁!"}));
  EXPECT_EQ(words_of(p, "我想在apple工作1314151天～"), (Words{"我想在apple工作", "1314151", "天", "～"}));
}

TEST(BpePreTokenizer, Llama3Words) {
  const PreTokenizer p = PreTokenizer::Llama3;
  EXPECT_EQ(words_of(p, "Hello world"), (Words{"Hello", " world"}));
  // Contractions ignore case (and U+017F, long s, folds to s).
  EXPECT_EQ(words_of(p, "I'M don'T WE'RE we'Ll it'ſx"),
            (Words{"I", "'M", " don", "'T", " WE", "'RE", " we", "'Ll", " it", "'ſ", "x"}));
  // After a space the apostrophe goes with the space: ` ?[^\s\p{L}\p{N}]+` matches at the space first.
  EXPECT_EQ(words_of(p, "a 's"), (Words{"a", " '", "s"}));
  // Digits in groups of at most three, never led by a space.
  EXPECT_EQ(words_of(p, "1234567"), (Words{"123", "456", "7"}));
  EXPECT_EQ(words_of(p, "a 2024!"), (Words{"a", " ", "202", "4", "!"}));
  EXPECT_EQ(words_of(p, "3.14"), (Words{"3", ".", "14"}));
  // One character that is not a letter, number or line break may lead a run of letters.
  EXPECT_EQ(words_of(p, ".foo \tbar\u00A0baz"), (Words{".foo", " ", "\tbar", "\u00A0baz"}));
  EXPECT_EQ(words_of(p, "\nfoo"), (Words{"\n", "foo"}));
  // Punctuation keeps the line breaks right after it.
  EXPECT_EQ(words_of(p, "hello!!\n\nworld"), (Words{"hello", "!!\n\n", "world"}));
  EXPECT_EQ(words_of(p, "x ?\r\ny"), (Words{"x", " ?\r\n", "y"}));
  // Whitespace up to the last line break of a run is one word.
  EXPECT_EQ(words_of(p, "a\n\nb"), (Words{"a", "\n\n", "b"}));
  EXPECT_EQ(words_of(p, "a  \nb"), (Words{"a", "  \n", "b"}));
  EXPECT_EQ(words_of(p, "a \n  b"), (Words{"a", " \n", " ", " b"}));
  EXPECT_EQ(words_of(p, "a\n \n\t\tb"), (Words{"a", "\n \n", "\t", "\tb"}));
  EXPECT_EQ(words_of(p, "\n\n\n"), (Words{"\n\n\n"}));
  // Trailing whitespace stays together; a lone space before a digit stands alone.
  EXPECT_EQ(words_of(p, "hi   "), (Words{"hi", "   "}));
  EXPECT_EQ(words_of(p, "   7"), (Words{"  ", " ", "7"}));
  EXPECT_EQ(words_of(p, "\t?"), (Words{"\t", "?"}));
  EXPECT_EQ(words_of(p, "我想在apple工作1314151天～"),
            (Words{"我想在apple工作", "131", "415", "1", "天", "～"}));
}

TEST(BpePreTokenizer, Qwen2SplitsEveryDigit) {
  const PreTokenizer p = PreTokenizer::Qwen2;
  EXPECT_EQ(words_of(p, "1234 x9"), (Words{"1", "2", "3", "4", " x", "9"}));
  EXPECT_EQ(words_of(p, "I'VE\n\n  "), (Words{"I", "'VE", "\n\n", "  "}));
  EXPECT_EQ(words_of(p, "hello!!\n\nworld"), (Words{"hello", "!!\n\n", "world"}));
}

TEST(BpePreTokenizer, InvalidUtf8BytesAreCharactersOfTheirOwn) {
  // A stray byte, a lone continuation byte, an overlong space (C0 A0), a truncated character, a surrogate.
  const std::string bad =
      "a\xff\x80 b\xC0\xA0"
      "c\xE4\xB8 \xED\xA0\x80";
  EXPECT_EQ(words_of(PreTokenizer::Gpt2, bad),
            (Words{"a", "\xff\x80", " b", "\xC0\xA0", "c", "\xE4\xB8", " \xED\xA0\x80"}));
  EXPECT_EQ(words_of(PreTokenizer::Llama3, bad), words_of(PreTokenizer::Gpt2, bad));
  // One invalid byte may lead a run of letters in Llama 3, like any other non-letter.
  EXPECT_EQ(words_of(PreTokenizer::Llama3,
                     "\xff"
                     "abc"),
            (Words{"\xff"
                   "abc"}));
  EXPECT_EQ(words_of(PreTokenizer::Gpt2,
                     "\xff"
                     "abc"),
            (Words{"\xff", "abc"}));
  for (PreTokenizer p : {PreTokenizer::Gpt2, PreTokenizer::Llama3, PreTokenizer::Qwen2}) {
    std::string joined;
    for (const std::string& w : words_of(p, bad))
      joined += w;
    EXPECT_EQ(joined, bad);
  }
}

// --- merging, with a hand-made vocabulary ------------------------------------------------------------------

// The 256 byte pieces in GPT-2's mapping (ids 0..255 in byte order), then `extra` pieces, then the merges.
Vocabulary byte_level_vocabulary(const std::vector<std::string>& extra,
                                 const std::vector<std::string>& merges) {
  Vocabulary v;
  v.kind = TokenizerKind::ByteLevelBpe;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
    static int next = 0;
    if (b == 0) next = 0x100;
    const char32_t c = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(next++);
    std::string s;
    if (c < 0x80) {
      s += static_cast<char>(c);
    } else {
      s += static_cast<char>(0xC0 | (c >> 6));
      s += static_cast<char>(0x80 | (c & 0x3F));
    }
    v.pieces.push_back(s);
  }
  for (const std::string& p : extra)
    v.pieces.push_back(p);
  v.pieces.push_back("<|endoftext|>");
  v.scores.assign(v.pieces.size(), 0.0f);
  v.types.assign(v.pieces.size(), TokenType::Normal);
  v.types.back() = TokenType::Control;
  v.bos_id = v.eos_id = static_cast<int>(v.pieces.size()) - 1;
  v.merges = merges;
  v.add_bos = false;
  v.add_space_prefix = false;
  return v;
}

Tokenizer make_byte_level(const std::vector<std::string>& extra, const std::vector<std::string>& merges) {
  auto t = Tokenizer::create(byte_level_vocabulary(extra, merges), "hand-made");
  EXPECT_TRUE(t.ok()) << t.error().message;
  return std::move(*t);
}

Words pieces_of(const Tokenizer& t, std::string_view text) {
  Words out;
  for (int id : t.encode_ids(text, false))
    out.push_back(t.piece(id));
  return out;
}

TEST(BpeTokenizer, MapsBytesToPrintablePieces) {
  const Tokenizer t = make_byte_level({}, {});
  EXPECT_EQ(t.piece(' '), "Ġ");
  EXPECT_EQ(t.piece('\n'), "Ċ");
  EXPECT_EQ(t.piece(0), "Ā");
  EXPECT_EQ(t.piece(0xAD), "Ń");
  EXPECT_EQ(t.piece('A'), "A");
  EXPECT_EQ(t.piece(0xE9), "é");
  EXPECT_EQ(pieces_of(t, "a b"), (Words{"a", "Ġ", "b"}));
  EXPECT_EQ(t.token_text(-1, ' '), " ");
  EXPECT_EQ(t.token_text(-1, 0xE9), "\xE9");
}

TEST(BpeTokenizer, MergesTheLowestRankFirst) {
  // "abc": "b c" has a better rank than "a b", so the result is "a" + "bc".
  const Tokenizer t = make_byte_level({"ab", "bc", "abc"}, {"b c", "a b", "a bc"});
  EXPECT_EQ(pieces_of(t, "abc"), (Words{"abc"}));
  const Tokenizer u = make_byte_level({"ab", "bc"}, {"b c", "a b"});
  EXPECT_EQ(pieces_of(u, "abc"), (Words{"a", "bc"}));
  const Tokenizer v = make_byte_level({"ab", "bc"}, {"a b", "b c"});
  EXPECT_EQ(pieces_of(v, "abc"), (Words{"ab", "c"}));
}

TEST(BpeTokenizer, BreaksRankTiesTowardsTheLeftAndNeverMergesAcrossWords) {
  const Tokenizer t = make_byte_level({"aa", "Ġa", "aĠ"}, {"a a", "Ġ a", "a Ġ"});
  EXPECT_EQ(pieces_of(t, "aaa"), (Words{"aa", "a"}));
  EXPECT_EQ(pieces_of(t, "aaaaa"), (Words{"aa", "aa", "a"}));
  // "a a": words "a" and " a"; "a Ġ" would merge across the boundary and must not.
  EXPECT_EQ(pieces_of(t, "a a"), (Words{"a", "Ġa"}));
}

TEST(BpeTokenizer, IgnoreMergesTakesWholeWordPieces) {
  // "abc" is a piece no merge reaches; with ignore_merges (Llama 3) the word "abc" is that piece.
  Vocabulary v = byte_level_vocabulary({"ab", "abc"}, {"a b"});
  auto plain = Tokenizer::create(v, "v");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(pieces_of(*plain, "abc"), (Words{"ab", "c"}));
  v.ignore_merges = true;
  auto ignoring = Tokenizer::create(v, "v");
  ASSERT_TRUE(ignoring.ok());
  EXPECT_EQ(pieces_of(*ignoring, "abc"), (Words{"abc"}));
  EXPECT_EQ(pieces_of(*ignoring, "abcd"), (Words{"ab", "c", "d"}));
  v.ignore_merges = false;
  v.pre_tokenizer = PreTokenizer::Llama3;  // turns it on, as in llama.cpp
  auto llama3 = Tokenizer::create(v, "v");
  ASSERT_TRUE(llama3.ok());
  EXPECT_TRUE(llama3->vocabulary().ignore_merges);
  EXPECT_EQ(pieces_of(*llama3, "abc"), (Words{"abc"}));
}

TEST(BpeTokenizer, SpansCoverTheInputBytes) {
  const Tokenizer t = make_byte_level({"Ġw", "Ġwo", "Ã©"}, {"Ġ w", "Ġw o", "Ã ©"});
  const std::string text = "é wo!";
  const std::vector<EncodedToken> tokens = t.encode(text, false);
  std::vector<std::tuple<std::string, int, int>> got;
  for (const EncodedToken& e : tokens)
    got.emplace_back(t.piece(e.id), e.byte_begin, e.byte_end);
  // "é" is bytes C3 A9, whose pieces "Ã" "©" merge into "Ã©" (which covers both bytes).
  EXPECT_EQ(got, (std::vector<std::tuple<std::string, int, int>>{{"Ã©", 0, 2}, {"Ġwo", 2, 5}, {"!", 5, 6}}));
  EXPECT_EQ(t.decode(t.encode_ids(text, true)), text);
}

TEST(BpeTokenizer, ControlTokensAreNotParsedAndDecodeToNothing) {
  const Tokenizer t = make_byte_level({}, {});
  const int eot = t.eos_id();
  EXPECT_EQ(t.token_text(-1, eot), "");
  const std::vector<int> ids = t.encode_ids("<|endoftext|>", false);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), eot), 0);
  EXPECT_EQ(t.decode(ids), "<|endoftext|>");
  EXPECT_EQ(t.encode_ids("x", true), (std::vector<int>{eot, 'x'}));  // explicit BOS request (bos = eos here)
}

TEST(BpeTokenizer, UserDefinedTokensDecodeAsWritten) {
  Vocabulary v = byte_level_vocabulary({"<tool call>"}, {});
  v.types[256] = TokenType::UserDefined;
  auto t = Tokenizer::create(v, "v");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->token_text(-1, 256), "<tool call>");
}

TEST(BpeTokenizer, MissingBytePiecesFallBackToUnkOrNothing) {
  Vocabulary v = byte_level_vocabulary({"<unk>"}, {});
  v.pieces['z'] = "zz-not-a-byte";
  v.unk_id = 256;
  v.types[256] = TokenType::Unknown;
  auto t = Tokenizer::create(v, "v");
  ASSERT_TRUE(t.ok()) << t->vocabulary().pieces.size();
  EXPECT_EQ(t->encode_ids("azb", false), (std::vector<int>{'a', 256, 'b'}));
  v.unk_id = -1;
  auto u = Tokenizer::create(v, "v");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->encode_ids("azb", false), (std::vector<int>{'a', 'b'}));
}

TEST(BpeTokenizer, RejectsMalformedMerges) {
  auto message = [](std::vector<std::string> merges) {
    auto t = Tokenizer::create(byte_level_vocabulary({"ab"}, merges), "vocab.gguf");
    return t.ok() ? std::string("ok") : t.error().message;
  };
  EXPECT_EQ(message({"a b"}), "ok");
  EXPECT_EQ(message({"a b", "ab"}), "vocab.gguf: merge 1 \"ab\" must be two pieces separated by one space");
  EXPECT_EQ(message({"a  b"}), "vocab.gguf: merge 0 \"a  b\" must be two pieces separated by one space");
  EXPECT_EQ(message({" ab"}), "vocab.gguf: merge 0 \" ab\" must be two pieces separated by one space");
  EXPECT_EQ(message({"a b", "b c"}),
            "vocab.gguf: merge 1 \"b c\" needs the piece \"bc\", which is not in the vocabulary");
  EXPECT_EQ(message({"a xyz"}),
            "vocab.gguf: merge 0 \"a xyz\" needs the piece \"xyz\", which is not in the vocabulary");
}

// --- conformance with the reference ids
// ----------------------------------------------------------------------

std::shared_ptr<const Tokenizer> load_vocab(const std::string& name) {
  auto bytes = map_file(test::vectors_path("ggml-vocab-" + name + ".gguf"));
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  if (!bytes) return nullptr;
  auto t = read_gguf_tokenizer(*bytes);
  EXPECT_TRUE(t.ok()) << t.error().message;
  if (!t) return nullptr;
  return std::make_shared<const Tokenizer>(std::move(*t));
}

// Encodes every .inp text without BOS and compares with the .out ids; checks decode and the spans too.
void expect_matches_vectors(const std::string& name) {
  const std::string gguf = test::vectors_path("ggml-vocab-" + name + ".gguf");
  const std::string inp = gguf + ".inp";
  const std::string out = gguf + ".out";
  GLASSBOX_REQUIRE_FILE(gguf);
  GLASSBOX_REQUIRE_FILE(inp);
  GLASSBOX_REQUIRE_FILE(out);
  const auto t = load_vocab(name);
  ASSERT_TRUE(t);
  const std::vector<test::TokenizerVector> cases = test::read_tokenizer_vectors(inp, out);
  test::expect_tokenizer_vectors(*t, cases, name + " vectors");
  for (const test::TokenizerVector& c : cases)
    EXPECT_EQ(t->decode(c.ids), c.text) << name;
}

TEST(BpeTokenizerVectors, Gpt2MatchesHuggingFace) {
  expect_matches_vectors("gpt-2");
}
// The SentencePiece vocabularies, loaded from their GGUF files this time.
TEST(BpeTokenizerVectors, LlamaSpmMatchesHuggingFace) {
  expect_matches_vectors("llama-spm");
}
TEST(BpeTokenizerVectors, Phi3MatchesHuggingFace) {
  expect_matches_vectors("phi-3");
}

TEST(BpeTokenizerVectors, Gpt2ByteSpansAreExact) {
  GLASSBOX_REQUIRE_FILE(test::vectors_path("ggml-vocab-gpt-2.gguf"));
  const auto t = load_vocab("gpt-2");
  ASSERT_TRUE(t);
  const std::string text = "Hello, y'all! 😁 我想 \xff\n\n";
  for (const EncodedToken& token : t->encode(text, false))
    EXPECT_EQ(t->token_text(-2, token.id), text.substr(token.byte_begin, token.byte_end - token.byte_begin));
}

// Random bytes (mostly invalid UTF-8) and random mixes of tricky characters: no crash, exact round trips and
// spans that tile the input, with each of the three pre-tokenizers over the GPT-2 vocabulary.
TEST(BpeTokenizerVectors, RandomInputRoundTrips) {
  GLASSBOX_REQUIRE_FILE(test::vectors_path("ggml-vocab-gpt-2.gguf"));
  const auto gpt2 = load_vocab("gpt-2");
  ASSERT_TRUE(gpt2);
  const char* const atoms[] = {" ",      "  ",   "\n",   "\r\n",     "\t", "'s", "'LL",   "a",
                               "Z",      "é",    "1",    "23",       "!",  "?!", "😁",     "我",
                               "\u00A0", "\xff", "\x80", "\xE4\xB8", "Ġ",  "ſ",  "\u2028"};
  std::mt19937 rng(42);
  for (PreTokenizer pre : {PreTokenizer::Gpt2, PreTokenizer::Llama3, PreTokenizer::Qwen2}) {
    Vocabulary v = gpt2->vocabulary();
    v.pre_tokenizer = pre;
    auto t = Tokenizer::create(std::move(v), "gpt-2 with another pre-tokenizer");
    ASSERT_TRUE(t.ok()) << t.error().message;
    for (int round = 0; round < 300; ++round) {
      std::string text;
      const int length = static_cast<int>(rng() % 64);
      for (int k = 0; k < length; ++k) {
        if (round % 2) {
          text += static_cast<char>(rng() & 0xFF);
        } else {
          text += atoms[rng() % std::size(atoms)];
        }
      }
      const std::vector<EncodedToken> tokens = t->encode(text, false);
      std::vector<int> ids;
      int covered = 0;
      for (const EncodedToken& token : tokens) {
        ASSERT_TRUE(t->valid_id(token.id));
        ASSERT_EQ(token.byte_begin, covered);
        ASSERT_GT(token.byte_end, token.byte_begin);
        covered = token.byte_end;
        ids.push_back(token.id);
      }
      ASSERT_EQ(covered, static_cast<int>(text.size()));
      ASSERT_EQ(t->decode(ids), text);
    }
  }
}

// The page re-tokenizes as the user types: the long mixed text of the vectors (CHK_TXT, 431 bytes here), and
// five copies of it (about 2 KB), with the 50257-token GPT-2 vocabulary. Its speed is not asserted here (a
// test that measures time flakes on a busy machine; `glassbox bench` and the browser tests measure speed):
// this checks that the long text and its copies encode exactly and round-trip.
TEST(BpeTokenizerVectors, EncodesTheLongTextAndCopiesOfIt) {
  const std::string gguf = test::vectors_path("ggml-vocab-gpt-2.gguf");
  GLASSBOX_REQUIRE_FILE(gguf);
  GLASSBOX_REQUIRE_FILE(gguf + ".inp");
  GLASSBOX_REQUIRE_FILE(gguf + ".out");
  const auto t = load_vocab("gpt-2");
  ASSERT_TRUE(t);
  const test::TokenizerVector chk = test::read_tokenizer_vectors(gguf + ".inp", gguf + ".out").back();
  ASSERT_GT(chk.text.size(), 400u);
  EXPECT_EQ(t->encode_ids(chk.text, false), chk.ids);
  for (int copies : {1, 5}) {
    std::string text;
    for (int k = 0; k < copies; ++k)
      text += chk.text;
    const std::vector<EncodedToken> tokens = t->encode(text, false);
    std::vector<int> ids;
    int covered = 0;
    for (const EncodedToken& token : tokens) {
      ASSERT_EQ(token.byte_begin, covered) << copies << " copies";
      covered = token.byte_end;
      ids.push_back(token.id);
    }
    EXPECT_EQ(covered, static_cast<int>(text.size())) << copies << " copies";
    EXPECT_EQ(t->decode(ids), text) << copies << " copies";
  }
}

}  // namespace
}  // namespace glassbox
