// Head roles from hand-built attention patterns: each textbook pattern gets its label.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "glassbox/head_roles.hpp"

namespace glassbox {
namespace {

// Statistics of an n-row causal pattern whose row q is weights(q) (q + 1 values).
template <class Weights>
HeadStats stats_of(int n, Weights weights) {
  HeadStatsAccumulator acc;
  for (int q = 0; q < n; ++q) {
    std::vector<float> row(static_cast<std::size_t>(q) + 1, 0.0f);
    weights(q, row);
    acc.add(row);
  }
  return acc.mean();
}

constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

TEST(HeadRoles, APurePreviousTokenPatternIsPreviousToken) {
  const HeadStats s = stats_of(64, [](int q, std::vector<float>& row) { row[q > 0 ? q - 1 : 0] = 1.0f; });
  EXPECT_EQ(classify_head(s, 0.0), HeadRole::PreviousToken);
}

TEST(HeadRoles, AllWeightOnTheFirstTokenIsASink) {
  const HeadStats s = stats_of(64, [](int, std::vector<float>& row) { row[0] = 1.0f; });
  EXPECT_EQ(classify_head(s, kNotMeasured), HeadRole::Sink);
}

TEST(HeadRoles, AnInductionScoreOutranksTheSinkItShowsOnText) {
  const HeadStats s = stats_of(64, [](int, std::vector<float>& row) { row[0] = 1.0f; });
  EXPECT_EQ(classify_head(s, 0.9), HeadRole::Induction);
  EXPECT_EQ(classify_head(s, kInductionThreshold - 0.01), HeadRole::Sink);
}

TEST(HeadRoles, EvenWeightOnTheLastFourKeysIsLocal) {
  const HeadStats s = stats_of(64, [](int q, std::vector<float>& row) {
    const int keys = std::min(q + 1, kLocalWindow);
    for (int k = q + 1 - keys; k <= q; ++k)
      row[static_cast<std::size_t>(k)] = 1.0f / static_cast<float>(keys);
  });
  EXPECT_NEAR(s.local, 1.0, 1e-6);
  EXPECT_LT(s.previous, kPreviousTokenThreshold);
  EXPECT_EQ(classify_head(s, 0.0), HeadRole::Local);
}

TEST(HeadRoles, UniformAttentionIsBroadWithEntropyLog2N) {
  const int n = 64;
  const HeadStats s = stats_of(n, [](int q, std::vector<float>& row) {
    for (float& p : row)
      p = 1.0f / static_cast<float>(q + 1);
  });
  double mean_log2 = 0;
  for (int q = 0; q < n; ++q)
    mean_log2 += std::log2(q + 1.0);
  mean_log2 /= n;
  EXPECT_NEAR(s.entropy_bits, mean_log2, 1e-5);
  EXPECT_NEAR(s.uniform_entropy_bits, mean_log2, 1e-12);
  EXPECT_EQ(classify_head(s, 0.0), HeadRole::Broad);
}

TEST(HeadRoles, HalfOnTheFirstHalfOnSelfIsMixed) {
  // sink 0.5 - a bit, previous about 0, local 0.5, entropy 1 bit of about 5 possible.
  const HeadStats s = stats_of(64, [](int q, std::vector<float>& row) {
    row[0] += 0.45f;
    row[static_cast<std::size_t>(q)] += 0.55f;
  });
  EXPECT_EQ(classify_head(s, 0.0), HeadRole::Mixed);
}

TEST(HeadRoles, NamesAreStableAndCountsAddUp) {
  EXPECT_EQ(std::string(to_string(HeadRole::Sink)), "sink");
  EXPECT_EQ(std::string(to_string(HeadRole::PreviousToken)), "previous-token");
  EXPECT_EQ(std::string(to_string(HeadRole::Induction)), "induction");
  EXPECT_EQ(std::string(to_string(HeadRole::Local)), "local");
  EXPECT_EQ(std::string(to_string(HeadRole::Broad)), "broad");
  EXPECT_EQ(std::string(to_string(HeadRole::Mixed)), "mixed");
  const std::vector<HeadRole> roles = {HeadRole::Sink, HeadRole::Mixed, HeadRole::Sink, HeadRole::Induction};
  const RoleCounts counts = count_roles(roles);
  EXPECT_EQ(counts[HeadRole::Sink], 2);
  EXPECT_EQ(counts[HeadRole::Mixed], 1);
  EXPECT_EQ(counts[HeadRole::Induction], 1);
  EXPECT_EQ(counts[HeadRole::Broad], 0);
}

}  // namespace
}  // namespace glassbox
