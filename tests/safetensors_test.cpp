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

using test::expect_error;

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
  expect_error(parse({std::byte{1}, std::byte{2}}), ErrorCode::NotAModel,
               "shorter than its 8-byte header length");
}

TEST(Safetensors, RejectsAHeaderLongerThanTheFile) {
  auto bytes = safetensors("{}", 0);
  const uint64_t huge = 1000;
  std::memcpy(bytes.data(), &huge, 8);
  expect_error(parse(bytes), ErrorCode::Truncated, "header length 1000 does not fit the file");
}

TEST(Safetensors, RejectsBadJson) {
  expect_error(parse(safetensors(R"({"a": )", 0)), ErrorCode::Malformed, "invalid JSON at byte");
}

TEST(Safetensors, RejectsOffsetsOutsideTheData) {
  expect_error(parse(safetensors(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 8)),
               ErrorCode::Truncated, "tensor a: data_offsets [0, 16] lie outside the 8 bytes of tensor data");
}

TEST(Safetensors, RejectsASizeThatDisagreesWithTheShape) {
  expect_error(parse(safetensors(R"({"a": {"dtype": "F16", "shape": [4], "data_offsets": [0, 16]}})", 16)),
               ErrorCode::Malformed, "tensor a: data_offsets hold 16 bytes but F16 shape needs 8");
}

TEST(Safetensors, RejectsAnUnknownDtype) {
  expect_error(parse(safetensors(R"({"a": {"dtype": "Q9", "shape": [1], "data_offsets": [0, 1]}})", 1)),
               ErrorCode::UnsupportedType, "tensor a: unknown dtype \"Q9\"");
}

TEST(Safetensors, RejectsOverflowingShapes) {
  expect_error(
      parse(safetensors(
          R"({"a": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 4]}})", 4)),
      ErrorCode::Malformed, "tensor a: shape overflows");
}

TEST(Safetensors, RejectsNegativeOrFractionalNumbers) {
  expect_error(parse(safetensors(R"({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4)),
               ErrorCode::Malformed, "tensor a shape must be a non-negative whole number");
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
  expect_error(load_model(dir_.string()), ErrorCode::Io, "config.json");
}

TEST_F(HuggingFaceFolder, RejectsAnUnsupportedArchitecture) {
  write("config.json", R"({"architectures": ["MambaForCausalLM"]})");
  expect_error(load_model(dir_.string()), ErrorCode::UnsupportedArchitecture, "MambaForCausalLM");
}

TEST_F(HuggingFaceFolder, RejectsAMissingConfigField) {
  write("config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8})");
  expect_error(load_model(dir_.string()), ErrorCode::Malformed, "config.json: intermediate_size is missing");
}

// rope_scaling kinds glassbox computes (linear, llama3: the fixtures check their logits) need their fields;
// the kinds it does not are refused by name.
TEST_F(HuggingFaceFolder, RopeScalingIsReadOrRefusedByName) {
  const auto with_scaling = [&](const std::string& scaling) {
    write("config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8, "intermediate_size": 16,
      "num_hidden_layers": 1, "num_attention_heads": 2, "max_position_embeddings": 16, "vocab_size": 4,
      "rope_scaling": )" + scaling +
                             "}");
    return load_model(dir_.string());
  };
  expect_error(
      with_scaling(R"({"rope_type": "yarn", "factor": 4})"), ErrorCode::UnsupportedArchitecture,
      "config.json: rope_scaling type \"yarn\" is not supported (glassbox supports linear and llama3)");
  expect_error(with_scaling(R"({"type": "dynamic", "factor": 4})"), ErrorCode::UnsupportedArchitecture,
               "rope_scaling type \"dynamic\"");
  expect_error(with_scaling(R"({"rope_type": "llama3", "factor": 8})"), ErrorCode::Malformed,
               "config.json: rope_scaling.low_freq_factor is missing");
  expect_error(with_scaling(R"({"rope_type": "linear", "factor": -1})"), ErrorCode::Malformed,
               "config.json: rope_scaling.factor must be positive, found -1");
  expect_error(
      with_scaling(R"({"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1,
                               "original_max_position_embeddings": 8192})"),
      ErrorCode::Malformed, "rope_scaling.high_freq_factor (1) must exceed rope_scaling.low_freq_factor (4)");
  expect_error(with_scaling("3"), ErrorCode::Malformed, "config.json: rope_scaling must be an object");
  // Known kinds get as far as the weights, which this folder lacks.
  for (const char* fine : {"null", R"({"rope_type": "default"})", R"({"type": "linear", "factor": 2})"})
    expect_error(with_scaling(fine), ErrorCode::Io, "model.safetensors");
}

TEST_F(HuggingFaceFolder, RejectsMissingWeights) {
  write("config.json", R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 8, "n_layer": 1, "n_head": 2,
    "n_positions": 16, "vocab_size": 4})");
  expect_error(load_model(dir_.string()), ErrorCode::Io, "model.safetensors");
}

TEST_F(HuggingFaceFolder, RejectsAShardIndexPointingOutside) {
  write("config.json", R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 8, "n_layer": 1, "n_head": 2,
    "n_positions": 16, "vocab_size": 4})");
  write("model.safetensors.index.json", R"({"weight_map": {"wte.weight": "../../etc/passwd"}})");
  expect_error(load_model(dir_.string()), ErrorCode::Malformed,
               "weight_map[\"wte.weight\"] must name a file in the same folder");
}

