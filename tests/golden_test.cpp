// Conformance with the reference implementation: stories260K decoded greedily by llama2.c's run.c
// (../shared/golden/stories260K.greedy.jsonl). Same prompt ids, same generated ids, first logits within 1e-4,
// and the CLI prints the same text.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "glassbox/glassbox.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

struct GoldenCase {
  std::string prompt;
  int steps = 0;
  std::vector<int> prompt_ids;
  std::vector<int> generated_ids;
  std::vector<float> first_generated_logits;
  std::string decoded_text;
};

std::vector<GoldenCase> load_golden(const std::string& path) {
  std::vector<GoldenCase> cases;
  std::istringstream lines(test::read_file(path));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const json::Document json = test::parse_json(line, path);
    if (!json.IsObject()) continue;
    GoldenCase c;
    c.prompt = test::text(test::member(json, "prompt"));
    c.steps = static_cast<int>(test::number(test::member(json, "steps")));
    c.prompt_ids = test::ints(test::member(json, "prompt_ids"));
    c.generated_ids = test::ints(test::member(json, "generated_ids"));
    c.first_generated_logits = test::floats(test::member(json, "first_generated_logits"));
    c.decoded_text = test::text(test::member(json, "decoded_text"));
    cases.push_back(std::move(c));
  }
  return cases;
}

// The same model two ways: llama2.c's checkpoint with tok512.bin, and llama.cpp's GGUF conversion of it
// (bit-identical tensors, the tokenizer inside the file).
struct ModelFiles {
  std::string model;
  std::string tokenizer;  // empty: inside the model file
};

class Stories260KGolden : public ::testing::TestWithParam<ModelFiles> {
 protected:
  void SetUp() override {
    model_path_ = test::model_path(GetParam().model);
    tokenizer_path_ = GetParam().tokenizer.empty() ? "" : test::model_path(GetParam().tokenizer);
    GLASSBOX_REQUIRE_FILE(model_path_);
    if (!tokenizer_path_.empty()) GLASSBOX_REQUIRE_FILE(tokenizer_path_);
    GLASSBOX_REQUIRE_FILE(test::golden_path("stories260K.greedy.jsonl"));
    auto loaded = open_model_files(model_path_, tokenizer_path_);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    model_ = loaded->model;
    tokenizer_ = loaded->tokenizer;
    cases_ = load_golden(test::golden_path("stories260K.greedy.jsonl"));
    ASSERT_GE(cases_.size(), 1u);
  }

  std::string model_path_, tokenizer_path_;
  std::shared_ptr<const Model> model_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::vector<GoldenCase> cases_;
};

TEST_P(Stories260KGolden, EncodesEveryPromptToTheReferenceIds) {
  for (const GoldenCase& c : cases_)
    EXPECT_EQ(tokenizer_->encode_ids(c.prompt, true), c.prompt_ids) << c.prompt;
}

TEST_P(Stories260KGolden, GreedyDecodingGivesTheReferenceTokensAndLogits) {
  for (const GoldenCase& c : cases_) {
    SCOPED_TRACE("prompt: '" + c.prompt + "'");
    auto session = Session::create(model_);
    ASSERT_TRUE(session.ok()) << session.error().message;
    Sampler sampler({.temperature = 0.0f});
    Generator generator(*session, sampler, *tokenizer_);
    ASSERT_TRUE(generator.start(c.prompt_ids, {.max_steps = c.steps}).ok());

    std::vector<int> generated;
    while (!generator.finished()) {
      auto token = generator.next();
      ASSERT_TRUE(token.ok()) << token.error().message;
      if (generated.empty()) {
        const std::span<const float> logits = generator.last_logits();
        ASSERT_EQ(logits.size(), c.first_generated_logits.size());
        float worst = 0.0f;
        for (std::size_t i = 0; i < logits.size(); ++i)
          worst = std::max(worst, std::fabs(logits[i] - c.first_generated_logits[i]));
        EXPECT_LE(worst, 1e-4f) << "largest difference from the reference's first generated logits";
      }
      generated.push_back(token->id);
    }
    EXPECT_EQ(generated, c.generated_ids);

    std::vector<int> all = c.prompt_ids;
    all.insert(all.end(), generated.begin(), generated.end());
    EXPECT_EQ(tokenizer_->decode(all), c.decoded_text);
  }
}

#if !defined(__EMSCRIPTEN__)
TEST_P(Stories260KGolden, CliGeneratePrintsTheReferenceText) {
  for (const GoldenCase& c : cases_) {
    std::vector<std::string> command = {GLASSBOX_CLI_PATH, "generate", "--model", model_path_};
    if (!tokenizer_path_.empty()) command.insert(command.end(), {"--tokenizer", tokenizer_path_});
    command.insert(command.end(),
                   {"--prompt", c.prompt, "--temperature", "0", "--steps", std::to_string(c.steps)});
    const test::ProcessResult run = test::run_process(command);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, c.decoded_text + "\n") << "prompt: '" << c.prompt << "'";
    EXPECT_NE(run.err.find("tokens/s"), std::string::npos) << run.err;
  }
}
#endif

INSTANTIATE_TEST_SUITE_P(Files, Stories260KGolden,
                         ::testing::Values(ModelFiles{"stories260K.bin", "tok512.bin"},
                                           ModelFiles{"stories260K.gguf", ""}),
                         [](const auto& info) { return info.param.tokenizer.empty() ? "gguf" : "llama2c"; });

}  // namespace
}  // namespace glassbox
