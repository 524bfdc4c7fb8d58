// Direct logit attribution and activation patching checked against themselves: the parts add up to the
// model's own logit on every architecture, patching the one differing token restores the clean run exactly,
// identical prompts give effects of 0 (not 0 / 0), and the CLI's errors say what is wrong. The float64
// reference comparison is circuits_reference_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "glassbox/activation_patching.hpp"
#include "glassbox/glassbox.hpp"
#include "random_models.hpp"
#include "stories_model.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

std::vector<int> random_tokens(int n, int vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, vocab - 1);
  std::vector<int> out;
  for (int i = 0; i < n; ++i)
    out.push_back(pick(rng));
  return out;
}

double sum_of_magnitudes(const LogitAttribution& a) {
  double sum = std::fabs(a.embedding) + std::fabs(a.bias);
  for (double v : a.heads)
    sum += std::fabs(v);
  for (double v : a.mlp)
    sum += std::fabs(v);
  return sum;
}

class AttributionArchitectures : public ::testing::TestWithParam<test::Case> {};

// Every position, every token: the parts add up to the logit within 1e-5 of their magnitudes' sum (double
// sums of float32 parts), and the logit is the model's own (the logit lens of the last layer, which is the
// forward pass's logits bit for bit; soft-capped where the model caps) within 1e-5 of its size.
TEST_P(AttributionArchitectures, PartsAddUpToTheModelsLogit) {
  const test::Case& c = GetParam();
  auto model = std::make_shared<const Model>(test::RandomModel(c.config, c.biases, 7).model());
  auto session = Session::create(model, {.trace_residuals = true});
  ASSERT_TRUE(session.ok()) << session.error().message;
  const int n = 8;
  ASSERT_TRUE(session->prefill(random_tokens(n, c.config.vocab_size, 3)).ok());
  if (c.config.norm_placement == NormPlacement::PostNorm) {
    auto refused = session->logit_attribution(n - 1, 0);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::BadArgument);
    return;
  }
  std::vector<float> logits(static_cast<std::size_t>(c.config.vocab_size));
  for (int p = 0; p < n; ++p) {
    ASSERT_TRUE(session->layer_logits(c.config.n_layers, p, logits).ok());
    for (int token = 0; token < c.config.vocab_size; ++token) {
      auto a = session->logit_attribution(p, token);
      ASSERT_TRUE(a.ok()) << a.error().message;
      ASSERT_EQ(a->heads.size(), static_cast<std::size_t>(c.config.n_layers * c.config.n_heads));
      ASSERT_EQ(a->mlp.size(), static_cast<std::size_t>(c.config.n_layers));
      EXPECT_NEAR(a->sum_of_parts(), a->logit, 1e-5 * std::max(1.0, sum_of_magnitudes(*a)))
          << "position " << p << " token " << token;
      const float cap = c.config.final_logit_softcap;
      const double own = cap > 0 ? cap * std::tanh(a->logit / cap) : a->logit;
      EXPECT_NEAR(own, logits[static_cast<std::size_t>(token)], 1e-5 * std::max(1.0, std::fabs(own)))
          << "position " << p << " token " << token;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Architectures, AttributionArchitectures,
                         ::testing::ValuesIn(test::architecture_cases()),
                         [](const auto& info) { return test::test_name(info.param.label); });

TEST(Attribution, AnAblatedHeadContributesNothingAndTheRestStillAddUp) {
  const test::Case c = test::architecture_cases().front();
  auto model = std::make_shared<const Model>(test::RandomModel(c.config, c.biases, 7).model());
  auto session = Session::create(model, {.trace_residuals = true});
  ASSERT_TRUE(session.ok());
  std::vector<float> scales(static_cast<std::size_t>(c.config.n_layers * c.config.n_heads), 1.0f);
  scales[1] = 0.0f;  // layer 0, head 1 off
  scales[5] = 0.5f;  // layer 1, head 1 halved
  ASSERT_TRUE(session->set_head_scales(scales).ok());
  ASSERT_TRUE(session->prefill(random_tokens(6, c.config.vocab_size, 5)).ok());
  auto a = session->logit_attribution(5, 2);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->head(0, 1), 0.0);
  EXPECT_NE(a->head(1, 1), 0.0);
  EXPECT_NEAR(a->sum_of_parts(), a->logit, 1e-5 * std::max(1.0, sum_of_magnitudes(*a)));
}

