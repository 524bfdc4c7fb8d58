// safetensors and Hugging Face folders: malformed headers, offsets and configs are rejected by name.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "formats/safetensors.hpp"
#include "glassbox/formats.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

// A safetensors file: the header JSON (as given) and `data_bytes` bytes of tensor data.
std::vector<std::byte> safetensors(const std::string& header, std::size_t data_bytes) {
  test::ByteWriter w;
  const uint64_t length = header.size();
  w.raw(&length, 8);
  w.text(header);
  w.bytes().resize(w.bytes().size() + data_bytes);
  return w.bytes();
}

Result<SafetensorsFile> parse(std::vector<std::byte> bytes) {
  return read_safetensors(bytes_from_buffer(std::move(bytes), "model.safetensors"));
}

template <class T>
void expect_error(const Result<T>& r, const std::string& part) {
  ASSERT_FALSE(r.ok()) << "accepted";
  EXPECT_NE(r.error().message.find(part), std::string::npos) << r.error().message;
}

TEST(Safetensors, ReadsTensorsAndSkipsMetadata) {
  auto file = parse(safetensors(
      R"({"__metadata__": {"format": "pt"}, "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},)"
      R"( "b": {"dtype": "BF16", "shape": [4], "data_offsets": [24, 32]}})",
      32));
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_EQ(file->tensors.size(), 2u);
  EXPECT_EQ(file->tensors.at("a").shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(file->tensors.at("b").type, DType::BF16);
}

TEST(Safetensors, RejectsAShortFile) {
  expect_error(parse({std::byte{1}, std::byte{2}}), "shorter than its 8-byte header length");
}

TEST(Safetensors, RejectsAHeaderLongerThanTheFile) {
  auto bytes = safetensors("{}", 0);
  const uint64_t huge = 1000;
  std::memcpy(bytes.data(), &huge, 8);
  expect_error(parse(bytes), "header length 1000 does not fit the file");
}

TEST(Safetensors, RejectsBadJson) {
  expect_error(parse(safetensors(R"({"a": )", 0)), "invalid JSON at byte");
}

TEST(Safetensors, RejectsOffsetsOutsideTheData) {
  expect_error(parse(safetensors(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 8)),
               "tensor a: data_offsets [0, 16] lie outside the 8 bytes of tensor data");
}

TEST(Safetensors, RejectsASizeThatDisagreesWithTheShape) {
  expect_error(parse(safetensors(R"({"a": {"dtype": "F16", "shape": [4], "data_offsets": [0, 16]}})", 16)),
               "tensor a: data_offsets hold 16 bytes but F16 shape needs 8");
}

TEST(Safetensors, RejectsAnUnknownDtype) {
  expect_error(parse(safetensors(R"({"a": {"dtype": "Q9", "shape": [1], "data_offsets": [0, 1]}})", 1)),
               "tensor a: unknown dtype \"Q9\"");
}

TEST(Safetensors, RejectsOverflowingShapes) {
  expect_error(
      parse(safetensors(
          R"({"a": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 4]}})", 4)),
      "tensor a: shape overflows");
}

TEST(Safetensors, RejectsNegativeOrFractionalNumbers) {
  expect_error(parse(safetensors(R"({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4)),
               "tensor a shape must be a non-negative whole number");
}

class HuggingFaceFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("glassbox-hf-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  std::filesystem::path dir_;
};

TEST_F(HuggingFaceFolder, RejectsAMissingConfig) {
  expect_error(load_model(dir_.string()), "config.json: cannot open");
}

TEST_F(HuggingFaceFolder, RejectsAnUnsupportedArchitecture) {
  write("config.json", R"({"architectures": ["MambaForCausalLM"]})");
  expect_error(load_model(dir_.string()), "architecture MambaForCausalLM is not supported");
}

TEST_F(HuggingFaceFolder, RejectsAMissingConfigField) {
  write("config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8})");
  expect_error(load_model(dir_.string()), "config.json: intermediate_size is missing");
}

TEST_F(HuggingFaceFolder, RejectsRopeScaling) {
  write("config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8, "intermediate_size": 16,
    "num_hidden_layers": 1, "num_attention_heads": 2, "max_position_embeddings": 16, "vocab_size": 4,
    "rope_scaling": {"type": "llama3"}})");
  expect_error(load_model(dir_.string()), "rope_scaling is not supported");
}

TEST_F(HuggingFaceFolder, RejectsMissingWeights) {
  write("config.json", R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 8, "n_layer": 1, "n_head": 2,
    "n_positions": 16, "vocab_size": 4})");
  expect_error(load_model(dir_.string()), "model.safetensors: cannot open");
}

TEST_F(HuggingFaceFolder, RejectsAShardIndexPointingOutside) {
  write("config.json", R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 8, "n_layer": 1, "n_head": 2,
    "n_positions": 16, "vocab_size": 4})");
  write("model.safetensors.index.json", R"({"weight_map": {"wte.weight": "../../etc/passwd"}})");
  expect_error(load_model(dir_.string()), "weight_map[\"wte.weight\"] must name a file in the same folder");
}

}  // namespace
}  // namespace glassbox
