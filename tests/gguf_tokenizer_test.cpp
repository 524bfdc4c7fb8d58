// The tokenizer a GGUF file carries (tokenizer.ggml.*): whether BOS is added when the file does not say
// (llama.cpp's rule, which every GGUF consumer is expected to share), and malformed vocabularies, each
// refused with an error naming the metadata key. Files are vocabulary-only GGUFs built in memory.
#include <gtest/gtest.h>

#include <optional>

#include "formats/gguf_writer.hpp"
#include "glassbox/formats.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

// A four-token vocabulary of either kind, each key overridable.
struct VocabFile {
  std::string model = "gpt2";
  std::optional<std::string> pre = "gpt-2";
  std::vector<std::string> tokens = {"a", "b", "ab", "<|end|>"};
  std::optional<std::vector<float>> scores;
  std::optional<std::vector<int32_t>> types = std::vector<int32_t>{1, 1, 1, 3};
  std::optional<bool> add_bos;
  std::optional<uint32_t> bos = 3, eos = 3;

  static VocabFile sentencepiece() {
    VocabFile v;
    v.model = "llama";
    v.pre.reset();
    v.tokens = {"<unk>", "<s>", "</s>",
                "\xe2\x96\x81"
                "a"};
    v.scores = std::vector<float>{0.0f, 0.0f, 0.0f, -1.0f};
    v.types = std::vector<int32_t>{2, 3, 3, 1};
    v.bos = 1;
    v.eos = 2;
    return v;
  }

  Result<Tokenizer> read() const {
    GgufWriter w;
    w.add_string("general.architecture", "llama");
    w.add_string("tokenizer.ggml.model", model);
    if (pre) w.add_string("tokenizer.ggml.pre", *pre);
    w.add_string_array("tokenizer.ggml.tokens", tokens);
    if (scores) w.add_float32_array("tokenizer.ggml.scores", *scores);
    if (types) w.add_int32_array("tokenizer.ggml.token_type", *types);
    if (model == "gpt2") w.add_string_array("tokenizer.ggml.merges", {"a b"});
    if (bos) w.add_uint32("tokenizer.ggml.bos_token_id", *bos);
    if (eos) w.add_uint32("tokenizer.ggml.eos_token_id", *eos);
    if (add_bos) w.add_bool("tokenizer.ggml.add_bos_token", *add_bos);
    return read_gguf_tokenizer(bytes_from_buffer(w.to_bytes(), "vocab.gguf"));
  }
};

using test::expect_error;

// llama.cpp (src/llama-vocab.cpp, llama_vocab::impl::load) starts from add_bos = true for SentencePiece
// ("llama") vocabularies and for the byte-level pre-tokenizers llama3, llama-v3 and llama-bpe (among others
// glassbox does not read); from false for the other byte-level ones, gpt-2, qwen2 and smaug-bpe included.
// tokenizer.ggml.add_bos_token, when present, overrides that.
TEST(GgufTokenizer, AddsBosWhenTheFileDoesNotSayExactlyWhereLlamaCppDoes) {
  struct Case {
    std::string model;
    std::optional<std::string> pre;
    bool adds_bos;
  };
  const Case cases[] = {
      {"llama", std::nullopt, true}, {"gpt2", "llama-bpe", true}, {"gpt2", "llama3", true},
      {"gpt2", "llama-v3", true},    {"gpt2", "gpt-2", false},    {"gpt2", "default", false},
      {"gpt2", std::nullopt, false}, {"gpt2", "qwen2", false},    {"gpt2", "smaug-bpe", false},
  };
  for (const Case& c : cases) {
    VocabFile v = c.model == "llama" ? VocabFile::sentencepiece() : VocabFile{};
    v.pre = c.pre;
    auto tokenizer = v.read();
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.error().message;
    const std::string label = c.model + " / " + c.pre.value_or("(no pre)");
    EXPECT_EQ(tokenizer->adds_bos(), c.adds_bos) << label;
    const std::vector<int> prompt = tokenizer->encode_prompt("a");
    ASSERT_FALSE(prompt.empty()) << label;
    EXPECT_EQ(prompt.front() == tokenizer->bos_id(), c.adds_bos) << label;
    // The key, when present, wins either way.
    for (const bool key : {true, false}) {
      v.add_bos = key;
      auto with_key = v.read();
      ASSERT_TRUE(with_key.ok()) << with_key.error().message;
      EXPECT_EQ(with_key->adds_bos(), key) << label << " with add_bos_token " << key;
    }
  }
}

TEST(GgufTokenizer, RefusesATokenTypeOutsideOneToSix) {
  for (const int32_t bad : {0, 7, -1}) {
    VocabFile v;
    v.types = std::vector<int32_t>{1, 1, bad, 3};
    expect_error(v.read(), ErrorCode::Malformed, "vocab.gguf",
                 "tokenizer.ggml.token_type[2] must be in 1..6, found " + std::to_string(bad));
  }
}

TEST(GgufTokenizer, RefusesScoresOrTypesOfAnotherLengthThanTheTokens) {
  VocabFile spm = VocabFile::sentencepiece();
  spm.scores = std::vector<float>{0.0f, 0.0f, 0.0f};
  expect_error(spm.read(), ErrorCode::Malformed, "vocab.gguf",
               "tokenizer.ggml.scores has 3 entries for 4 tokens");
  spm = VocabFile::sentencepiece();
  spm.scores = std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  expect_error(spm.read(), ErrorCode::Malformed, "tokenizer.ggml.scores has 5 entries for 4 tokens");
  VocabFile bpe;
  bpe.types = std::vector<int32_t>{1, 1, 1};
  expect_error(bpe.read(), ErrorCode::Malformed, "vocab.gguf",
               "tokenizer.ggml.token_type has 3 entries for 4 tokens");
}

TEST(GgufTokenizer, RefusesAnUnsupportedModelOrPreTokenizer) {
  VocabFile t5;  // SentencePiece's Unigram, which llama.cpp calls "t5"
  t5.model = "t5";
  expect_error(t5.read(), ErrorCode::UnsupportedArchitecture, "vocab.gguf", "tokenizer.ggml.model \"t5\"");
  VocabFile falcon;
  falcon.pre = "falcon";
  expect_error(falcon.read(), ErrorCode::UnsupportedArchitecture, "vocab.gguf",
               "tokenizer.ggml.pre \"falcon\"");
}

TEST(GgufTokenizer, RefusesSpecialTokenIdsPastTheVocabulary) {
  VocabFile bos;
  bos.bos = 4;  // four tokens: ids 0..3
  expect_error(bos.read(), ErrorCode::Malformed, "vocab.gguf",
               "tokenizer.ggml.bos_token_id is 4, past the vocabulary of 4 tokens");
  VocabFile eos = VocabFile::sentencepiece();
  eos.eos = 1000;
  expect_error(eos.read(), ErrorCode::Malformed,
               "tokenizer.ggml.eos_token_id is 1000, past the vocabulary of 4 tokens");
  VocabFile last;  // the last id is fine, and uint32 -1 means "none"
  last.bos = 3;
  last.eos = 0xFFFFFFFFu;
  auto ok = last.read();
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->bos_id(), 3);
  EXPECT_EQ(ok->eos_id(), -1);
}

}  // namespace
}  // namespace glassbox
