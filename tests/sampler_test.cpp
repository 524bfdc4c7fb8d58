// Samplers: greedy, temperature, top-k, top-p on hand-made distributions, and seeded reproducibility.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "glassbox/sampler.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

// Logits whose softmax (at temperature 1) is exactly the given probabilities.
std::vector<float> logits_for(const std::vector<float>& probabilities) {
  std::vector<float> logits;
  for (float p : probabilities)
    logits.push_back(std::log(p));
  return logits;
}

std::set<int> candidate_ids(const Sampler& s, const std::vector<float>& logits) {
  std::set<int> ids;
  for (const auto& c : s.candidates(logits))
    ids.insert(c.id);
  return ids;
}

TEST(Sampler, GreedyPicksTheLargestLogit) {
  Sampler s({.temperature = 0.0f});
  EXPECT_EQ(s.sample(std::vector<float>{0.1f, 3.0f, -2.0f, 2.9f}), 1);
  EXPECT_EQ(s.sample(std::vector<float>{5.0f}), 0);
}

TEST(Sampler, TopPKeepsExactlyTheSmallestPrefixReachingP) {
  // Sorted: 0.4 (id 2), 0.3 (id 0), 0.2 (id 3), 0.1 (id 1).
  const auto logits = logits_for({0.3f, 0.1f, 0.4f, 0.2f});
  auto kept = [&](float p) { return candidate_ids(Sampler({.temperature = 1.0f, .top_p = p}), logits); };
  EXPECT_EQ(kept(0.35f), (std::set<int>{2}));           // 0.4 already reaches 0.35
  EXPECT_EQ(kept(0.4f), (std::set<int>{2}));            // exactly reaching p is enough
  EXPECT_EQ(kept(0.5f), (std::set<int>{2, 0}));         // 0.4 < 0.5 <= 0.7
  EXPECT_EQ(kept(0.75f), (std::set<int>{2, 0, 3}));     // 0.7 < 0.75 <= 0.9
  EXPECT_EQ(kept(0.95f), (std::set<int>{2, 0, 3, 1}));  // needs everything
}

TEST(Sampler, TopPOfTinyPStillKeepsTheMostLikelyToken) {
  const auto logits = logits_for(std::vector<float>(512, 1.0f / 512));
  const auto kept = Sampler({.temperature = 1.0f, .top_p = 1e-4f}).candidates(logits);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_FLOAT_EQ(kept[0].probability, 1.0f);
}

TEST(Sampler, TopKKeepsTheKMostLikelyAndRenormalizes) {
  const auto logits = logits_for({0.3f, 0.1f, 0.4f, 0.2f});
  const auto kept = Sampler({.temperature = 1.0f, .top_k = 2}).candidates(logits);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].id, 2);
  EXPECT_EQ(kept[1].id, 0);
  EXPECT_NEAR(kept[0].probability, 0.4f / 0.7f, 1e-6f);
  EXPECT_NEAR(kept[1].probability, 0.3f / 0.7f, 1e-6f);
}

TEST(Sampler, SamplesOnlyFromTheCandidatesAndRoughlyInProportion) {
  const auto logits = logits_for({0.3f, 0.1f, 0.4f, 0.2f});
  Sampler s({.temperature = 1.0f, .top_k = 3, .seed = 7});
  std::map<int, int> counts;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i)
    ++counts[s.sample(logits)];
  EXPECT_EQ(counts.count(1), 0u) << "id 1 is outside the top 3";
  EXPECT_NEAR(counts[2] / double(draws), 0.4 / 0.9, 0.02);
  EXPECT_NEAR(counts[0] / double(draws), 0.3 / 0.9, 0.02);
  EXPECT_NEAR(counts[3] / double(draws), 0.2 / 0.9, 0.02);
}

TEST(Sampler, TemperatureSharpensAndFlattens) {
  const auto logits = logits_for({0.6f, 0.4f});
  const float cold = Sampler({.temperature = 0.5f}).candidates(logits)[0].probability;
  const float hot = Sampler({.temperature = 2.0f}).candidates(logits)[0].probability;
  EXPECT_NEAR(cold, 0.36f / (0.36f + 0.16f), 1e-5f);  // p^(1/T), renormalized
  EXPECT_LT(hot, 0.6f);
  EXPECT_GT(hot, 0.5f);
}

