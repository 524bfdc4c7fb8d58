// The built-in synthetic tasks (glassbox/train.hpp): each task's lines are what it says (a copy's second half
// is its first, of fresh words whose length in tokens varies; counting counts, brackets balance), lines fit a
// bound in tokens, the same seed gives the same text, the lines fit a small
// context on tok512, and bad settings are refused by name. Also held_out_loss (the held-out loss the page
// draws) and the trainer's per-layer gradient norms and GGUF bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>

#include "glassbox/formats.hpp"
#include "glassbox/score.hpp"
#include "glassbox/train.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;)
    words.push_back(w);
  return words;
}

Result<std::string> task_text(const Tokenizer& tokenizer, const char* name, int lines, int length,
                              uint64_t seed = 1) {
  GLASSBOX_ASSIGN(SyntheticTask task, synthetic_task_named(name));
  return synthetic_task_text(tokenizer, {.task = task, .lines = lines, .length = length, .seed = seed});
}

TEST(TrainSyntheticTasks, CopyLinesAreFreshWordsThenTheSameAgainOfVaryingLengthInTokens) {
  REQUIRE_TOK512();
  auto text = task_text(*tokenizer, "copy", 200, 12);
  ASSERT_TRUE(text.ok()) << text.error().message;
  const std::vector<std::string> lines = lines_of(*text);
  ASSERT_EQ(lines.size(), 200u);
  std::set<std::size_t> half_tokens;
  std::set<std::string> words, ids_seen;
  std::set<int> ids;
  for (const std::string& line : lines) {
    const std::vector<std::string> w = words_of(line);
    ASSERT_EQ(w.size(), 24u) << line;
    EXPECT_EQ(std::vector<std::string>(w.begin(), w.begin() + 12),
              std::vector<std::string>(w.begin() + 12, w.end()))
        << line;
    words.insert(w.begin(), w.begin() + 12);
    const std::vector<int> tokens = tokenizer->encode_prompt(line);
    ids.insert(tokens.begin(), tokens.end());
    half_tokens.insert(tokenizer->encode_prompt(line.substr(0, line.size() / 2)).size());
  }
  // Fresh words, not a list: nearly every word is new.
  EXPECT_GT(words.size(), 2000u);
  // The distance to the copy varies (no fixed offset finds it) ...
  EXPECT_GT(half_tokens.size(), 10u);
  // ... and the lines use most of the vocabulary's 253 ordinary tokens, as the induction probe does.
  EXPECT_GT(ids.size(), 200u);
}

TEST(TrainSyntheticTasks, LinesOverMaxTokensAreDrawnAgainAndAnImpossibleBoundIsRefused) {
  REQUIRE_TOK512();
  SyntheticTaskSettings settings{.task = SyntheticTask::Copy, .lines = 100, .length = 12, .seed = 3};
  auto unbounded = synthetic_task_text(*tokenizer, settings);
  ASSERT_TRUE(unbounded.ok()) << unbounded.error().message;
  std::size_t longest = 0;
  for (const std::string& line : lines_of(*unbounded))
    longest = std::max(longest, tokenizer->encode_prompt(line).size());
  settings.max_tokens = 70;
  ASSERT_LT(settings.max_tokens, static_cast<int>(longest)) << "the bound must cut some lines";
  auto bounded = synthetic_task_text(*tokenizer, settings);
  ASSERT_TRUE(bounded.ok()) << bounded.error().message;
  for (const std::string& line : lines_of(*bounded))
    EXPECT_LE(tokenizer->encode_prompt(line).size(), 70u) << line;
  settings.max_tokens = 10;
  auto impossible = synthetic_task_text(*tokenizer, settings);
  ASSERT_FALSE(impossible.ok());
  EXPECT_NE(impossible.error().message.find("do not fit 10 tokens"), std::string::npos)
      << impossible.error().message;
}

TEST(TrainSyntheticTasks, CountingCountsAndBracketsBalance) {
  REQUIRE_TOK512();
  auto counting = task_text(*tokenizer, "counting", 20, 6);
  ASSERT_TRUE(counting.ok()) << counting.error().message;
  for (const std::string& line : lines_of(*counting)) {
    const std::vector<std::string> w = words_of(line);
    ASSERT_EQ(w.size(), 6u) << line;
    for (std::size_t i = 1; i < w.size(); ++i)
      EXPECT_EQ(std::stoi(w[i]), std::stoi(w[i - 1]) + 1) << line;
  }
  auto brackets = task_text(*tokenizer, "brackets", 20, 5);
  ASSERT_TRUE(brackets.ok()) << brackets.error().message;
  for (const std::string& line : lines_of(*brackets)) {
    const std::vector<std::string> w = words_of(line);
    ASSERT_EQ(w.size(), 10u) << line;
    std::string open;
    for (const std::string& b : w) {
      ASSERT_EQ(b.size(), 1u) << line;
      const std::string opens = "([{", closes = ")]}";
      if (opens.find(b[0]) != std::string::npos) {
        open += b[0];
      } else {
        ASSERT_FALSE(open.empty()) << line;
        EXPECT_EQ(opens.find(open.back()), closes.find(b[0])) << line;
        open.pop_back();
      }
    }
    EXPECT_TRUE(open.empty()) << line;
  }
}

