// The llama2.c readers reject every malformed file with an error naming the file, the field and the expected
// versus found value, and never read out of bounds. One test per kind of damage.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "glassbox/formats.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

using test::Llama2cHeader;

Result<Model> read_checkpoint(std::vector<std::byte> bytes) {
  return read_llama2c_checkpoint(bytes_from_buffer(std::move(bytes), "bad.bin"));
}

using test::expect_error;

TEST(Llama2cCheckpoint, ReadsAWellFormedFile) {
  auto model = read_checkpoint(test::make_llama2c_checkpoint({}));
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ(model->config.dim, 16);
  EXPECT_EQ(model->config.head_dim, 4);
  EXPECT_EQ(model->config.kv_dim(), 8);
  EXPECT_TRUE(model->config.tied_embeddings);
  EXPECT_EQ(model->weights.output.data, model->weights.token_embedding.data);
}

TEST(Llama2cCheckpoint, NegativeVocabSizeMeansASeparateClassifier) {
  Llama2cHeader h;
  h.vocab_size = -32;
  auto model = read_checkpoint(test::make_llama2c_checkpoint(h));
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ(model->config.vocab_size, 32);
  EXPECT_FALSE(model->config.tied_embeddings);
  EXPECT_NE(model->weights.output.data, model->weights.token_embedding.data);
  // The classifier is the last vocab x dim floats of the file.
  const std::byte* end = model->weights.output.data + 32 * 16 * sizeof(float);
  const auto& storage = *std::static_pointer_cast<const Bytes>(model->storage.front());
  EXPECT_EQ(end, storage.data() + storage.size());
}

TEST(Llama2cCheckpoint, RejectsATruncatedHeader) {
  auto bytes = test::make_llama2c_checkpoint({});
  bytes.resize(20);
  expect_error(read_checkpoint(bytes), ErrorCode::NotAModel, "bad.bin", "header needs 28 bytes", "has 20");
}

TEST(Llama2cCheckpoint, RejectsAnEmptyFile) {
  expect_error(read_checkpoint({}), ErrorCode::NotAModel, "bad.bin", "header needs 28 bytes", "has 0");
}

TEST(Llama2cCheckpoint, RejectsTruncatedWeights) {
  auto bytes = test::make_llama2c_checkpoint({});
  const std::size_t full = bytes.size();
  bytes.resize(full - 4);
  expect_error(read_checkpoint(bytes), ErrorCode::Truncated, "bad.bin",
               "need " + std::to_string(full) + " bytes", "the file has " + std::to_string(full - 4));
}

TEST(Llama2cCheckpoint, RejectsTrailingBytes) {
  auto bytes = test::make_llama2c_checkpoint({});
  const std::size_t full = bytes.size();
  bytes.resize(full + 8);
  expect_error(read_checkpoint(bytes), ErrorCode::Malformed, "need " + std::to_string(full) + " bytes",
               "the file has " + std::to_string(full + 8));
}

TEST(Llama2cCheckpoint, RejectsSizesThatDisagreeWithTheFileLength) {
  // A header claiming more layers than the weights that follow.
  auto bytes = test::make_llama2c_checkpoint({});
  const int32_t layers = 3;
  std::memcpy(bytes.data() + 8, &layers, 4);
  expect_error(read_checkpoint(bytes), ErrorCode::Truncated, "bad.bin", "file size disagrees with the header",
               "n_layers 3", "the file has " + std::to_string(bytes.size()));
}

TEST(Llama2cCheckpoint, RejectsASeparateClassifierThatIsMissing) {
  // vocab_size -32 promises a classifier after the weights; a file written with +32 has none.
  auto bytes = test::make_llama2c_checkpoint({});
  const int32_t untied = -32;
  std::memcpy(bytes.data() + 20, &untied, 4);
  const std::size_t classifier = 32 * 16 * sizeof(float);
  expect_error(read_checkpoint(bytes), ErrorCode::Truncated, "bad.bin", "vocab_size -32",
               "need " + std::to_string(bytes.size() + classifier),
               "the file has " + std::to_string(bytes.size()));
}

