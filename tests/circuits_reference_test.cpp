// Direct logit attribution and activation patching against the float64 NumPy reference
// (tests/reference/circuits.py; circuit_fixtures.py writes STEM.circuits.json): the random models of every
// variant the reference has, and stories260K. Tolerances, against float32 arithmetic:
// - attribution: each part within 1e-4 of the reference, scaled by max(1, the largest |part|) (float32 measures
//   about 1e-6 here);
// - patching: every metric (log p) within 1e-4 nats, every effect within 1e-3 (the effects divide by a
//   clean-corrupt gap of at least 0.25 nats, circuit_fixtures.MIN_GAP);
// - mean ablation: the KL at every position within 1e-4 bits, scaled by max(1, the KL).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "glassbox/activation_patching.hpp"
#include "glassbox/glassbox.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

constexpr double kPartTolerance = 1e-4;
constexpr double kMetricTolerance = 1e-4;
constexpr double kEffectTolerance = 1e-3;
constexpr double kKlTolerance = 1e-4;

std::vector<double> doubles(const json::Value& array) {
  std::vector<double> out;
  for (const json::Value& v : test::items(array))
    out.push_back(test::number(v));
  return out;
}

// A [rows][columns] array, row-major.
std::vector<double> grid(const json::Value& rows) {
  std::vector<double> out;
  for (const json::Value& row : test::items(rows))
    for (double v : doubles(row))
      out.push_back(v);
  return out;
}

struct Fixture {
  std::shared_ptr<const Model> model;
  json::Document expected;
};

// The model (stories260K from models/, a variant's .gguf from the fixtures) and its STEM.circuits.json.
Fixture load(const std::string& stem) {
  Fixture f;
  const std::string path =
      stem == "stories260K" ? test::model_path("stories260K.bin") : test::fixture_path(stem + ".gguf");
  auto model = load_model(path);
  EXPECT_TRUE(model.ok()) << path << ": " << (model.ok() ? "" : model.error().message);
  if (model.ok()) f.model = std::make_shared<const Model>(std::move(*model));
  const std::string json = test::fixture_path(stem + ".circuits.json");
  f.expected = test::parse_json(test::read_file(json), json);
  return f;
}

void expect_near_all(const std::vector<double>& ours, const std::vector<double>& reference, double tolerance,
                     const char* what) {
  ASSERT_EQ(ours.size(), reference.size()) << what;
  for (std::size_t i = 0; i < ours.size(); ++i)
    EXPECT_NEAR(ours[i], reference[i], tolerance) << what << "[" << i << "]";
}

class CircuitsReference : public ::testing::TestWithParam<std::string> {};

TEST_P(CircuitsReference, AttributionMatchesTheReference) {
  if (GetParam() == "stories260K") GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::fixture_path(GetParam() + ".circuits.json"));
  const Fixture f = load(GetParam());
  ASSERT_TRUE(f.model && f.expected.IsObject());
  const std::vector<int> clean = test::ints(test::member(f.expected, "clean"));
  auto session = Session::create(f.model, {.trace_residuals = true});
  ASSERT_TRUE(session.ok()) << session.error().message;
  ASSERT_TRUE(session->prefill(clean).ok());
  const json::Value& attributions = test::member(f.expected, "attributions");
  if (attributions.IsNull()) {  // Post-LN: no split
    auto refused = session->logit_attribution(static_cast<int>(clean.size()) - 1, 0);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::BadArgument);
    EXPECT_NE(refused.error().message.find("Post-LN"), std::string::npos) << refused.error().message;
    return;
  }
  std::vector<LogitAttribution> ours;
  for (const json::Value& ref : test::items(attributions)) {
    const int position = static_cast<int>(test::number(test::member(ref, "position")));
    const int token = static_cast<int>(test::number(test::member(ref, "token")));
    auto a = session->logit_attribution(position, token);
    ASSERT_TRUE(a.ok()) << a.error().message;
    std::vector<double> parts = {test::number(test::member(ref, "logit")),
                                 test::number(test::member(ref, "embedding")),
                                 test::number(test::member(ref, "bias"))};
    for (double v : grid(test::member(ref, "heads")))
      parts.push_back(v);
    for (double v : doubles(test::member(ref, "mlp")))
      parts.push_back(v);
    std::vector<double> mine = {a->logit, a->embedding, a->bias};
    mine.insert(mine.end(), a->heads.begin(), a->heads.end());
    mine.insert(mine.end(), a->mlp.begin(), a->mlp.end());
    double scale = 1.0;
    for (double v : parts)
      scale = std::max(scale, std::fabs(v));
    expect_near_all(mine, parts, kPartTolerance * scale, "logit, embedding, bias, heads..., mlp...");
    ours.push_back(*a);
  }
  // The difference of the last position's two tokens, part by part.
  const LogitAttribution d = logit_difference(ours[0], ours[1]);
  EXPECT_EQ(d.baseline_token, ours[1].token);
  EXPECT_NEAR(d.logit, ours[0].logit - ours[1].logit, 1e-12);
  EXPECT_NEAR(d.sum_of_parts(), d.logit, 1e-5 * std::max(1.0, std::fabs(ours[0].logit)));
}

