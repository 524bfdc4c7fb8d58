// `glassbox convert`: stories260K.bin + tok512.bin written as GGUF. Float32 must reproduce the checkpoint
// bit for bit (and so llama2.c's golden tokens); Q8_0 reports how many golden tokens it still agrees on and
// its largest logit difference from float32. And the CLI quantizing a float32 GGUF (the reference's
// llama-tiny) to Q8_0 and Q4_0 must write exactly the blocks the independent NumPy reference's quantizer
// writes for the same tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "formats/gguf.hpp"
#include "glassbox/glassbox.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

struct Case {
  std::string prompt;
  int steps;
  std::vector<int> generated;
};

std::vector<Case> golden_cases() {
  std::vector<Case> cases;
  std::istringstream lines(test::read_file(test::golden_path("stories260K.greedy.jsonl")));
  std::string line;
  while (std::getline(lines, line)) {
    const json::Document json = test::parse_json(line, "golden");
    if (!json.IsObject()) continue;
    Case c{test::text(test::member(json, "prompt")),
           static_cast<int>(test::number(test::member(json, "steps"))),
           test::ints(test::member(json, "generated_ids"))};
    cases.push_back(std::move(c));
  }
  return cases;
}

// Greedy tokens for a prompt, and the logits that picked the first of them.
std::vector<int> greedy(const LoadedModel& m, const Case& c, std::vector<float>* first_logits) {
  auto session = Session::create(m.model);
  Sampler sampler({.temperature = 0.0f});
  Generator generator(*session, sampler, *m.tokenizer);
  EXPECT_TRUE(generator.start_text(c.prompt, {.max_steps = c.steps}).ok());
  std::vector<int> out;
  while (!generator.finished()) {
    auto token = generator.next();
    EXPECT_TRUE(token.ok());
    if (!token) break;
    if (out.empty() && first_logits)
      first_logits->assign(generator.last_logits().begin(), generator.last_logits().end());
    out.push_back(token->id);
  }
  return out;
}

class Convert : public ::testing::Test {
 protected:
  void SetUp() override {
    GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
    GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
    GLASSBOX_REQUIRE_FILE(test::golden_path("stories260K.greedy.jsonl"));
    auto source = open_model_files(test::model_path("stories260K.bin"), test::model_path("tok512.bin"));
    ASSERT_TRUE(source.ok()) << source.error().message;
    source_ = *source;
  }

  LoadedModel converted(ExportType type, const char* suffix) {
    const auto path =
        std::filesystem::temp_directory_path() / (std::string("glassbox-convert-test.") + suffix + ".gguf");
    auto summary = export_gguf(*source_.model, *source_.tokenizer, type, "stories260K", path.string());
    EXPECT_TRUE(summary.ok()) << (summary.ok() ? "" : summary.error().message);
    EXPECT_EQ(summary->architecture, "llama");
    auto loaded = open_model_files(path.string(), "");  // the tokenizer now travels inside the file
    std::filesystem::remove(path);
    EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().message);
    return *loaded;
  }

  LoadedModel source_;
};

TEST_F(Convert, Float32GgufReproducesTheGoldenTokensAndEveryLogit) {
  const LoadedModel gguf = converted(ExportType::F32, "f32");
  EXPECT_EQ(gguf.tokenizer->encode_prompt("Once upon a time"),
            source_.tokenizer->encode_prompt("Once upon a time"));
  for (const Case& c : golden_cases()) {
    std::vector<float> a, b;
    EXPECT_EQ(greedy(gguf, c, &a), c.generated) << c.prompt;
    greedy(source_, c, &b);
    EXPECT_EQ(a, b) << "first logits of '" << c.prompt << "'";
  }
}

