// open_model: a GGUF file is parsed once for both its model and its tokenizer, and bytes that are not a model
// at all (a tokenizer.bin, an image, a web page, noise) are called that, while only a real llama2.c
// checkpoint is told that it needs its tokenizer.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "formats/gguf.hpp"
#include "gguf_test_support.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

using test::expect_error;

// Bytes in memory that count how often a reader asks for them: every field a parser reads asks once.
class CountingBytes : public Bytes {
 public:
  CountingBytes(std::vector<std::byte> buffer, std::string name)
      : Bytes(std::move(name)), buffer_(std::move(buffer)) {}
  const std::byte* data() const override {
    ++reads_;
    return buffer_.data();
  }
  std::size_t size() const override { return buffer_.size(); }
  int64_t reads() const { return reads_; }

 private:
  std::vector<std::byte> buffer_;
  mutable int64_t reads_ = 0;
};

TEST(OpenModel, ParsesAGgufFileOnceForModelAndTokenizer) {
  test::TinyLlama tiny;
  tiny.with_tokenizer = true;
  const std::vector<std::byte> bytes = tiny.bytes();

  auto once = std::make_shared<CountingBytes>(bytes, "tiny.gguf");
  ASSERT_TRUE(read_gguf(once).ok());
  const int64_t one_parse = once->reads();
  ASSERT_GT(one_parse, 50);  // a parse reads every field: the count below measures parses

  auto counted = std::make_shared<CountingBytes>(bytes, "tiny.gguf");
  auto loaded = open_model(counted, nullptr);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->tokenizer->vocab_size(), 4);
  EXPECT_EQ(loaded->model->config.vocab_size, 4);
  // Parsing twice would read at least 2 * one_parse times; building from the parsed file reads little more.
  EXPECT_LT(counted->reads(), one_parse + one_parse / 2) << "one parse reads " << one_parse;
}

TEST(OpenModel, AGgufWithoutTokenizerNeedsOneGiven) {
  test::TinyLlama tiny;
  auto loaded = open_model(bytes_from_buffer(tiny.bytes(), "tiny.gguf"), nullptr);
  expect_error(loaded, ErrorCode::TokenizerNeeded);
  // A GGUF that is no model is reported as such even when a tokenizer is given.
  test::TinyLlama with_tokenizer;
  with_tokenizer.with_tokenizer = true;
  with_tokenizer.architecture = "mamba";
  loaded = open_model(bytes_from_buffer(with_tokenizer.bytes(), "m.gguf"),
                      bytes_from_buffer(test::TinyLlama{.with_tokenizer = true}.bytes(), "t.gguf"));
  expect_error(loaded, ErrorCode::UnsupportedArchitecture, "m.gguf: architecture \"mamba\"");
}

void expect_not_a_model(std::vector<std::byte> bytes, const std::string& name) {
  auto loaded = open_model(bytes_from_buffer(std::move(bytes), name), nullptr);
  expect_error(loaded, ErrorCode::NotAModel, name);
}

std::vector<std::byte> bytes_of(const std::string& text) {
  const auto* p = reinterpret_cast<const std::byte*>(text.data());
  return {p, p + text.size()};
}

TEST(OpenModel, BytesThatAreNoModelAreNotAskedForATokenizer) {
  std::mt19937 rng(11);
  std::vector<std::byte> noise(4096);
  for (std::byte& b : noise)
    b = static_cast<std::byte>(rng());
  expect_not_a_model(noise, "noise.bin");
  std::vector<std::byte> jpeg = noise;
  const unsigned char jfif[] = {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00};
  for (std::size_t i = 0; i < sizeof jfif; ++i)
    jpeg[i] = std::byte{jfif[i]};
  expect_not_a_model(jpeg, "photo.jpg");
  expect_not_a_model(bytes_of("<!DOCTYPE html>\n<html><head><title>Not Found</title></head></html>\n"),
                     "model.html");
  expect_not_a_model({}, "empty.bin");
  // Named for what they are rather than read as a header of nonsense sizes.
  expect_error(
      open_model(bytes_from_buffer(bytes_of("\xEF\xBB\xBF\n  <html lang=\"en\"><body>404</body></html>"),
                                   "page.gguf"),
                 nullptr),
      ErrorCode::NotAModel, "page.gguf", "it is a web page (HTML)");
  expect_error(open_model(bytes_from_buffer({}, "empty.bin"), nullptr), ErrorCode::NotAModel, "empty.bin",
               "the file is empty (0 bytes)");
  expect_error(
      open_model(bytes_from_buffer(bytes_of("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\n"),
                                   "model.gguf"),
                 nullptr),
      ErrorCode::NotAModel, "model.gguf", "it is a Git LFS pointer");
  expect_error(open_model(bytes_from_buffer(bytes_of("Entry not found\n"), "stories.bin"), nullptr),
               ErrorCode::NotAModel, "stories.bin",
               "it is a text file, not a model's binary data; "
               "it starts \"Entry not found\"");
  // A config.json handed over as the model is text too.
  expect_error(
      open_model(bytes_from_buffer(bytes_of("{\"architectures\": [\"LlamaForCausalLM\"]}"), "config.json"),
                 nullptr),
      ErrorCode::NotAModel, "config.json", "it is a text file");
  // A checkpoint with one float too few is not a checkpoint either.
  auto short_checkpoint = test::make_llama2c_checkpoint({});
  short_checkpoint.resize(short_checkpoint.size() - 4);
  expect_not_a_model(short_checkpoint, "short.bin");
}

TEST(OpenModel, AWebPageOrEmptyFileGivenAsTheTokenizerIsNamedForWhatItIs) {
  const auto checkpoint = [] { return bytes_from_buffer(test::make_llama2c_checkpoint({}), "m.bin"); };
  auto loaded = open_model(checkpoint(),
                           bytes_from_buffer(bytes_of("<!doctype html><title>Sign in</title>"), "tok.bin"));
  expect_error(loaded, ErrorCode::NotATokenizer, "tok.bin", "it is a web page (HTML)");
  expect_error(open_model(checkpoint(), bytes_from_buffer({}, "tok.bin")), ErrorCode::NotATokenizer,
               "tok.bin", "the file is empty (0 bytes)");
}

TEST(OpenModel, ATokenizerFileGivenAsTheModelIsNoModel) {
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  const std::string tokenizer = test::read_file(test::model_path("tok512.bin"));
  ASSERT_FALSE(tokenizer.empty());
  expect_not_a_model(bytes_of(tokenizer), "tok512.bin");
}

TEST(OpenModel, AValidCheckpointWithoutTokenizerIsToldItNeedsOne) {
  auto loaded = open_model(bytes_from_buffer(test::make_llama2c_checkpoint({}), "synthetic.bin"), nullptr);
  expect_error(loaded, ErrorCode::TokenizerNeeded);
}

TEST(OpenModel, TheRealCheckpointWithoutTokenizerIsToldItNeedsOne) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  auto loaded = open_model_files(test::model_path("stories260K.bin"), "");
  expect_error(loaded, ErrorCode::TokenizerNeeded);
  // With its tokenizer it opens.
  auto with_tokenizer = open_model_files(test::model_path("stories260K.bin"), test::model_path("tok512.bin"));
  ASSERT_TRUE(with_tokenizer.ok()) << with_tokenizer.error().message;
  EXPECT_EQ(with_tokenizer->model->config.vocab_size, 512);
}

}  // namespace
}  // namespace glassbox
