// SentencePiece-style BPE: merge order, byte fallback, byte spans, and round trips with the real vocabularies
// (tok512 of stories260K and the 32000-token Llama 2 tokenizer.bin), plus Hugging Face's reference ids for
// the Llama 2 vocabulary (../shared/tokenizer-vectors/ggml-vocab-llama-spm.gguf.inp/.out).
#include <gtest/gtest.h>

#include "glassbox/formats.hpp"
#include "glassbox/tokenizer.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

// A hand-made vocabulary: specials, the 256 byte tokens, then pieces with their merge scores.
Tokenizer make_tokenizer(const std::vector<std::pair<std::string, float>>& pieces, bool with_bytes = true) {
  Vocabulary v;
  auto add = [&](std::string piece, float score, TokenType type) {
    v.pieces.push_back(std::move(piece));
    v.scores.push_back(score);
    v.types.push_back(type);
  };
  add("<unk>", 0, TokenType::Unknown);
  add("<s>", 0, TokenType::Control);
  add("</s>", 0, TokenType::Control);
  if (with_bytes) {
    for (int b = 0; b < 256; ++b) {
      char name[8];
      std::snprintf(name, sizeof name, "<0x%02X>", b);
      add(name, 0, TokenType::Byte);
    }
  }
  for (const auto& [piece, score] : pieces)
    add(piece, score, TokenType::Normal);
  v.unk_id = 0;
  v.bos_id = 1;
  v.eos_id = 2;
  auto t = Tokenizer::create(std::move(v), "hand-made");
  EXPECT_TRUE(t.ok());
  return std::move(*t);
}

std::vector<std::string> pieces_of(const Tokenizer& t, std::string_view text) {
  std::vector<std::string> out;
  for (int id : t.encode_ids(text, false))
    out.push_back(t.piece(id));
  return out;
}

TEST(SpmTokenizer, MergesTheHighestScoringPairFirst) {
  // "abc": "bc" (score 5) beats "ab" (score 1), so the result is "a" + "bc", not "ab" + "c".
  const Tokenizer t = make_tokenizer({{" ", 0}, {"a", 0}, {"b", 0}, {"c", 0}, {"ab", 1}, {"bc", 5}});
  EXPECT_EQ(pieces_of(t, "abc"), (std::vector<std::string>{" ", "a", "bc"}));
}

TEST(SpmTokenizer, BreaksScoreTiesTowardsTheLeft) {
  const Tokenizer t = make_tokenizer({{" ", 0}, {"a", 0}, {"aa", 2}});
  EXPECT_EQ(pieces_of(t, "aaa"), (std::vector<std::string>{" ", "aa", "a"}));
}

TEST(SpmTokenizer, AddsTheDummyPrefixAndBos) {
  const Tokenizer t = make_tokenizer({{" ", 0}, {"h", 0}, {"i", 0}, {" h", 3}, {" hi", 4}});
  EXPECT_EQ(t.encode_ids("hi", true), (std::vector<int>{1, t.encode_ids("hi", false)[0]}));
  EXPECT_EQ(pieces_of(t, "hi"), (std::vector<std::string>{" hi"}));
  EXPECT_TRUE(t.encode("", false).empty());
  EXPECT_EQ(t.encode_ids("", true), (std::vector<int>{1}));
}

TEST(SpmTokenizer, FallsBackToBytesForUnknownCharacters) {
  const Tokenizer t = make_tokenizer({{" ", 0}, {"a", 0}});
  // "é" is two bytes (C3 A9) and not in the vocabulary.
  EXPECT_EQ(pieces_of(t, "aé"), (std::vector<std::string>{" ", "a", "<0xC3>", "<0xA9>"}));
  EXPECT_EQ(t.decode(t.encode_ids("aé", true)), "aé");
}

TEST(SpmTokenizer, UsesUnkWithoutByteTokens) {
  const Tokenizer t = make_tokenizer({{" ", 0}, {"a", 0}}, false);
  EXPECT_EQ(t.encode_ids("é", false), (std::vector<int>{t.encode_ids(" ", false)[0], 0, 0}));
}

TEST(SpmTokenizer, InvalidUtf8BecomesByteTokensAndRoundTrips) {
  const Tokenizer t = make_tokenizer({{" ", 0}, {"a", 0}});
  const std::string text = "a\xff\x80\xe4\xb8";  // a stray byte, a lone continuation, a truncated character
  EXPECT_EQ(t.decode(t.encode_ids(text, true)), text);
}