TEST(TrainSyntheticTasks, TheSameSeedGivesTheSameTextAndAnotherSeedAnother) {
  REQUIRE_TOK512();
  for (const char* task : {"copy", "counting", "brackets"}) {
    auto a = task_text(*tokenizer, task, 30, 6, 7), b = task_text(*tokenizer, task, 30, 6, 7);
    auto c = task_text(*tokenizer, task, 30, 6, 8);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << task;
    EXPECT_EQ(*a, *b) << task;
    EXPECT_NE(*a, *c) << task;
  }
}

TEST(TrainSyntheticTasks, BadSettingsAreRefusedByName) {
  REQUIRE_TOK512();
  auto unknown = synthetic_task_named("sorting");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("sorting"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("copy, counting, brackets"), std::string::npos);
  auto no_lines = task_text(*tokenizer, "copy", 0, 8);
  ASSERT_FALSE(no_lines.ok());
  EXPECT_NE(no_lines.error().message.find("lines"), std::string::npos);
  auto too_long = task_text(*tokenizer, "copy", 5, 600);
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.error().message.find("length must be in 2..512"), std::string::npos);
}

TEST(TrainSyntheticTasks, HeldOutLossPoolsTheLinesScores) {
  REQUIRE_TOK512();
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  auto model = load_model(test::model_path("stories260K.bin"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const std::shared_ptr<const Model> m = std::make_shared<const Model>(std::move(*model));
  const std::string a = "Once upon a time, there was a cat.", b = "Tom saw a big red car.";
  auto sa = score_text(m, *tokenizer, a), sb = score_text(m, *tokenizer, b);
  ASSERT_TRUE(sa.ok() && sb.ok());
  const double pooled = (sa->loss * static_cast<double>(sa->logprobs.size()) +
                         sb->loss * static_cast<double>(sb->logprobs.size())) /
                        static_cast<double>(sa->logprobs.size() + sb->logprobs.size());
  auto loss = held_out_loss(m, *tokenizer, a + "\n\n" + b + "\n");
  ASSERT_TRUE(loss.ok()) << loss.error().message;
  EXPECT_NEAR(*loss, pooled, 1e-12);
  EXPECT_FALSE(held_out_loss(m, *tokenizer, "\n  \n").ok());
}

TEST(TrainSyntheticTasks, TrainerReportsEachLayersGradientNormAndWritesGgufBytes) {
  REQUIRE_TOK512();
  auto text = synthetic_task_text(*tokenizer, {.lines = 20, .length = 6, .max_tokens = 32});  // the context
  ASSERT_TRUE(text.ok()) << text.error().message;
  auto config = read_training_config(
      R"({"architecture": "llama", "dim": 16, "layers": 2, "heads": 2, "kv_heads": 2, "hidden_dim": 32, "context": 32})",
      "test", *tokenizer);
  ASSERT_TRUE(config.ok()) << config.error().message;
  auto trainer = Trainer::from_config(*config, tokenizer, *text, {.steps = 2, .batch = 2, .clip = 0});
  ASSERT_TRUE(trainer.ok()) << trainer.error().message;
  auto report = trainer->step();
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->layer_grad_norms.size(), 2u);
  double layers_squared = 0;
  for (double n : report->layer_grad_norms) {
    EXPECT_GT(n, 0);
    layers_squared += n * n;
  }
  // The layers are part of the whole: the embedding and final norm make up the rest of the global norm.
  EXPECT_LT(layers_squared, report->grad_norm * report->grad_norm);
  auto bytes = trainer->gguf_bytes("trained");
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  ASSERT_GT(bytes->size(), 4u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes->data()), 4), "GGUF");
  auto loaded = open_model(bytes_from_buffer(std::move(*bytes), "trained.gguf"), nullptr);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const std::string line = lines_of(*text)[0];
  auto from_trainer = score_text(trainer->model(), *tokenizer, line);
  auto from_bytes = score_text(loaded->model, *loaded->tokenizer, line);
  ASSERT_TRUE(from_trainer.ok() && from_bytes.ok());
  EXPECT_EQ(from_trainer->loss, from_bytes->loss) << "the bytes are the trainer's weights";
}

}  // namespace
}  // namespace glassbox