TEST(Llama2cCheckpoint, RejectsAVocabularySizeWithoutAPositiveCounterpart) {
  auto bytes = test::make_llama2c_checkpoint({});
  const int32_t smallest = INT32_MIN;
  std::memcpy(bytes.data() + 20, &smallest, 4);
  expect_error(read_checkpoint(bytes), ErrorCode::Malformed, "bad.bin", "vocab_size", "found -2147483648");
}

TEST(Llama2cCheckpoint, RejectsAZeroDimension) {
  Llama2cHeader h;
  auto bytes = test::make_llama2c_checkpoint(h);
  const int32_t zero = 0;
  std::memcpy(bytes.data() + 4, &zero, 4);  // hidden_dim
  expect_error(read_checkpoint(bytes), ErrorCode::Malformed, "bad.bin", "hidden_dim must be in 1..",
               "found 0");
}

TEST(Llama2cCheckpoint, RejectsAZeroVocabulary) {
  auto bytes = test::make_llama2c_checkpoint({});
  const int32_t zero = 0;
  std::memcpy(bytes.data() + 20, &zero, 4);
  expect_error(read_checkpoint(bytes), ErrorCode::Malformed, "bad.bin", "vocab_size must be in 1..",
               "found 0");
}

TEST(Llama2cCheckpoint, RejectsZeroHeads) {
  auto bytes = test::make_llama2c_checkpoint({});
  const int32_t zero = 0;
  std::memcpy(bytes.data() + 12, &zero, 4);  // n_heads
  expect_error(read_checkpoint(bytes), ErrorCode::Malformed, "bad.bin", "n_heads must be in 1..", "found 0");
}

TEST(Llama2cCheckpoint, RejectsZeroKvHeads) {
  auto bytes = test::make_llama2c_checkpoint({});
  const int32_t zero = 0;
  std::memcpy(bytes.data() + 16, &zero, 4);  // n_kv_heads
  expect_error(read_checkpoint(bytes), ErrorCode::Malformed, "bad.bin", "n_kv_heads must be in 1..",
               "found 0");
}

TEST(Llama2cCheckpoint, RejectsAnOddHeadSize) {
  // dim 12 over 4 heads is 3 values per head: RoPE rotates pairs, so a head needs an even size.
  Llama2cHeader h;
  h.dim = 12;
  expect_error(read_checkpoint(test::make_llama2c_checkpoint(h)), ErrorCode::Malformed, "bad.bin",
               "rope dimension must be even", "found 3");
}

TEST(Llama2cCheckpoint, RejectsAnAbsurdDimension) {
  auto bytes = test::make_llama2c_checkpoint({});
  const int32_t huge = 2'000'000'000;
  std::memcpy(bytes.data() + 0, &huge, 4);  // dim
  expect_error(read_checkpoint(bytes), ErrorCode::Malformed, "bad.bin", "dim must be in 1..65536",
               "found 2000000000");
}

TEST(Llama2cCheckpoint, RejectsANegativeDimension) {
  auto bytes = test::make_llama2c_checkpoint({});
  const int32_t negative = -5;
  std::memcpy(bytes.data() + 24, &negative, 4);  // seq_len
  expect_error(read_checkpoint(bytes), ErrorCode::Malformed, "bad.bin", "max_seq_len must be in 1..",
               "found -5");
}

TEST(Llama2cCheckpoint, RejectsHeadsNotDividingDim) {
  Llama2cHeader h;
  auto bytes = test::make_llama2c_checkpoint(h);
  const int32_t heads = 5;  // 16 is not a multiple of 5
  std::memcpy(bytes.data() + 12, &heads, 4);
  expect_error(read_checkpoint(bytes), ErrorCode::Malformed, "bad.bin", "n_heads must divide dim", "dim 16",
               "n_heads 5");
}