TEST(Sampler, TopPRenormalizesTheNucleus) {
  const auto kept =
      Sampler({.temperature = 1.0f, .top_p = 0.75f}).candidates(logits_for({0.3f, 0.1f, 0.4f, 0.2f}));
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_NEAR(kept[0].probability, 0.4f / 0.9f, 1e-6f);
  EXPECT_NEAR(kept[1].probability, 0.3f / 0.9f, 1e-6f);
  EXPECT_NEAR(kept[2].probability, 0.2f / 0.9f, 1e-6f);
}

TEST(Sampler, ATemperatureNearZeroIsTheGreedyLimit) {
  // 1 / 1e-40 is infinite in float; the sampler must still see the best token with probability 1, never NaN.
  const std::vector<float> logits = {0.1f, 3.0f, -2.0f, 2.9f, -INFINITY};
  for (float t : {1e-3f, 1e-20f, 1e-40f, 1e-45f}) {
    for (SamplerSettings settings :
         {SamplerSettings{.temperature = t}, SamplerSettings{.temperature = t, .top_k = 2},
          SamplerSettings{.temperature = t, .top_p = 0.9f}}) {
      Sampler s(settings);
      // Without a cut the candidates stay in id order, so look the best token up by id.
      float best = 0.0f, rest = 0.0f;
      for (const auto& c : s.candidates(logits)) {
        EXPECT_FALSE(std::isnan(c.probability)) << "temperature " << t;
        (c.id == 1 ? best : rest) += c.probability;
      }
      EXPECT_FLOAT_EQ(best, 1.0f) << "temperature " << t;
      EXPECT_EQ(rest, 0.0f) << "temperature " << t;
      for (int i = 0; i < 20; ++i)
        EXPECT_EQ(s.sample(logits), 1) << "temperature " << t;
    }
  }
}

std::vector<int> draw(uint64_t seed, int n) {
  std::vector<float> logits(50);
  for (int i = 0; i < 50; ++i)
    logits[static_cast<std::size_t>(i)] = std::sin(i * 1.7f);
  Sampler s({.temperature = 1.0f, .top_p = 0.95f, .seed = seed});
  std::vector<int> out;
  for (int i = 0; i < n; ++i)
    out.push_back(s.sample(logits));
  return out;
}

TEST(Sampler, SameSeedSameTokens) {
  EXPECT_EQ(draw(42, 64), draw(42, 64));
}
TEST(Sampler, DifferentSeedsDiffer) {
  EXPECT_NE(draw(42, 64), draw(43, 64));
}

TEST(Sampler, RngIsTheXorshiftOfLlama2c) {
  // First values of llama2.c's random_u32 from state 42, computed by hand from its definition.
  Rng rng(42);
  uint64_t state = 42;
  for (int i = 0; i < 5; ++i) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    EXPECT_EQ(rng.next_u32(), static_cast<uint32_t>((state * 0x2545F4914F6CDD1Dull) >> 32));
  }
}

TEST(Sampler, ValidatesSettings) {
  test::expect_error(validate(SamplerSettings{.temperature = -1.0f}), ErrorCode::BadArgument);
  test::expect_error(validate(SamplerSettings{.temperature = NAN}), ErrorCode::BadArgument);
  test::expect_error(validate(SamplerSettings{.top_k = -1}), ErrorCode::BadArgument);
  test::expect_error(validate(SamplerSettings{.top_p = 0.0f}), ErrorCode::BadArgument);
  test::expect_error(validate(SamplerSettings{.top_p = 1.5f}), ErrorCode::BadArgument);
  EXPECT_TRUE(validate(SamplerSettings{.temperature = 0.0f, .top_k = 40, .top_p = 0.9f}).ok());
  test::expect_error(validate(SamplerSettings{.top_p = 2.0f}), ErrorCode::BadArgument,
                     "top-p must be in (0, 1]");
}

}  // namespace
}  // namespace glassbox