TEST(Attribution, DifferenceOfTwoTokensIsTheDifferenceOfTheirParts) {
  const test::Case c = test::architecture_cases().front();
  auto model = std::make_shared<const Model>(test::RandomModel(c.config, c.biases, 9).model());
  auto session = Session::create(model, {.trace_residuals = true});
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE(session->prefill(random_tokens(5, c.config.vocab_size, 1)).ok());
  auto a = session->logit_attribution(4, 3), b = session->logit_attribution(4, 6);
  ASSERT_TRUE(a.ok() && b.ok());
  const LogitAttribution d = logit_difference(*a, *b);
  EXPECT_EQ(d.token, 3);
  EXPECT_EQ(d.baseline_token, 6);
  EXPECT_DOUBLE_EQ(d.logit, a->logit - b->logit);
  EXPECT_DOUBLE_EQ(d.head(1, 2), a->head(1, 2) - b->head(1, 2));
  EXPECT_DOUBLE_EQ(d.mlp[0], a->mlp[0] - b->mlp[0]);
  EXPECT_NEAR(d.sum_of_parts(), d.logit, 1e-5 * std::max(1.0, sum_of_magnitudes(*a) + sum_of_magnitudes(*b)));
}

TEST(Attribution, RefusesPositionsNotComputedAndTokensOutsideTheVocabulary) {
  const test::Case c = test::architecture_cases().front();
  auto model = std::make_shared<const Model>(test::RandomModel(c.config, c.biases, 9).model());
  auto session = Session::create(model, {.trace_residuals = true});
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE(session->prefill(random_tokens(3, c.config.vocab_size, 1)).ok());
  EXPECT_EQ(session->logit_attribution(3, 0).error().code, ErrorCode::BadArgument);
  EXPECT_EQ(session->logit_attribution(1, c.config.vocab_size).error().code, ErrorCode::BadArgument);
  auto untraced = Session::create(model);
  ASSERT_TRUE(untraced->prefill(random_tokens(3, c.config.vocab_size, 1)).ok());
  EXPECT_EQ(untraced->logit_attribution(1, 0).error().code, ErrorCode::NotRecorded);
}