TEST(Llama2cCheckpoint, RejectsKvHeadsNotDividingHeads) {
  auto bytes = test::make_llama2c_checkpoint({});
  const int32_t kv_heads = 3;  // 4 heads are not a multiple of 3
  std::memcpy(bytes.data() + 16, &kv_heads, 4);
  expect_error(read_checkpoint(bytes), ErrorCode::Malformed, "bad.bin", "n_kv_heads must divide n_heads",
               "n_heads 4", "n_kv_heads 3");
}

TEST(Llama2cCheckpoint, RejectsAMissingFileByName) {
  expect_error(load_llama2c_checkpoint("/nonexistent/stories.bin"), ErrorCode::Io,
               "/nonexistent/stories.bin");
}

// --- tokenizer.bin ---------------------------------------------------------------------------------------

// max_token_length, then (score, length, bytes) per token.
std::vector<std::byte> tokenizer_file(int32_t max_length,
                                      const std::vector<std::pair<float, std::string>>& tokens) {
  test::ByteWriter w;
  w.i32(max_length);
  for (const auto& [score, piece] : tokens) {
    w.f32(score);
    w.i32(static_cast<int32_t>(piece.size()));
    w.text(piece);
  }
  return w.bytes();
}

Result<Tokenizer> read_tokenizer(std::vector<std::byte> bytes) {
  return read_llama2c_tokenizer(*bytes_from_buffer(std::move(bytes), "bad-tokenizer.bin"));
}

const std::vector<std::pair<float, std::string>> kSmallVocab = {{0, "<unk>"}, {0, "\n<s>\n"}, {0, "\n</s>\n"},
                                                                {0, " "},     {0, "a"},       {-1, " a"}};

TEST(Llama2cTokenizer, ReadsAWellFormedFile) {
  auto t = read_tokenizer(tokenizer_file(6, kSmallVocab));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->vocab_size(), 6);
  EXPECT_EQ(t->bos_id(), 1);
  EXPECT_EQ(t->piece(5), " a");
}

TEST(Llama2cTokenizer, RejectsAnEmptyFile) {
  expect_error(read_tokenizer({}), ErrorCode::Truncated, "bad-tokenizer.bin", "max_token_length",
               "needs 4 bytes, 0 left");
}

TEST(Llama2cTokenizer, OnlyHexPiecesAreByteTokens) {
  auto t = read_tokenizer(
      tokenizer_file(6, {{0, "<unk>"}, {0, "<s>"}, {0, "</s>"}, {0, "<0x41>"}, {0, "<0xZZ>"}}));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->decode(std::vector<int>{3}), "A");
  EXPECT_EQ(t->decode(std::vector<int>{4}), "<0xZZ>")
      << "a piece that only looks like a byte token is ordinary text";
}

TEST(Llama2cTokenizer, RejectsATruncatedEntry) {
  auto bytes = tokenizer_file(6, kSmallVocab);
  bytes.resize(bytes.size() - 1);  // the last piece loses a byte
  expect_error(read_tokenizer(bytes), ErrorCode::Truncated, "bad-tokenizer.bin", "token 5 bytes",
               "needs 2 bytes, 1 left");
}

TEST(Llama2cTokenizer, RejectsATruncatedScore) {
  auto bytes = tokenizer_file(6, kSmallVocab);
  bytes.resize(bytes.size() + 2);  // two stray bytes where the next score would start
  expect_error(read_tokenizer(bytes), ErrorCode::Truncated, "token 6 score", "needs 4 bytes, 2 left");
}

TEST(Llama2cTokenizer, RejectsAPieceLongerThanMaxTokenLength) {
  expect_error(read_tokenizer(tokenizer_file(1, kSmallVocab)), ErrorCode::Malformed,
               "token 0 length must be in 0..1", "found 5");
}

