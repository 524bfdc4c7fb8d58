// glassbox::score_text: per-token log-probabilities, loss and perplexity, checked against the NumPy
// reference (tests/reference/score_fixtures.py) on stories260K, against stepping the text token by token,
// and for the same bits whatever the thread count.
#include <gtest/gtest.h>

#include <cmath>

#include "glassbox/glassbox.hpp"
#include "stories_model.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

// The engine computes in float32, the reference in float64: over stories260K's 5 layers and 512-way softmax
// the per-token log-probabilities agree to 1e-6 and the loss to 3e-8 (measured); the bounds leave room for other compilers'
// and instruction sets' rounding (the WASM build's SSE emulation).
constexpr double kLogprobTolerance = 1e-4;
constexpr double kLossTolerance = 1e-5;

constexpr const char* kText = test::kStoriesText;

TEST(Score, EachLogprobIsTheNextTokensUnderTheLogitsOfSteppingTokenByToken) {
  REQUIRE_STORIES();
  auto score = score_text(stories.model, *stories.tokenizer, kText);
  ASSERT_TRUE(score.ok()) << score.error().message;
  EXPECT_EQ(score->ids, stories.tokenizer->encode_prompt(kText));
  EXPECT_EQ(score->ids.front(), stories.tokenizer->bos_id());
  ASSERT_EQ(score->logprobs.size(), score->ids.size() - 1);

  auto session = Session::create(stories.model);
  ASSERT_TRUE(session.ok());
  double total = 0;
  for (std::size_t i = 0; i + 1 < score->ids.size(); ++i) {
    auto logits = session->step(score->ids[i]);
    ASSERT_TRUE(logits.ok());
    // The same bits: the logits of the prompt path read back from the residual trace are the step's.
    EXPECT_EQ(score->logprobs[i], log_probability(*logits, score->ids[i + 1])) << "position " << i;
    EXPECT_LT(score->logprobs[i], 0.0);
    total -= score->logprobs[i];
  }
  EXPECT_DOUBLE_EQ(score->loss, total / static_cast<double>(score->logprobs.size()));
  EXPECT_DOUBLE_EQ(score->perplexity, std::exp(score->loss));
}

TEST(Score, TheThreadCountDoesNotChangeTheBits) {
  REQUIRE_STORIES();
  auto one = score_text(stories.model, *stories.tokenizer, kText, {.threads = 1});
  auto three = score_text(stories.model, *stories.tokenizer, kText, {.threads = 3});
  ASSERT_TRUE(one.ok() && three.ok());
  EXPECT_EQ(one->logprobs, three->logprobs);
  EXPECT_EQ(one->loss, three->loss);
}

TEST(Score, NeedsTwoTokensAndAFittingText) {
  REQUIRE_STORIES();
  const int bos = stories.tokenizer->bos_id();
  test::expect_error(score_tokens(stories.model, std::vector<int>{bos}), ErrorCode::BadArgument,
                     "at least two are needed");
  const std::vector<int> long_text(static_cast<std::size_t>(stories.model->config.max_seq_len) + 1, bos);
  test::expect_error(score_tokens(stories.model, long_text), ErrorCode::PromptTooLong);
  test::expect_error(score_tokens(stories.model, std::vector<int>{bos, 100000}), ErrorCode::BadArgument);
}

TEST(Score, LogProbabilityIsALogSoftmax) {
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  const double z = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  EXPECT_NEAR(log_probability(logits, 2), 3.0 - z, 1e-12);
  EXPECT_NEAR(log_probability(logits, 0), 1.0 - z, 1e-12);
}

#if !defined(__EMSCRIPTEN__)  // the CLI runs as a process: none under WebAssembly
TEST(Score, TheCommandPrintsTheCoresNumbersAsJson) {
  REQUIRE_STORIES();
  auto run = test::run_cli({"score", "--model", test::model_path("stories260K.bin"), "--tokenizer",
                            test::model_path("tok512.bin"), "--text", kText, "--json", "--threads", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::Document doc = test::parse_json(run.out, "glassbox score --json");
  auto score = score_text(stories.model, *stories.tokenizer, kText);
  ASSERT_TRUE(score.ok());
  const auto tokens = test::items(test::member(doc, "tokens"));
  ASSERT_EQ(tokens.Size(), score->ids.size());
  EXPECT_EQ(test::number(test::member(tokens[1], "id")), score->ids[1]);
  EXPECT_EQ(test::text(test::member(tokens[1], "piece")), stories.tokenizer->piece(score->ids[1]));
  EXPECT_EQ(test::items(test::member(doc, "logprobs")).Size(), score->logprobs.size());
  EXPECT_EQ(test::number(test::member(doc, "loss")),
            score->loss);  // written in the fewest digits that read back
  EXPECT_EQ(test::number(test::member(doc, "perplexity")), score->perplexity);

  auto text = test::run_cli({"score", "--model", test::model_path("stories260K.bin"), "--tokenizer",
                             test::model_path("tok512.bin"), "--text", kText});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("perplexity"), std::string::npos) << text.out;
  EXPECT_EQ(test::run_cli({"score", "--model", test::model_path("stories260K.bin")}).exit_code,
            2);  // no --text
}
#endif

// The reference's float64 forward pass of stories260K (score_fixtures.py): exact attention.
TEST(ScoreReference, Stories260KMatchesTheNumPyReference) {
  REQUIRE_STORIES();
  const std::string path = test::fixture_path("stories260K-score.json");
  GLASSBOX_REQUIRE_FILE(path);
  const json::Document doc = test::parse_json(test::read_file(path), path);
  const std::string text = test::text(test::member(doc, "text"));
  const std::vector<int> ids = test::ints(test::member(doc, "ids"));
  ASSERT_EQ(stories.tokenizer->encode_prompt(text), ids) << "the reference scored other tokens";
  const json::Value& expected = test::member(test::member(doc, "variants"), "exact");
  auto score = score_text(stories.model, *stories.tokenizer, text);
  ASSERT_TRUE(score.ok()) << score.error().message;
  const auto items = test::items(test::member(expected, "logprobs"));
  ASSERT_EQ(score->logprobs.size(), items.Size());
  for (std::size_t i = 0; i < score->logprobs.size(); ++i)
    EXPECT_NEAR(score->logprobs[i], test::number(items[static_cast<rapidjson::SizeType>(i)]),
                kLogprobTolerance)
        << "token " << i + 1;
  EXPECT_NEAR(score->loss, test::number(test::member(expected, "loss")), kLossTolerance);
}

}  // namespace
}  // namespace glassbox
