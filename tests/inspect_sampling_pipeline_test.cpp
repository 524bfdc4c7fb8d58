// The sampling pipeline view against the sampler it explains: the same candidates with the same bits, and the
// cut-offs where a hand calculation puts them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "glassbox/sampling_pipeline.hpp"

namespace glassbox {
namespace {

// The pipeline's final column, as the sampler's candidate list (most likely first).
std::vector<Sampler::Candidate> final_candidates(const SamplingPipeline& p) {
  std::vector<Sampler::Candidate> out;
  for (const PipelineToken& t : p.tokens)
    if (t.kept_by_top_p) out.push_back({t.id, t.p_top_p});
  return out;
}

void expect_same(std::vector<Sampler::Candidate> a, std::vector<Sampler::Candidate> b) {
  // The sampler keeps id order when no cut is active; compare as sets in id order.
  auto by_id = [](const Sampler::Candidate& x, const Sampler::Candidate& y) { return x.id < y.id; };
  std::sort(a.begin(), a.end(), by_id);
  std::sort(b.begin(), b.end(), by_id);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].probability, b[i].probability) << "id " << a[i].id;  // bit for bit
  }
}

TEST(SamplingPipeline, CutsFallWhereAHandCalculationPutsThem) {
  // Softmax of {2, 1, 0, -1, 3}: id 4 0.6364, id 0 0.2341, id 1 0.0861, id 2 0.0317, id 3 0.0117.
  // Top-k 3 keeps {4, 0, 1} (mass 0.9566); top-p 0.8 of that is 0.7653, reached by 4 then 0 (0.8705).
  const std::vector<float> logits = {2, 1, 0, -1, 3};
  const SamplerSettings settings{.temperature = 1.0f, .top_k = 3, .top_p = 0.8f};
  const SamplingPipeline p = sampling_pipeline(logits, settings, 5);
  EXPECT_EQ(p.vocab_size, 5);
  EXPECT_EQ(p.top_k_kept, 3);
  EXPECT_EQ(p.top_p_kept, 2);
  ASSERT_EQ(p.tokens.size(), 5u);
  const std::vector<int> by_logit = {4, 0, 1, 2, 3};
  const double z = 1 + std::exp(-1.0) + std::exp(-2.0) + std::exp(-3.0) + std::exp(-4.0);
  for (std::size_t i = 0; i < 5; ++i) {
    const PipelineToken& t = p.tokens[i];
    EXPECT_EQ(t.id, by_logit[i]);
    EXPECT_NEAR(t.p_temperature_1, std::exp(logits[t.id] - 3.0) / z, 1e-6);
    EXPECT_EQ(t.p_temperature, t.p_temperature_1);  // temperature 1
    EXPECT_EQ(t.kept_by_top_k, i < 3);
    EXPECT_EQ(t.kept_by_top_p, i < 2);
  }
  const double top3 = (1 + std::exp(-1.0) + std::exp(-2.0)) / z, top2 = (1 + std::exp(-1.0)) / z;
  EXPECT_NEAR(p.tokens[0].p_top_k, (1 / z) / top3, 1e-6);
  EXPECT_NEAR(p.tokens[2].p_top_k, (std::exp(-2.0) / z) / top3, 1e-6);
  EXPECT_EQ(p.tokens[3].p_top_k, 0.0f);
  EXPECT_NEAR(p.tokens[0].p_top_p, (1 / z) / top2, 1e-6);
  EXPECT_NEAR(p.tokens[1].p_top_p, (std::exp(-1.0) / z) / top2, 1e-6);
  EXPECT_EQ(p.tokens[2].p_top_p, 0.0f);
  expect_same(final_candidates(p), Sampler(settings).candidates(logits));
}

TEST(SamplingPipeline, TemperatureFlattensBeforeTheCuts) {
  const std::vector<float> logits = {2, 1, 0, -1, 3};
  const SamplingPipeline p = sampling_pipeline(logits, {.temperature = 2.0f, .top_k = 0, .top_p = 1.0f}, 2);
  ASSERT_EQ(p.tokens.size(), 2u);  // only the top 2 shown
  const double z = 1 + std::exp(-0.5) + std::exp(-1.0) + std::exp(-1.5) + std::exp(-2.0);
  EXPECT_NEAR(p.tokens[0].p_temperature, 1 / z, 1e-6);
  EXPECT_LT(p.tokens[0].p_temperature, p.tokens[0].p_temperature_1);
  EXPECT_EQ(p.top_k_kept, 5);  // both cuts off: everything survives
  EXPECT_EQ(p.top_p_kept, 5);
  EXPECT_EQ(p.tokens[1].p_top_k, p.tokens[1].p_temperature);
  EXPECT_TRUE(p.tokens[1].kept_by_top_p);
}

TEST(SamplingPipeline, GreedyPutsAllMassOnTheArgmax) {
  const std::vector<float> logits = {0.5f, 4, 4, 1};  // a tie: the lower id wins, as argmax() picks
  const SamplingPipeline p = sampling_pipeline(logits, {.temperature = 0.0f}, 4);
  EXPECT_EQ(p.top_k_kept, 1);
  EXPECT_EQ(p.top_p_kept, 1);
  ASSERT_EQ(p.tokens[0].id, 1);
  EXPECT_EQ(p.tokens[0].p_top_p, 1.0f);
  EXPECT_EQ(p.tokens[1].id, 2);
  EXPECT_EQ(p.tokens[1].p_temperature, 0.0f);
  EXPECT_FALSE(p.tokens[1].kept_by_top_k);
  EXPECT_GT(p.tokens[1].p_temperature_1, 0.4f);  // the untempered view still shows the tie
  expect_same(final_candidates(p), Sampler({.temperature = 0.0f}).candidates(logits));
}

TEST(SamplingPipeline, AgreesWithTheSamplerBitForBitOnRandomLogitsAndSettings) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  const float temperatures[] = {0.0f, 0.3f, 1.0f, 1.7f};
  const int top_ks[] = {0, 1, 5, 40, 200};
  const float top_ps[] = {1.0f, 0.95f, 0.5f, 0.01f};
  for (int vocab : {1, 2, 37, 150}) {
    std::vector<float> logits(static_cast<std::size_t>(vocab));
    for (float& l : logits)
      l = normal(rng);
    for (float t : temperatures)
      for (int k : top_ks)
        for (float top_p : top_ps) {
          const SamplerSettings s{.temperature = t, .top_k = k, .top_p = top_p};
          SCOPED_TRACE(testing::Message() << "vocab " << vocab << " T " << t << " k " << k << " p " << top_p);
          const SamplingPipeline p = sampling_pipeline(logits, s, vocab);  // every token shown
          const std::vector<Sampler::Candidate> expected = Sampler(s).candidates(logits);
          expect_same(final_candidates(p), expected);
          EXPECT_EQ(p.top_p_kept, static_cast<int>(expected.size()));
          EXPECT_LE(p.top_p_kept, p.top_k_kept);
          if (k > 0 && k < vocab && t > 0) {
            EXPECT_EQ(p.top_k_kept, k);
          }
        }
  }
}

TEST(SamplingPipeline, EmptyLogitsGiveAnEmptyPipeline) {
  const SamplingPipeline p = sampling_pipeline({}, SamplerSettings{}, 5);
  EXPECT_TRUE(p.tokens.empty());
  EXPECT_EQ(p.vocab_size, 0);
}

}  // namespace
}  // namespace glassbox