TEST_F(Convert, Q8_0AgreesWithTheGoldenTokensAndReportsTheLogitDifference) {
  const LoadedModel q8 = converted(ExportType::Q8_0, "q8_0");
  int agreeing = 0, total = 0, shortest_prefix = 1 << 30;
  float largest_difference = 0.0f;
  for (const Case& c : golden_cases()) {
    std::vector<float> quantized_logits, float_logits;
    const std::vector<int> tokens = greedy(q8, c, &quantized_logits);
    greedy(source_, c, &float_logits);
    for (std::size_t i = 0; i < float_logits.size(); ++i)
      largest_difference = std::max(largest_difference, std::fabs(quantized_logits[i] - float_logits[i]));
    int prefix = 0;
    while (prefix < static_cast<int>(std::min(tokens.size(), c.generated.size())) &&
           tokens[prefix] == c.generated[prefix])
      ++prefix;
    shortest_prefix = std::min(shortest_prefix, prefix);
    std::printf("  '%s': the first %d of %zu tokens agree\n", c.prompt.c_str(), prefix, c.generated.size());
    for (std::size_t i = 0; i < std::min(tokens.size(), c.generated.size()); ++i)
      agreeing += tokens[i] == c.generated[i];
    total += static_cast<int>(c.generated.size());
  }
  std::printf(
      "Q8_0 conversion of stories260K: %d/%d golden tokens agree position by position (every case agrees for "
      "its first %d), largest first-step logit difference from float32 %.4f\n",
      agreeing, total, shortest_prefix, largest_difference);
  // A 260K-parameter model has close calls: one flipped token sends a story elsewhere (llama.cpp's own Q8_0
  // of this model also leaves the float32 path after 114 tokens of the empty prompt, as glassbox does). Most
  // tokens must agree. The logits move by the weights' rounding and, since Q8_0 products round their inputs to
  // 8 bits as well (kernels/quantized_int_dot.hpp, as llama.cpp does), by the activations' (0.33 measured).
  EXPECT_GT(agreeing, total / 2);
  EXPECT_GE(shortest_prefix, 1);
  EXPECT_LT(largest_difference, 0.5f);
  EXPECT_GT(largest_difference, 0.0f) << "the weights really were re-encoded";
}

#if !defined(__EMSCRIPTEN__)
// tests/reference writes llama-tiny.gguf (float32) and, from the same weights, llama-tiny.q8_0.gguf and
// llama-tiny.q4_0.gguf with its own quantizer, each with the logits of the dequantized weights.
class ConvertReferenceFixture : public ::testing::TestWithParam<std::string> {
 protected:
  static Result<GgufFile> read(const std::string& path) {
    auto bytes = map_file(path);
    if (!bytes) return bytes.error();
    return read_gguf(std::move(*bytes));
  }

  static std::vector<float> first_logits_and_greedy(const LoadedModel& m, const std::vector<int>& prompt,
                                                    int n, std::vector<int>* generated) {
    auto session = Session::create(m.model);
    Sampler sampler({.temperature = 0.0f});
    Generator generator(*session, sampler, *m.tokenizer);
    EXPECT_TRUE(generator.start(prompt, {.max_new_tokens = n}).ok());
    std::vector<float> first;
    for (int i = 0; i < n && !generator.finished(); ++i) {
      auto token = generator.next();
      EXPECT_TRUE(token.ok());
      if (!token) break;
      if (i == 0) first.assign(generator.last_logits().begin(), generator.last_logits().end());
      generated->push_back(token->id);
    }
    return first;
  }
};