TEST_P(CircuitsReference, PatchingMatchesTheReference) {
  if (GetParam() == "stories260K") GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::fixture_path(GetParam() + ".circuits.json"));
  const Fixture f = load(GetParam());
  ASSERT_TRUE(f.model && f.expected.IsObject());
  const std::vector<int> clean = test::ints(test::member(f.expected, "clean"));
  const std::vector<int> corrupt = test::ints(test::member(f.expected, "corrupt"));
  const int target = static_cast<int>(test::number(test::member(f.expected, "target")));
  auto r = patch_activations(f.model, clean, corrupt, {.target = target});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->target, target);
  EXPECT_NEAR(r->metric_clean, test::number(test::member(f.expected, "metric_clean")), kMetricTolerance);
  EXPECT_NEAR(r->metric_corrupt, test::number(test::member(f.expected, "metric_corrupt")), kMetricTolerance);
  expect_near_all(r->residual_metric, grid(test::member(f.expected, "residual_metric")), kMetricTolerance,
                  "residual_metric");
  expect_near_all(r->head_metric, grid(test::member(f.expected, "head_metric")), kMetricTolerance,
                  "head_metric");
  expect_near_all(r->residual, grid(test::member(f.expected, "residual")), kEffectTolerance, "residual");
  expect_near_all(r->heads, grid(test::member(f.expected, "heads")), kEffectTolerance, "heads");
}

// Mean ablation of two heads (the first layer's last head, the last layer's first) on the clean prompt: the
// KL at every position, in bits.
TEST_P(CircuitsReference, MeanAblationMatchesTheReference) {
  if (GetParam() == "stories260K") GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::fixture_path(GetParam() + ".circuits.json"));
  const Fixture f = load(GetParam());
  ASSERT_TRUE(f.model && f.expected.IsObject());
  const ModelConfig& c = f.model->config;
  const std::vector<int> clean = test::ints(test::member(f.expected, "clean"));
  const json::Value& reference = test::member(f.expected, "mean_ablation");
  std::vector<int> mean_heads;
  for (const json::Value& head : test::items(test::member(reference, "heads"))) {
    const std::vector<int> at = test::ints(head);
    mean_heads.push_back(at[0] * c.n_heads + at[1]);
  }
  auto session = Session::create(f.model, {.threads = 2, .trace_residuals = true});
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE(session->prefill(clean).ok());
  auto effect = ablate_session(*session, clean,
                               std::vector<float>(static_cast<std::size_t>(c.n_layers * c.n_heads), 1.0f), -1,
                               mean_heads);
  ASSERT_TRUE(effect.ok()) << effect.error().message;
  EXPECT_EQ(effect->first_position, 0);
  std::vector<double> kl;
  for (const DistributionChange& at : effect->by_position)
    kl.push_back(at.kl_bits);
  const std::vector<double> expected = doubles(test::member(reference, "kl_bits"));
  ASSERT_EQ(kl.size(), expected.size());
  for (std::size_t p = 0; p < kl.size(); ++p)
    EXPECT_NEAR(kl[p], expected[p], kKlTolerance * std::max(1.0, expected[p])) << "position " << p;
  EXPECT_GT(*std::max_element(expected.begin(), expected.end()), 1e-3);  // the ablation moves something
}

INSTANTIATE_TEST_SUITE_P(Models, CircuitsReference, ::testing::ValuesIn(test::reference_circuit_models()),
                         [](const auto& info) { return test::test_name(info.param); });

// Weights whose products round their inputs to 8 bits (the integer kernels): the heads' parts are taken over
// W_o's input rounded the same way, so the parts still add up to the logit (before the classifier's own
// rounding) as closely as in float32 models.
TEST(CircuitsQuantized, PartsAddUpWhereTheProductsRoundTheirInputs) {
  for (const char* stem : {"llama-like.q8_0", "llama-like.q4_0", "llama-kquants", "llama-q4_1-q5_0-q5_1"}) {
    const std::string path = test::fixture_path(std::string(stem) + ".gguf");
    GLASSBOX_REQUIRE_FILE(path);
    auto model = load_model(path);
    ASSERT_TRUE(model.ok()) << model.error().message;
    auto session =
        Session::create(std::make_shared<const Model>(std::move(*model)), {.trace_residuals = true});
    ASSERT_TRUE(session.ok());
    const int vocab = session->model().config.vocab_size;
    std::vector<int> tokens;
    for (int i = 0; i < 6; ++i)
      tokens.push_back((i * 7 + 3) % vocab);
    ASSERT_TRUE(session->prefill(tokens).ok());
    for (int token : {0, 5, vocab - 1}) {
      auto a = session->logit_attribution(5, token);
      ASSERT_TRUE(a.ok()) << a.error().message;
      EXPECT_NEAR(a->sum_of_parts(), a->logit, 1e-5 * std::max(1.0, std::fabs(a->logit)))
          << stem << " " << token;
    }
  }
}

}  // namespace
}  // namespace glassbox