// stories260K: the clean and corrupt prompts differ in one token ("girl" / "boy" would change the length, so
// an id is swapped). Patching the differing position's embedding makes the corrupt run the clean one, bit
// for bit: effect exactly 1; every other position's embedding is the same in both runs: exactly 0. After the
// last layer only the last position reaches the classifier.
TEST(Patching, TheOneDifferingTokenRestoresTheCleanRunExactly) {
  REQUIRE_STORIES();
  const test::Stories s = test::load_stories();
  ASSERT_TRUE(s.model);
  const std::vector<int> clean = {1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315};
  std::vector<int> corrupt = clean;
  const int k = 9;
  corrupt[k] = 321;
  auto r = patch_activations(s.model, clean, corrupt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const int n = static_cast<int>(clean.size()), layers = s.model->config.n_layers;
  ASSERT_GT(std::fabs(r->metric_clean - r->metric_corrupt), 0.01);
  for (int p = 0; p < n; ++p)
    EXPECT_EQ(r->residual_effect(0, p), p == k ? 1.0 : 0.0) << "position " << p;
  for (int l = 0; l < layers; ++l)
    for (int p = 0; p < k; ++p)
      EXPECT_EQ(r->residual_effect(l, p), 0.0) << "layer " << l << " position " << p;
  for (int p = 0; p < n; ++p)
    EXPECT_EQ(r->residual_effect(layers, p), p == n - 1 ? 1.0 : 0.0)
        << "after the last layer, position " << p;
  // The default target is the clean run's top token.
  auto session = Session::create(s.model);
  const auto logits = *session->prefill(clean);
  EXPECT_EQ(r->target, std::max_element(logits.begin(), logits.end()) - logits.begin());
  EXPECT_EQ(r->residual.size(), static_cast<std::size_t>((layers + 1) * n));
  EXPECT_EQ(r->heads.size(), static_cast<std::size_t>(layers * s.model->config.n_heads));
}

TEST(Patching, IdenticalPromptsHaveNoGapAndEveryEffectIsZero) {
  const test::Case c = test::architecture_cases().front();
  auto model = std::make_shared<const Model>(test::RandomModel(c.config, c.biases, 11).model());
  const std::vector<int> prompt = random_tokens(6, c.config.vocab_size, 2);
  auto r = patch_activations(model, prompt, prompt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->metric_clean, r->metric_corrupt);
  for (double e : r->residual)
    EXPECT_EQ(e, 0.0);
  for (double e : r->heads)
    EXPECT_EQ(e, 0.0);
  EXPECT_EQ(r->runs, 2);  // every activation is the same in both runs: nothing to patch
}

TEST(Patching, TheThreadCountChangesNoNumber) {
  const test::Case c = test::architecture_cases()[3];  // gpt2: biases, LayerNorm, learned positions
  auto model = std::make_shared<const Model>(test::RandomModel(c.config, c.biases, 13).model());
  const std::vector<int> clean = random_tokens(7, c.config.vocab_size, 4);
  std::vector<int> corrupt = clean;
  corrupt[2] = (corrupt[2] + 1) % c.config.vocab_size;
  auto one = patch_activations(model, clean, corrupt, {.threads = 1});
  auto three = patch_activations(model, clean, corrupt, {.threads = 3});
  ASSERT_TRUE(one.ok() && three.ok());
  EXPECT_EQ(one->residual_metric, three->residual_metric);
  EXPECT_EQ(one->head_metric, three->head_metric);
}

// The page's worker steps a job a few cells at a time: any chunking gives patch_activations' numbers.
TEST(Patching, AJobSteppedInChunksGivesTheSameNumbers) {
  const test::Case c = test::architecture_cases()[3];
  auto model = std::make_shared<const Model>(test::RandomModel(c.config, c.biases, 13).model());
  const std::vector<int> clean = random_tokens(7, c.config.vocab_size, 4);
  std::vector<int> corrupt = clean;
  corrupt[2] = (corrupt[2] + 1) % c.config.vocab_size;
  auto whole = patch_activations(model, clean, corrupt);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  for (int chunk : {1, 5, 1000}) {
    auto job = PatchingJob::begin(model, clean, corrupt);
    ASSERT_TRUE(job.ok()) << job.error().message;
    EXPECT_EQ(job->total(), (c.config.n_layers + 1) * 7 + c.config.n_layers * c.config.n_heads);
    int steps = 0;
    while (!job->finished()) {
      job->step(chunk);
      ++steps;
    }
    EXPECT_EQ(steps, (job->total() + chunk - 1) / chunk);
    const PatchingResult r = job->result();
    EXPECT_EQ(r.residual, whole->residual) << "chunks of " << chunk;
    EXPECT_EQ(r.heads, whole->heads) << "chunks of " << chunk;
    EXPECT_EQ(r.runs, whole->runs);
  }
  test::expect_error(PatchingJob::begin(model, clean, std::vector<int>(3, 1)), ErrorCode::BadArgument,
                     "the clean one has 7, the corrupt one 3");
}

TEST(Patching, ErrorsSayWhatIsWrong) {
  const test::Case c = test::architecture_cases().front();
  auto model = std::make_shared<const Model>(test::RandomModel(c.config, c.biases, 11).model());
  auto unequal = patch_activations(model, std::vector<int>{1, 2, 3}, std::vector<int>{1, 2, 3, 4, 5});
  ASSERT_FALSE(unequal.ok());
  EXPECT_EQ(unequal.error().code, ErrorCode::BadArgument);
  EXPECT_NE(unequal.error().message.find("the clean one has 3, the corrupt one 5"), std::string::npos)
      << unequal.error().message;
  auto target = patch_activations(model, std::vector<int>{1, 2}, std::vector<int>{1, 3},
                                  {.target = c.config.vocab_size});
  ASSERT_FALSE(target.ok());
  EXPECT_NE(target.error().message.find("target token"), std::string::npos) << target.error().message;
  int calls = 0;
  auto cancelled = patch_activations(model, std::vector<int>{1, 2}, std::vector<int>{1, 3},
                                     {.progress = [&](int, int) { return ++calls < 2; }});
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(calls, 2);
  EXPECT_NE(cancelled.error().message.find("cancelled"), std::string::npos) << cancelled.error().message;
}

// inspect --json: each step's attribution of the chosen token adds up to its logit, which is the
// candidates' logit of that token (float there, double here).
TEST(Attribution, EveryInspectStepCarriesItsChosenTokensAttribution) {
  REQUIRE_STORIES();
  const test::Stories s = test::load_stories();
  ASSERT_TRUE(s.model);
  auto document = inspect_json(s.model, *s.tokenizer, "Once upon a time", {.steps = 3, .candidates = 512});
  ASSERT_TRUE(document.ok()) << document.error().message;
  const json::Document json = test::parse_json(*document, "inspect");
  ASSERT_EQ(test::items(test::member(json, "steps")).Size(), 3u);
  for (const json::Value& step : test::items(test::member(json, "steps"))) {
    const json::Value& a = test::member(step, "attribution");
    const double chosen = test::number(test::member(step, "chosen"));
    EXPECT_EQ(test::number(test::member(a, "token")), chosen);
    double sum = test::number(test::member(a, "embedding")) + test::number(test::member(a, "bias"));
    ASSERT_EQ(test::items(test::member(a, "heads")).Size(), 5u);
    for (const json::Value& layer : test::items(test::member(a, "heads"))) {
      ASSERT_EQ(test::items(layer).Size(), 8u);
      for (const json::Value& head : test::items(layer))
        sum += test::number(head);
    }
    for (const json::Value& mlp : test::items(test::member(a, "mlp")))
      sum += test::number(mlp);
    const double logit = test::number(test::member(a, "logit"));
    EXPECT_NEAR(sum, logit, 1e-5 * std::max(1.0, std::fabs(logit)));
    for (const json::Value& candidate : test::items(test::member(step, "candidates")))
      if (test::number(test::member(candidate, "id")) == chosen)
        EXPECT_NEAR(test::number(test::member(candidate, "logit")), logit,
                    1e-5 * std::max(1.0, std::fabs(logit)));
  }
}

#if !defined(__EMSCRIPTEN__)
TEST(CliPatch, JsonHasEveryFieldAndTheTargetAsPieceOrId) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  const std::vector<std::string> base = {"patch",
                                         "--model",
                                         test::model_path("stories260K.bin"),
                                         "--tokenizer",
                                         test::model_path("tok512.bin"),
                                         "--clean",
                                         "Lily and Tom went to the park. Tom gave a ball to",
                                         "--corrupt",
                                         "Tim and Tom went to the park. Tom gave a ball to",
                                         "--threads",
                                         "1",
                                         "--json"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--target", " Lily"});
  auto run = test::run_cli(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::Document json = test::parse_json(run.out, "stdout");
  ASSERT_TRUE(json.IsObject()) << run.out;
  const auto clean = test::items(test::member(json, "clean_tokens"));
  EXPECT_EQ(clean.Size(), test::items(test::member(json, "corrupt_tokens")).Size());
  const int target = static_cast<int>(test::number(test::member(test::member(json, "target"), "id")));
  EXPECT_EQ(test::text(test::member(test::member(json, "target"), "piece")), " Lily");
  EXPECT_LT(test::number(test::member(json, "metric_clean")), 0.0);
  EXPECT_LT(test::number(test::member(json, "metric_corrupt")), 0.0);
  EXPECT_EQ(test::items(test::member(json, "residual")).Size(), 6u);  // 5 layers + after the last
  EXPECT_EQ(test::items(test::items(test::member(json, "residual"))[0]).Size(), clean.Size());
  EXPECT_EQ(test::items(test::member(json, "heads")).Size(), 5u);
  EXPECT_EQ(test::items(test::items(test::member(json, "heads"))[0]).Size(), 8u);
  // The same target by id, and as a text that encodes to that one token.
  for (const std::string& spelling : {std::to_string(target), std::string("Lily")}) {
    args = base;
    args.insert(args.end(), {"--target", spelling});
    auto again = test::run_cli(args);
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, run.out) << spelling;
  }
}

TEST(CliPatch, UnequalLengthsAndUnknownTargetsAreErrorsThatSayWhy) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  const std::vector<std::string> model = {"patch", "--model", test::model_path("stories260K.bin"),
                                          "--tokenizer", test::model_path("tok512.bin")};
  std::vector<std::string> args = model;
  args.insert(args.end(), {"--clean", "Once upon a time", "--corrupt", "Once upon a time there was a cat"});
  auto unequal = test::run_cli(args);
  EXPECT_EQ(unequal.exit_code, 1);
  EXPECT_NE(unequal.err.find("the clean one has 5, the corrupt one 10"), std::string::npos) << unequal.err;
  args = model;
  args.insert(args.end(), {"--clean", "Once upon a time", "--corrupt", "Once upon a day", "--target",
                           "xylophone quartet"});
  auto unknown = test::run_cli(args);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("unknown target 'xylophone quartet'"), std::string::npos) << unknown.err;
  auto missing = test::run_cli({"patch", "--model", test::model_path("stories260K.bin")});
  EXPECT_EQ(missing.exit_code, 2);
}
#endif

}  // namespace
}  // namespace glassbox