// config.json numbers are range-checked as doubles, before any conversion to int, and errors name the key.
TEST_F(HuggingFaceFolder, RejectsSizesOutsideTheIntRangeNamingTheKey) {
  const std::string rest = R"("intermediate_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
    "max_position_embeddings": 16, "vocab_size": 4})";
  write("config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 1e10, )" + rest);
  expect_error(load_model(dir_.string()), ErrorCode::Malformed,
               "config.json: hidden_size must be a whole number in 1..2147483647, found 1e+10");
  write("config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": -8, )" + rest);
  expect_error(load_model(dir_.string()), ErrorCode::Malformed,
               "config.json: hidden_size must be a whole number in 1..2147483647, found -8");
  write("config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8.5, )" + rest);
  expect_error(load_model(dir_.string()), ErrorCode::Malformed,
               "config.json: hidden_size must be a whole number in 1..2147483647, found 8.5");
  write("config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": "8", )" + rest);
  expect_error(load_model(dir_.string()), ErrorCode::Malformed, "config.json: hidden_size must be a number");
  // GPT-2's n_inner defaults to 4 * n_embd, which must fit too.
  write("config.json", R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 1000000000, "n_layer": 1,
    "n_head": 2, "n_positions": 16, "vocab_size": 4})");
  expect_error(load_model(dir_.string()), ErrorCode::Malformed,
               "config.json: n_inner must be a whole number in 1..2147483647, found 4e+09 (the default)");
  write("config.json",
        R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8, "rope_theta": 1e300, )" + rest);
  expect_error(load_model(dir_.string()), ErrorCode::Malformed,
               "config.json: rope_theta must be a finite float32 number, found 1e+300");
}

TEST_F(HuggingFaceFolder, RejectsHeadCountsThatDoNotDivideNamingTheKeys) {
  write("config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8, "intermediate_size": 16,
    "num_hidden_layers": 1, "num_attention_heads": 3, "max_position_embeddings": 16, "vocab_size": 4})");
  expect_error(load_model(dir_.string()), ErrorCode::Malformed,
               "config.json: num_attention_heads (3) must divide hidden_size (8)");
  write("config.json", R"({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 8, "intermediate_size": 16,
    "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 3, "max_position_embeddings": 16,
    "vocab_size": 4})");
  expect_error(load_model(dir_.string()), ErrorCode::Malformed,
               "config.json: num_key_value_heads (3) must divide num_attention_heads (4)");
  write("config.json", R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 8, "n_layer": 1, "n_head": 3,
    "n_positions": 16, "vocab_size": 4})");
  expect_error(load_model(dir_.string()), ErrorCode::Malformed,
               "config.json: n_head (3) must divide n_embd (8)");
}

// The sharded fixture (tests/reference) copied, with its index edited: every tensor must be in the shard the
// index names.
class ShardedFolder : public HuggingFaceFolder {
 protected:
  void SetUp() override {
    HuggingFaceFolder::SetUp();
    source_ = test::fixture_path("hf-llama-sharded");
    GLASSBOX_REQUIRE_FILE(source_ + "/model.safetensors.index.json");
    for (const auto& entry : std::filesystem::directory_iterator(source_))
      std::filesystem::copy_file(entry.path(), dir_ / entry.path().filename());
    index_ = test::read_file(source_ + "/model.safetensors.index.json");
  }
  static std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
    return text;
  }
  std::string source_, index_;
};

TEST_F(ShardedFolder, LoadsWhenTheIndexIsRight) {
  auto model = load_model(dir_.string());
  ASSERT_TRUE(model.ok()) << model.error().message;
}

TEST_F(ShardedFolder, RejectsTensorsMovedToTheOtherShardInTheIndex) {
  const std::string one = "model-00001-of-00002.safetensors", two = "model-00002-of-00002.safetensors";
  write("model.safetensors.index.json",
        replace_all(replace_all(replace_all(index_, one, "@"), two, one), "@", two));
  auto model = load_model(dir_.string());
  ASSERT_FALSE(model.ok()) << "a swapped index was accepted";
  EXPECT_EQ(model.error().code, ErrorCode::Malformed);
  const std::string& m = model.error().message;
  EXPECT_NE(m.find("model.safetensors.index.json: tensor "), std::string::npos) << m;
  // "tensor T is in <shard A> but weight_map places it in <shard B>", A != B
  const bool one_then_two =
      m.find("is in " + one + " but weight_map places it in " + two) != std::string::npos;
  const bool two_then_one =
      m.find("is in " + two + " but weight_map places it in " + one) != std::string::npos;
  EXPECT_TRUE(one_then_two || two_then_one) << m;
}

TEST_F(ShardedFolder, RejectsATensorTheIndexLeavesOut) {
  const std::string entry = "\"model.norm.weight\": ";
  const std::size_t at = index_.find(entry);
  ASSERT_NE(at, std::string::npos);
  std::string edited = index_;
  edited.replace(at, entry.size(), "\"model.renamed.weight\": ");
  write("model.safetensors.index.json", edited);
  auto model = load_model(dir_.string());
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().code, ErrorCode::Malformed);
  const std::string& m = model.error().message;
  EXPECT_TRUE(m.find("tensor model.norm.weight is in model-0000") != std::string::npos &&
              m.find("but weight_map does not list it") != std::string::npos)
      << m;
}

}  // namespace
}  // namespace glassbox
