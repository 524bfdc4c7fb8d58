// A whole Llama model's loss and gradients (train/model_gradients.hpp): the loss in float is score_tokens'
// loss bit for bit on stories260K and every trainable architecture (training's step 0 scores a text as
// `glassbox score` does), and the derivative by sampled
// weights of every tensor matches central finite differences of the loss, in double, on tiny random Llamas
// (tied and untied classifier, GQA, both RoPE pairings, learned and sinusoidal positions), on the NumPy
// reference's fixtures and on stories260K.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "glassbox/glassbox.hpp"
#include "glassbox/score.hpp"
#include "random_models.hpp"
#include "stories_model.hpp"
#include "test_json.hpp"
#include "test_support.hpp"
#include "train/model_gradients.hpp"
#include "train_gradient_check.hpp"

namespace glassbox::train {
namespace {

constexpr double kTolerance = 1e-6;  // on the largest relative error (tests/train_gradient_check.hpp)

// The derivative by `samples` random elements of each tensor, analytic against finite differences; returns
// the largest relative error over all of them and prints each tensor's. `checked` gathers the tensors' names.
double check_sampled_gradients(const ModelConfig& config, ModelParameters<double> parameters,
                               const std::vector<int>& tokens, int samples, uint32_t seed,
                               std::set<std::string>* checked = nullptr) {
  ModelParameters<double> gradients = zeros_like(parameters);
  auto loss_and_gradients = model_loss_and_gradients(config, parameters, tokens, gradients);
  EXPECT_TRUE(loss_and_gradients.ok()) << loss_and_gradients.error().message;
  std::vector<std::vector<double>*> analytic;
  gradients.for_each([&](const std::string&, std::vector<double>& g) { analytic.push_back(&g); });
  std::mt19937 rng(seed);
  double worst = 0;
  std::size_t tensor = 0;
  parameters.for_each([&](const std::string& name, std::vector<double>& weights) {
    const std::vector<double>& g = *analytic[tensor++];
    double worst_here = 0;
    for (int s = 0; s < samples; ++s) {
      const std::size_t i = std::uniform_int_distribution<std::size_t>(0, weights.size() - 1)(rng);
      const double saved = weights[i];
      const auto loss_at = [&](double value) {
        weights[i] = value;
        return *model_loss(config, parameters, tokens);
      };
      const double numeric =
          (loss_at(saved + test::kFiniteDifferenceStep) - loss_at(saved - test::kFiniteDifferenceStep)) /
          (2 * test::kFiniteDifferenceStep);
      weights[i] = saved;
      worst_here = std::max(worst_here, test::max_relative_error({g[i]}, {numeric}));
    }
    std::printf("gradient check %-22s max relative error %.2e\n", name.c_str(), worst_here);
    if (checked) checked->insert(name);
    worst = std::max(worst, worst_here);
  });
  return worst;
}

TEST(TrainModelGradients, StepZeroLossIsScoresLossOnStories260K) {
  REQUIRE_STORIES();
  const std::vector<int> tokens = stories.tokenizer->encode_prompt(test::kStoriesText);
  auto score = score_tokens(stories.model, tokens);
  ASSERT_TRUE(score.ok()) << score.error().message;
  auto parameters = model_parameters<float>(*stories.model);
  ASSERT_TRUE(parameters.ok()) << parameters.error().message;
  auto loss = model_loss(stories.model->config, *parameters, tokens);
  ASSERT_TRUE(loss.ok()) << loss.error().message;
  std::printf("stories260K: score's loss %.9f, training's step-0 loss %.9f\n", score->loss, *loss);
  EXPECT_EQ(*loss, score->loss);
  // The gradient pass gives the same loss as the forward pass alone.
  ModelParameters<float> gradients = zeros_like(*parameters);
  auto with_gradients = model_loss_and_gradients(stories.model->config, *parameters, tokens, gradients);
  ASSERT_TRUE(with_gradients.ok());
  EXPECT_EQ(*with_gradients, *loss);
}

TEST(TrainModelGradients, EveryTensorOfTinyRandomLlamasAgreesWithFiniteDifferences) {
  for (bool tied : {true, false}) {
    for (RopePairing pairing : {RopePairing::Adjacent, RopePairing::HalfSplit}) {
      ModelConfig c = test::base_config();
      c.tied_embeddings = tied;
      c.rope_pairing = pairing;
      // Adjacent over part of each head (the rest passes through unturned); half-split over all of it, whose
      // pairs (i, i + 2) differ from adjacent's (with 2 rotary values both pairings are the same pair).
      c.rope_dim = pairing == RopePairing::Adjacent ? 2 : 0;
      test::RandomModel random(c, {}, 11);
      auto parameters = model_parameters<double>(random.model());
      ASSERT_TRUE(parameters.ok()) << parameters.error().message;
      if (!tied) {
        EXPECT_FALSE(parameters->output.empty());
      }
      const std::vector<int> tokens = {1, 5, 2, 9, 5, 2, 9, 0, 3, 5};
      std::printf("tiny llama, %s classifier, %s RoPE:\n", tied ? "tied" : "untied",
                  pairing == RopePairing::Adjacent ? "adjacent" : "half-split");
      EXPECT_LT(check_sampled_gradients(c, *parameters, tokens, 6, 12), kTolerance);
    }
  }
}

const test::Case& gpt2_case() {
  static const std::vector<test::Case> cases = test::architecture_cases();
  for (const test::Case& c : cases)
    if (std::string(c.label) == "gpt2") return c;
  return cases.front();
}

TEST(TrainModelGradients, StepZeroLossIsScoresLossOnATinyGpt2) {
  const test::Case& gpt2 = gpt2_case();
  ASSERT_STREQ(gpt2.label, "gpt2");
  test::RandomModel random(gpt2.config, gpt2.biases, 21);
  const auto model = std::make_shared<const Model>(random.model());
  const std::vector<int> tokens = {1, 5, 2, 9, 5, 2, 9, 0, 3, 5, 7, 4};  // the whole context of 12
  auto score = score_tokens(model, tokens);
  ASSERT_TRUE(score.ok()) << score.error().message;
  auto parameters = model_parameters<float>(*model);
  ASSERT_TRUE(parameters.ok()) << parameters.error().message;
  auto loss = model_loss(model->config, *parameters, tokens);
  ASSERT_TRUE(loss.ok()) << loss.error().message;
  std::printf("tiny gpt2: score's loss %.9f, training's step-0 loss %.9f\n", score->loss, *loss);
  EXPECT_EQ(*loss, score->loss);
  ModelParameters<float> gradients = zeros_like(*parameters);
  auto with_gradients = model_loss_and_gradients(model->config, *parameters, tokens, gradients);
  ASSERT_TRUE(with_gradients.ok());
  EXPECT_EQ(*with_gradients, *loss);
}

TEST(TrainModelGradients, EveryTensorOfATinyRandomGpt2AgreesWithFiniteDifferences) {
  for (bool tied : {true, false}) {
    ModelConfig c = gpt2_case().config;
    c.tied_embeddings = tied;
    test::RandomModel random(c, gpt2_case().biases, 17);
    auto parameters = model_parameters<double>(random.model());
    ASSERT_TRUE(parameters.ok()) << parameters.error().message;
    // Tokens repeat, so that an embedding row gathers several positions' derivatives.
    const std::vector<int> tokens = {1, 5, 2, 9, 5, 2, 9, 0, 3, 5, 10};
    std::printf("tiny gpt2, %s classifier:\n", tied ? "tied" : "untied");
    std::set<std::string> checked;
    EXPECT_LT(check_sampled_gradients(c, *parameters, tokens, 6, 19, &checked), kTolerance);
    // Every kind of tensor GPT-2 adds to a Llama was among them.
    for (const char* name : {"position_embedding", "layers.1.attn_norm_bias", "layers.1.bq", "layers.1.bk",
                             "layers.1.bv", "layers.1.bo", "layers.1.ffn_norm_bias", "layers.1.ffn_up_bias",
                             "layers.1.ffn_down_bias", "final_norm_bias"})
      EXPECT_TRUE(checked.count(name)) << name;
    EXPECT_FALSE(checked.count("layers.0.ffn_gate"));  // a plain feed-forward
    EXPECT_EQ(checked.count("output"), tied ? 0u : 1u);
  }
}

// The architecture cases this pass trains (the rest are refused: RejectsWhatItCannotTrain).
const std::set<std::string> kTrainableCases = {"llama",
                                               "llama-untied-biases",
                                               "qwen2",
                                               "gpt2",
                                               "half-split-partial-rope",
                                               "adjacent-partial-rope",
                                               "layernorm-learned-swiglu",
                                               "layernorm-rope-gelu-plain"};

// The trainable architecture cases, and a trainable config no architecture case has: sinusoidal positions
// (every sinusoidal case there is Post-LN, which training refuses).
std::vector<test::Case> trainable_cases() {
  std::vector<test::Case> cases;
  for (const test::Case& c : test::architecture_cases())
    if (kTrainableCases.count(c.label)) cases.push_back(c);
  cases.push_back({"sinusoidal-reglu-untied",
                   "glassbox",
                   test::config([](ModelConfig& c) {
                     c.activation = Activation::ReLU;
                     c.tied_embeddings = false;
                     test::no_rope(c, PositionKind::Sinusoidal);
                   }),
                   {.qkv = true, .ffn = true}});
  return cases;
}

// Training's loss in float, with or without the gradients, against score_tokens on the same model and tokens:
// the same bits (EXPECT_EQ on doubles), token by token and as the mean. The trainer reports this loss as
// `score`'s without scoring its rows again.
void expect_scores_bits(const char* label, const ModelConfig& config, const test::Biases& biases,
                        const std::vector<std::size_t>& lengths) {
  test::RandomModel random(config, biases, 41);
  const auto model = std::make_shared<const Model>(random.model());
  auto parameters = model_parameters<float>(*model);
  ASSERT_TRUE(parameters.ok()) << label << ": " << parameters.error().message;
  std::mt19937 rng(43);
  for (std::size_t length : lengths) {
    std::vector<int> tokens(length);
    for (int& t : tokens)
      t = std::uniform_int_distribution<int>(0, config.vocab_size - 1)(rng);
    auto score = score_tokens(model, tokens);
    ASSERT_TRUE(score.ok()) << label << ": " << score.error().message;
    auto loss = model_loss(config, *parameters, tokens);
    ASSERT_TRUE(loss.ok()) << label << ": " << loss.error().message;
    EXPECT_EQ(*loss, score->loss) << label << ", " << length << " tokens";
    ModelParameters<float> gradients = zeros_like(*parameters);
    std::vector<double> log_probabilities;
    auto with_gradients =
        model_loss_and_gradients(config, *parameters, tokens, gradients, &log_probabilities);
    ASSERT_TRUE(with_gradients.ok()) << label;
    EXPECT_EQ(*with_gradients, score->loss) << label << ", " << length << " tokens";
    EXPECT_EQ(log_probabilities, score->logprobs) << label << ", " << length << " tokens";
  }
}

TEST(TrainModelGradients, FloatLossIsScoresLossBitForBitOnEveryTrainableArchitecture) {
  for (const test::Case& c : trainable_cases()) {
    const auto context = static_cast<std::size_t>(c.config.max_seq_len);
    expect_scores_bits(c.label, c.config, c.biases, {2, 3, 7, context});
  }
  // Wider than the cases' 16: whole SIMD registers and the products' tiles, with their tails (head_dim 20).
  for (const test::Case& c : trainable_cases()) {
    if (std::string(c.label) != "gpt2" && std::string(c.label) != "llama") continue;
    ModelConfig wide = c.config;
    wide.dim = 60, wide.n_heads = 3, wide.n_kv_heads = c.config.n_kv_heads == c.config.n_heads ? 3 : 1;
    wide.head_dim = 20, wide.hidden_dim = 4 * 60, wide.vocab_size = 70, wide.max_seq_len = 40;
    expect_scores_bits(c.label, wide, c.biases, {17, 40});
  }
}

TEST(TrainModelGradients, EveryTrainableArchitectureCaseAgreesWithFiniteDifferences) {
  for (const test::Case& c : trainable_cases()) {
    test::RandomModel random(c.config, c.biases, 23);
    auto parameters = model_parameters<double>(random.model());
    ASSERT_TRUE(parameters.ok()) << c.label << ": " << parameters.error().message;
    const std::vector<int> tokens = {2, 7, 1, 9, 7, 1, 4};
    std::printf("%s:\n", c.label);
    EXPECT_LT(check_sampled_gradients(c.config, *parameters, tokens, 2, 29), kTolerance) << c.label;
  }
}

// A NumPy reference fixture (tests/reference: an F32 GGUF `stem`.gguf and its logits for 8 tokens in
// `stem`.json): training's loss is the cross-entropy of the reference's own logits, and every tensor's
// sampled derivatives agree with finite differences.
void check_reference_fixture(const std::string& stem, uint32_t seed) {
  const std::string gguf = test::fixture_path(stem + ".gguf"), expected = test::fixture_path(stem + ".json");
  GLASSBOX_REQUIRE_FILE(gguf);
  GLASSBOX_REQUIRE_FILE(expected);
  auto model = load_model(gguf);
  ASSERT_TRUE(model.ok()) << model.error().message;
  const json::Document reference = test::parse_json(test::read_file(expected), expected);
  const std::vector<int> tokens = test::ints(test::member(reference, "tokens"));
  double reference_loss = 0;  // mean over t < n-1 of -log softmax(logits[t])[tokens[t+1]], in double
  const auto rows = test::items(test::member(reference, "logits"));
  for (std::size_t t = 0; t + 1 < tokens.size(); ++t) {
    const std::vector<float> logits = test::floats(rows[static_cast<rapidjson::SizeType>(t)]);
    double sum = 0;
    const double largest = *std::max_element(logits.begin(), logits.end());
    for (float l : logits)
      sum += std::exp(l - largest);
    reference_loss += largest + std::log(sum) - logits[static_cast<std::size_t>(tokens[t + 1])];
  }
  reference_loss /= static_cast<double>(tokens.size() - 1);
  auto parameters = model_parameters<double>(*model);
  ASSERT_TRUE(parameters.ok()) << parameters.error().message;
  auto loss = model_loss(model->config, *parameters, tokens);
  ASSERT_TRUE(loss.ok()) << loss.error().message;
  std::printf("NumPy reference %s: its loss %.9f, training's %.9f (difference %.2e)\n", stem.c_str(),
              reference_loss, *loss, std::abs(*loss - reference_loss));
  EXPECT_NEAR(*loss, reference_loss, 1e-5) << stem;
  EXPECT_LT(check_sampled_gradients(model->config, *parameters, tokens, 3, seed), kTolerance) << stem;
}

TEST(TrainModelGradients, TheNumPyReferencesGpt2LossAndGradients) {
  check_reference_fixture("gpt2-tiny", 31);
}

// RMSNorm pre-norm, sinusoidal positions, ReGLU with biases, GQA 4/2, untied (tests/reference/configs.py).
TEST(TrainModelGradients, TheNumPyReferencesSinusoidalModelsLossAndGradients) {
  check_reference_fixture("rmsnorm-sinusoidal-reglu", 37);
}

TEST(TrainModelGradients, SampledWeightsOfStories260KAgreeWithFiniteDifferences) {
  REQUIRE_STORIES();
  auto parameters = model_parameters<double>(*stories.model);
  ASSERT_TRUE(parameters.ok()) << parameters.error().message;
  std::vector<int> tokens = stories.tokenizer->encode_prompt(test::kStoriesText);
  tokens.resize(12);  // a short text keeps the ~100 forward passes of the check quick
  EXPECT_LT(check_sampled_gradients(stories.model->config, *parameters, tokens, 1, 13), kTolerance);
}

TEST(TrainModelGradients, RejectsWhatItCannotTrain) {
  ModelConfig c = test::base_config();
  test::RandomModel llama(c, {}, 1);
  auto parameters = model_parameters<float>(llama.model());
  ASSERT_TRUE(parameters.ok());
  const std::vector<int> one = {3};
  EXPECT_EQ(model_loss(c, *parameters, one).error().code, ErrorCode::BadArgument);
  const std::vector<int> outside = {3, c.vocab_size};
  EXPECT_EQ(model_loss(c, *parameters, outside).error().code, ErrorCode::BadArgument);
  const std::vector<int> too_long(static_cast<std::size_t>(c.max_seq_len) + 1, 1);
  EXPECT_EQ(model_loss(c, *parameters, too_long).error().code, ErrorCode::PromptTooLong);

  for (const test::Case& other : test::architecture_cases()) {
    test::RandomModel model(other.config, other.biases, 1);
    auto parameters_of = model_parameters<float>(model.model());
    EXPECT_EQ(parameters_of.ok(), kTrainableCases.count(other.label) == 1) << other.label;
    if (!parameters_of.ok()) {
      EXPECT_EQ(parameters_of.error().code, ErrorCode::UnsupportedArchitecture) << other.label;
    }
  }
  // RMSNorm's bias the forward pass ignores: not a weight to train.
  test::RandomModel rms_bias(c, {.norm = true}, 1);
  auto rejected = model_parameters<float>(rms_bias.model());
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.error().code, ErrorCode::UnsupportedArchitecture);
}

}  // namespace
}  // namespace glassbox::train