TEST(SpmTokenizer, RejectsAnInconsistentVocabulary) {
  Vocabulary v;
  v.pieces = {"a", "b"};
  v.scores = {0};
  v.types = {TokenType::Normal, TokenType::Normal};
  test::expect_error(Tokenizer::create(v, "v.bin"), ErrorCode::Malformed, "2 pieces but 1 scores");
  v.scores = {0, 0};
  v.bos_id = 7;
  test::expect_error(Tokenizer::create(v, "v.bin"), ErrorCode::Malformed,
                     "bos token id must be below the vocabulary size 2, found 7");
}

// --- with the real vocabularies ---------------------------------------------------------------------------

const char* const kRoundTripTexts[] = {
    "",
    "Once upon a time",
    "Hello, world! 123 4567",
    "🙂🦙 and 👨‍👩‍👧 (a ZWJ family)",
    "我想在apple工作1314151天～",
    "Cửa Việt, Führer, нещо на Български",
    "a   b    c     ",
    "   leading spaces",
    "\n\nnew\nlines\n\n\n",
    "\t tabs\t\tand \r\n returns",
    " ",
    "\n",
};

void expect_round_trips_and_spans(const Tokenizer& t) {
  for (const char* text : kRoundTripTexts) {
    SCOPED_TRACE(std::string("text: '") + text + "'");
    for (bool bos : {true, false})
      EXPECT_EQ(t.decode(t.encode_ids(text, bos)), text);

    // Spans run left to right, touch, and cover the whole input.
    const std::string input = text;
    int covered = 0;
    for (const EncodedToken& token : t.encode(input, true)) {
      EXPECT_EQ(token.byte_begin, covered);
      EXPECT_GE(token.byte_end, token.byte_begin);
      const std::string bytes = input.substr(token.byte_begin, token.byte_end - token.byte_begin);
      if (t.type(token.id) == TokenType::Normal) {
        // A piece is its input bytes, plus the dummy-prefix space for the first one.
        const std::string& piece = t.piece(token.id);
        EXPECT_TRUE(piece == bytes || piece == " " + bytes)
            << "piece '" << piece << "' vs bytes '" << bytes << "'";
      } else if (t.type(token.id) == TokenType::Byte) {
        EXPECT_EQ(bytes.size(), 1u);
        EXPECT_EQ(t.token_text(-2, token.id), bytes);
      }
      covered = token.byte_end;
    }
    EXPECT_EQ(covered, static_cast<int>(input.size()));
  }
}

TEST(SpmTokenizerFiles, Tok512RoundTripsAndSpansCoverTheInput) {
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  auto t = load_llama2c_tokenizer(test::model_path("tok512.bin"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->vocab_size(), 512);
  expect_round_trips_and_spans(*t);
}

TEST(SpmTokenizerFiles, Llama2TokenizerRoundTripsAndSpansCoverTheInput) {
  GLASSBOX_REQUIRE_FILE(test::model_path("tokenizer.bin"));
  auto t = load_llama2c_tokenizer(test::model_path("tokenizer.bin"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->vocab_size(), 32000);
  expect_round_trips_and_spans(*t);
}

// The llama.cpp test vectors: 46 texts and the ids Hugging Face's tokenizer gives them (no BOS). Our
// tokenizer.bin is the same Llama 2 vocabulary as ggml-vocab-llama-spm.gguf (ids 1 and 2 spelled
// differently).
TEST(SpmTokenizerFiles, Llama2TokenizerMatchesHuggingFaceReferenceIds) {
  GLASSBOX_REQUIRE_FILE(test::model_path("tokenizer.bin"));
  const std::string inp = test::vectors_path("ggml-vocab-llama-spm.gguf.inp");
  const std::string out = test::vectors_path("ggml-vocab-llama-spm.gguf.out");
  GLASSBOX_REQUIRE_FILE(inp);
  GLASSBOX_REQUIRE_FILE(out);
  auto t = load_llama2c_tokenizer(test::model_path("tokenizer.bin"));
  ASSERT_TRUE(t.ok()) << t.error().message;

  test::expect_tokenizer_vectors(*t, test::read_tokenizer_vectors(inp, out),
                                 "llama-spm vectors with tokenizer.bin");
}

}  // namespace
}  // namespace glassbox
