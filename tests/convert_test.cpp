// `glassbox convert`: stories260K.bin + tok512.bin written as GGUF. Float32 must reproduce the checkpoint
// bit for bit (and so llama2.c's golden tokens); Q8_0 reports how many golden tokens it still agrees on and
// its largest logit difference from float32.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "formats/json.hpp"
#include "glassbox/glassbox.hpp"
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
    auto json = parse_json(line, "golden");
    if (!json) continue;
    Case c{json->find("prompt")->string(), static_cast<int>(json->find("steps")->number()), {}};
    for (const Json& v : json->find("generated_ids")->array())
      c.generated.push_back(static_cast<int>(v.number()));
    cases.push_back(std::move(c));
  }
  return cases;
}

// Greedy tokens for a prompt, and the logits that picked the first of them.
std::vector<int> greedy(const LoadedModel& m, const Case& c, std::vector<float>* first_logits) {
  auto session = Session::create(m.model);
  Sampler sampler({.temperature = 0.0f});
  Generator generator(*session, sampler);
  const std::vector<int> prompt = m.tokenizer->encode_prompt(c.prompt);
  EXPECT_TRUE(generator.start(prompt).ok());
  std::vector<int> out;
  while (session->position() < c.steps) {
    auto token = generator.next();
    EXPECT_TRUE(token.ok());
    if (!token) break;
    if (out.empty() && first_logits)
      first_logits->assign(generator.last_logits().begin(), generator.last_logits().end());
    out.push_back(*token);
    if (*token == m.tokenizer->bos_id()) break;
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
  // of this model also leaves the float32 path after 114 tokens of the empty prompt). Most tokens must agree.
  EXPECT_GT(agreeing, total / 2);
  EXPECT_GE(shortest_prefix, 1);
  EXPECT_LT(largest_difference, 0.25f);
  EXPECT_GT(largest_difference, 0.0f) << "the weights really were re-encoded";
}

}  // namespace
}  // namespace glassbox
