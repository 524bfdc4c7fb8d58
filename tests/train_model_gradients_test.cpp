// A whole Llama model's loss and gradients (train/llama_gradients.hpp): the loss is score_tokens' loss on
// stories260K (training's step 0 scores a text as `glassbox score` does), and the derivative by sampled
// weights of every tensor matches central finite differences of the loss, in double, on tiny random Llamas
// (tied and untied classifier, GQA, both RoPE pairings) and on stories260K.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "glassbox/score.hpp"
#include "random_models.hpp"
#include "stories_model.hpp"
#include "train/llama_gradients.hpp"
#include "train_gradient_check.hpp"

namespace glassbox::train {
namespace {

constexpr double kTolerance = 1e-6;  // on the largest relative error (tests/train_gradient_check.hpp)

// The derivative by `samples` random elements of each tensor, analytic against finite differences; returns
// the largest relative error over all of them and prints each tensor's.
double check_sampled_gradients(const ModelConfig& config, LlamaParameters<double> parameters,
                               const std::vector<int>& tokens, int samples, uint32_t seed) {
  LlamaParameters<double> gradients = zeros_like(parameters);
  auto loss_and_gradients = llama_loss_and_gradients(config, parameters, tokens, gradients);
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
        return *llama_loss(config, parameters, tokens);
      };
      const double numeric =
          (loss_at(saved + test::kFiniteDifferenceStep) - loss_at(saved - test::kFiniteDifferenceStep)) /
          (2 * test::kFiniteDifferenceStep);
      weights[i] = saved;
      worst_here = std::max(worst_here, test::max_relative_error({g[i]}, {numeric}));
    }
    std::printf("gradient check %-22s max relative error %.2e\n", name.c_str(), worst_here);
    worst = std::max(worst, worst_here);
  });
  return worst;
}

TEST(TrainModelGradients, StepZeroLossIsScoresLossOnStories260K) {
  REQUIRE_STORIES();
  const std::vector<int> tokens = stories.tokenizer->encode_prompt(test::kStoriesText);
  auto score = score_tokens(stories.model, tokens);
  ASSERT_TRUE(score.ok()) << score.error().message;
  auto parameters = llama_parameters<float>(*stories.model);
  ASSERT_TRUE(parameters.ok()) << parameters.error().message;
  auto loss = llama_loss(stories.model->config, *parameters, tokens);
  ASSERT_TRUE(loss.ok()) << loss.error().message;
  std::printf("stories260K: score's loss %.9f, training's step-0 loss %.9f\n", score->loss, *loss);
  EXPECT_NEAR(*loss, score->loss, 1e-5);
  // The gradient pass gives the same loss as the forward pass alone.
  LlamaParameters<float> gradients = zeros_like(*parameters);
  auto with_gradients = llama_loss_and_gradients(stories.model->config, *parameters, tokens, gradients);
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
      auto parameters = llama_parameters<double>(random.model());
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

TEST(TrainModelGradients, SampledWeightsOfStories260KAgreeWithFiniteDifferences) {
  REQUIRE_STORIES();
  auto parameters = llama_parameters<double>(*stories.model);
  ASSERT_TRUE(parameters.ok()) << parameters.error().message;
  std::vector<int> tokens = stories.tokenizer->encode_prompt(test::kStoriesText);
  tokens.resize(12);  // a short text keeps the ~100 forward passes of the check quick
  EXPECT_LT(check_sampled_gradients(stories.model->config, *parameters, tokens, 1, 13), kTolerance);
}

TEST(TrainModelGradients, RejectsWhatItCannotTrain) {
  ModelConfig c = test::base_config();
  test::RandomModel llama(c, {}, 1);
  auto parameters = llama_parameters<float>(llama.model());
  ASSERT_TRUE(parameters.ok());
  const std::vector<int> one = {3};
  EXPECT_EQ(llama_loss(c, *parameters, one).error().code, ErrorCode::BadArgument);
  const std::vector<int> outside = {3, c.vocab_size};
  EXPECT_EQ(llama_loss(c, *parameters, outside).error().code, ErrorCode::BadArgument);
  const std::vector<int> too_long(static_cast<std::size_t>(c.max_seq_len) + 1, 1);
  EXPECT_EQ(llama_loss(c, *parameters, too_long).error().code, ErrorCode::PromptTooLong);

  for (const test::Case& other : test::architecture_cases()) {
    const std::string label = other.label;
    if (label == "llama" || label == "adjacent-partial-rope") continue;  // trainable
    test::RandomModel model(other.config, other.biases, 1);
    auto rejected = llama_parameters<float>(model.model());
    EXPECT_FALSE(rejected.ok()) << other.label;
  }
  test::RandomModel with_biases(c, {.qkv = true}, 1);
  auto rejected = llama_parameters<float>(with_biases.model());
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.error().code, ErrorCode::UnsupportedArchitecture);
}

}  // namespace
}  // namespace glassbox::train