TEST(Llama2cTokenizer, RejectsANegativeLength) {
  test::ByteWriter w;
  w.i32(8);
  w.f32(0);
  w.i32(-3);
  expect_error(read_tokenizer(w.bytes()), ErrorCode::Malformed, "token 0 length", "found -3");
}

TEST(Llama2cTokenizer, RejectsABadMaxTokenLength) {
  expect_error(read_tokenizer(tokenizer_file(0, kSmallVocab)), ErrorCode::Malformed,
               "max_token_length must be in 1..", "found 0");
}

TEST(Llama2cTokenizer, RejectsAVocabularyWithoutSpecialTokens) {
  expect_error(read_tokenizer(tokenizer_file(6, {{0, "<unk>"}})), ErrorCode::Malformed, "at least 3 tokens",
               "found 1");
}

TEST(Llama2cTokenizer, RejectsANonFiniteScore) {
  expect_error(read_tokenizer(tokenizer_file(6, {{0, "<unk>"}, {NAN, "x"}})), ErrorCode::Malformed,
               "token 1 score must be finite");
}

TEST(Llama2cTokenizer, MustMatchTheModelVocabulary) {
  auto model = read_checkpoint(test::make_llama2c_checkpoint({}));  // vocab 32
  auto t = read_tokenizer(tokenizer_file(6, kSmallVocab));          // 6 tokens
  ASSERT_TRUE(model.ok() && t.ok());
  expect_error(check_tokenizer_matches(*t, *model, "tok.bin"), ErrorCode::VocabMismatch, "tok.bin",
               "6 tokens", "vocab_size is 32");
}

TEST(Llama2cFiles, LoadFromDiskByMemoryMapping) {
  const auto path = std::filesystem::temp_directory_path() / "glassbox-loader-test.bin";
  const auto bytes = test::make_llama2c_checkpoint({});
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  auto model = load_llama2c_checkpoint(path.string());
  ASSERT_TRUE(model.ok()) << model.error().message;
  // The weights are views into the file's bytes, not copies: the first embedding float is right after the
  // 28-byte header of the mapped file.
  float first;
  std::memcpy(&first, bytes.data() + 28, 4);
  EXPECT_EQ(model->weights.token_embedding.f32()[0], first);
  const auto& storage = *std::static_pointer_cast<const Bytes>(model->storage.front());
  EXPECT_EQ(model->weights.token_embedding.data, storage.data() + 28);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace glassbox

namespace glassbox {
namespace {

TEST(Llama2cRobustness, EveryTruncationOfACheckpointIsRejected) {
  const auto full = test::make_llama2c_checkpoint({});
  for (std::size_t length = 0; length < full.size(); length += 7) {
    std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(length));
    EXPECT_FALSE(read_llama2c_checkpoint(bytes_from_buffer(std::move(cut), "cut.bin")).ok()) << length;
  }
}

TEST(Llama2cRobustness, RandomHeaderValuesLoadOnlyWhenTheyStillDescribeTheFile) {
  std::mt19937 rng(99);
  const auto good = test::make_llama2c_checkpoint({});
  int accepted = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    auto bytes = good;
    const int field = static_cast<int>(rng() % 7);
    const int32_t value = trial % 2 ? static_cast<int32_t>(rng()) : static_cast<int32_t>(rng() % 64) - 8;
    std::memcpy(bytes.data() + 4 * field, &value, 4);
    auto model = read_llama2c_checkpoint(bytes_from_buffer(std::move(bytes), "random.bin"));
    if (!model.ok()) continue;
    ++accepted;
    // Whatever loaded must account for every byte: header + weights + the two RoPE tables.
    const ModelConfig& c = model->config;
    const int64_t rope_floats = int64_t{c.max_seq_len} * c.head_dim;
    EXPECT_EQ(28 + 4 * (model->parameter_count() + rope_floats), static_cast<int64_t>(good.size()));
  }
  EXPECT_LT(accepted, 100) << "nearly every random header value must be rejected";
}

}  // namespace
}  // namespace glassbox