TEST_P(ConvertReferenceFixture, CliWritesTheReferenceBlocksAndItsLogits) {
  const std::string type = GetParam();
  const std::string source = test::fixture_path("llama-tiny.gguf");
  const std::string reference = test::fixture_path("llama-tiny." + type + ".gguf");
  const std::string expected_json = test::fixture_path("llama-tiny." + type + ".json");
  GLASSBOX_REQUIRE_FILE(source);
  GLASSBOX_REQUIRE_FILE(reference);
  GLASSBOX_REQUIRE_FILE(expected_json);
  const auto out = std::filesystem::temp_directory_path() /
                   ("glassbox-convert-llama-tiny-" +
                    std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "." + type + ".gguf");
  const test::ProcessResult run = test::run_process(
      {GLASSBOX_CLI_PATH, "convert", "--model", source, "--output", out.string(), "--type", type});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("architecture llama, " + type + " weights"), std::string::npos) << run.err;

  // (a) every tensor: the same name, shape, type and bytes as the reference's quantization.
  auto ours = read(out.string());
  auto theirs = read(reference);
  ASSERT_TRUE(ours.ok()) << ours.error().message;
  ASSERT_TRUE(theirs.ok()) << theirs.error().message;
  ASSERT_EQ(ours->tensors.size(), theirs->tensors.size());
  int quantized = 0;
  for (const GgufTensorInfo& want : theirs->tensors) {
    const GgufTensorInfo* got = ours->tensor(want.name);
    ASSERT_NE(got, nullptr) << want.name;
    EXPECT_EQ(got->dims, want.dims) << want.name;
    EXPECT_EQ(got->ggml_type, want.ggml_type) << want.name;
    ASSERT_EQ(got->bytes, want.bytes) << want.name;
    EXPECT_EQ(std::memcmp(got->data, want.data, want.bytes), 0) << want.name << ": blocks differ";
    quantized += want.ggml_type != 0;
  }
  EXPECT_GE(quantized, 2 * 7 + 2) << "every matrix (token_embd and output too) is quantized";

  // The converted file reproduces the reference's logits for its dequantized weights.
  auto converted = open_model_files(out.string(), "");
  ASSERT_TRUE(converted.ok()) << converted.error().message;
  const json::Document json = test::parse_json(test::read_file(expected_json), expected_json);
  ASSERT_TRUE(json.IsObject());
  const std::vector<int> tokens = test::ints(test::member(json, "tokens"));
  auto session = Session::create(converted->model);
  double worst = 0.0;
  const auto rows = test::items(test::member(json, "logits"));
  ASSERT_GE(rows.Size(), tokens.size());
  for (std::size_t p = 0; p < tokens.size(); ++p) {
    auto logits = session->step(tokens[p]);
    ASSERT_TRUE(logits.ok());
    const auto row = test::items(rows[static_cast<rapidjson::SizeType>(p)]);
    ASSERT_EQ(row.Size(), logits->size());
    double scale = 1.0;
    for (const json::Value& v : row)
      scale = std::max(scale, std::fabs(test::number(v)));
    for (std::size_t i = 0; i < logits->size(); ++i)
      worst = std::max(
          worst, std::fabs((*logits)[i] - test::number(row[static_cast<rapidjson::SizeType>(i)])) / scale);
  }
  EXPECT_LE(worst, 1e-5);

  // (b) against the float32 source: greedy tokens and the first step's largest logit difference.
  auto f32 = open_model_files(source, "");
  ASSERT_TRUE(f32.ok()) << f32.error().message;
  const std::vector<int> prompt(tokens.begin(), tokens.begin() + 4);
  std::vector<int> greedy_f32, greedy_quantized;
  const std::vector<float> a = first_logits_and_greedy(*f32, prompt, 16, &greedy_f32);
  const std::vector<float> b = first_logits_and_greedy(*converted, prompt, 16, &greedy_quantized);
  ASSERT_EQ(a.size(), b.size());
  float difference = 0.0f;
  for (std::size_t i = 0; i < a.size(); ++i)
    difference = std::max(difference, std::fabs(a[i] - b[i]));
  int agree = 0;
  while (agree < 16 && greedy_f32[agree] == greedy_quantized[agree])
    ++agree;
  std::printf(
      "convert llama-tiny.gguf --type %s: %zu tensors byte-identical to the reference quantizer (%d "
      "quantized); "
      "logits within %.2e of the reference; greedy agrees with float32 for %d/16 tokens; largest first-step "
      "logit difference from float32 %.4f\n",
      type.c_str(), theirs->tensors.size(), quantized, worst, agree, difference);
  EXPECT_GT(difference, 0.0f) << "the weights really were re-encoded";
  EXPECT_LT(difference, type == "q8_0" ? 0.6f : 4.0f);
  std::filesystem::remove(out);
}

INSTANTIATE_TEST_SUITE_P(Types, ConvertReferenceFixture, ::testing::Values("q8_0", "q4_0"));

// The reference's bloom-tiny.gguf, laid out as llama.cpp's converter writes BLOOM, comes back from `glassbox
// convert` tensor for tensor: the same names, shapes, types and bytes (fused attn_qkv, token_embd_norm, no
// output.weight), under the architecture bloom.
TEST(ConvertBloom, CliWritesTheReferencesBloomFileBackTensorForTensor) {
  const std::string source = test::fixture_path("bloom-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(source);
  const auto out = std::filesystem::temp_directory_path() /
                   ("glassbox-convert-bloom-tiny-" +
                    std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".gguf");
  const test::ProcessResult run = test::run_process(
      {GLASSBOX_CLI_PATH, "convert", "--model", source, "--output", out.string(), "--type", "f32"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("architecture bloom"), std::string::npos) << run.err;
  const auto read = [](const std::string& path) -> Result<GgufFile> {
    auto bytes = map_file(path);
    if (!bytes) return bytes.error();
    return read_gguf(std::move(*bytes));
  };
  auto ours = read(out.string()), theirs = read(source);
  ASSERT_TRUE(ours.ok()) << ours.error().message;
  ASSERT_TRUE(theirs.ok()) << theirs.error().message;
  EXPECT_EQ(*ours->string("general.architecture"), "bloom");
  ASSERT_EQ(ours->tensors.size(), theirs->tensors.size());
  for (const GgufTensorInfo& want : theirs->tensors) {
    const GgufTensorInfo* got = ours->tensor(want.name);
    ASSERT_NE(got, nullptr) << want.name;
    EXPECT_EQ(got->dims, want.dims) << want.name;
    EXPECT_EQ(got->ggml_type, want.ggml_type) << want.name;
    ASSERT_EQ(got->bytes, want.bytes) << want.name;
    EXPECT_EQ(std::memcmp(got->data, want.data, want.bytes), 0) << want.name;
  }
  std::filesystem::remove(out);
}
#endif

}  // namespace
}  // namespace glassbox
