// ALiBi (glassbox/positions.hpp's alibi_slope, model/layer_steps.hpp's ScoreBias): the slopes against the
// paper's formula, and the biased attention probabilities against a plain double-precision softmax.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "glassbox/positions.hpp"
#include "model/layer_steps.hpp"
#include "random_models.hpp"

namespace glassbox {
namespace {

ModelConfig alibi_config(int n_heads, float max_bias = 8.0f) {
  ModelConfig c = test::base_config();
  c.position = PositionKind::ALiBi;
  c.n_heads = n_heads;
  c.alibi_max_bias = max_bias;
  return c;
}

TEST(Alibi, EightHeadsHaveSlopesOneHalfToOneOver256) {
  const ModelConfig c = alibi_config(8);
  for (int h = 0; h < 8; ++h)
    EXPECT_EQ(alibi_slope(c, h), std::ldexp(1.0f, -(h + 1))) << "head " << h;  // 2^(-8 (h+1) / 8), exact
}

TEST(Alibi, AMaxBiasOtherThan8ScalesTheExponents) {
  const ModelConfig c = alibi_config(8, 4.0f);
  for (int h = 0; h < 8; ++h)
    EXPECT_NEAR(alibi_slope(c, h), std::pow(2.0, -4.0 * (h + 1) / 8), 1e-7) << "head " << h;
}

// 12 heads (not a power of two): the 8 slopes of 8 heads, then the odd-numbered slopes of 16 heads.
TEST(Alibi, TwelveHeadsTakeEightSlopesThenTheOddOnesOfSixteen) {
  const ModelConfig c = alibi_config(12);
  std::vector<double> expected;
  for (int i = 1; i <= 8; ++i)
    expected.push_back(std::pow(2.0, -8.0 * i / 8));
  for (int i = 1; i <= 7; i += 2)
    expected.push_back(std::pow(2.0, -8.0 * i / 16));  // 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5
  // Within a few float roundings: llama.cpp's form raises a rounded base to the power (2^-0.5)^7.
  for (int h = 0; h < 12; ++h)
    EXPECT_NEAR(alibi_slope(c, h), expected[static_cast<std::size_t>(h)], 1e-6 * expected[h]) << "head " << h;
}

TEST(Alibi, OnlyAnAlibiModelBiasesItsScores) {
  ModelConfig c = alibi_config(4);
  EXPECT_EQ(score_bias(c, 1, 7).slope, 0.0625f);  // 2^(-8 * 2 / 4)
  c.position = PositionKind::RoPE;
  EXPECT_EQ(score_bias(c, 1, 7).slope, 0.0f);
}

// softmax_j(q·k_j / sqrt(d) - slope |query - j|) over keys first..n-1, in double: the scalar reference.
std::vector<double> reference_probabilities(const std::vector<float>& q, const std::vector<float>& keys,
                                            std::size_t d, std::size_t first, std::size_t n, double slope,
                                            std::size_t query) {
  std::vector<double> p(n, 0.0);
  double largest = -INFINITY, sum = 0;
  for (std::size_t j = first; j < n; ++j) {
    double dot = 0;
    for (std::size_t i = 0; i < d; ++i)
      dot += static_cast<double>(q[i]) * keys[j * d + i];
    const double distance = j > query ? static_cast<double>(j - query) : static_cast<double>(query - j);
    p[j] = dot / std::sqrt(static_cast<double>(d)) - slope * distance;
    largest = std::max(largest, p[j]);
  }
  for (std::size_t j = first; j < n; ++j)
    sum += p[j] = std::exp(p[j] - largest);
  for (std::size_t j = first; j < n; ++j)
    p[j] /= sum;
  return p;
}

// The bias as the forward pass adds it: a causal query (every key before it), a sliding one (first key 3),
// and an encoder's query in the middle of its text (keys after it are as far as those before).
TEST(Alibi, BiasedProbabilitiesAreTheScalarReference) {
  const ModelConfig c = alibi_config(4);
  constexpr std::size_t d = 8, n = 12;
  std::mt19937 rng(29);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> q(d), keys(n * d);
  for (float& v : q)
    v = normal(rng);
  for (float& v : keys)
    v = normal(rng);
  struct Query {
    std::size_t row, first_key, n_keys;
  };
  for (const Query query : {Query{11, 0, 12}, Query{11, 3, 12}, Query{5, 0, 12}}) {
    for (std::size_t head = 0; head < 4; ++head) {
      const ScoreBias bias = score_bias(c, head, query.row);
      std::vector<float> ours(query.n_keys);
      attention_probabilities(ours.data(), q.data(), keys.data(), d, query.first_key, query.n_keys, d, bias);
      const std::vector<double> expected =
          reference_probabilities(q, keys, d, query.first_key, query.n_keys, bias.slope, query.row);
      for (std::size_t j = 0; j < query.n_keys; ++j)
        EXPECT_NEAR(ours[j], expected[j], 1e-6) << "query " << query.row << " head " << head << " key " << j;
    }
  }
}

TEST(Alibi, AMaxBiasThatIsNotAPositiveNumberIsRefused) {
  ModelConfig c = alibi_config(4, 0.0f);
  c.dim = 16;
  auto checked = validate(c, "m.gguf");
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.error().message.find("ALiBi's max bias"), std::string::npos) << checked.error().message;
  c.alibi_max_bias = NAN;
  EXPECT_FALSE(validate(c, "m.gguf"));
  c.alibi_max_bias = 8.0f;
  EXPECT_TRUE(validate(c, "m.gguf"));
}

}  // namespace
}  // namespace glassbox
