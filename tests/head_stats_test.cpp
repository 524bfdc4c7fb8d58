// Head statistics on hand-built rows whose answers are known.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "glassbox/head_stats.hpp"

namespace glassbox {
namespace {

TEST(HeadStats, UniformRowsOverNKeysHaveEntropyLog2N) {
  HeadStatsAccumulator acc;
  std::vector<float> row(8, 1.0f / 8);
  acc.add(row);
  EXPECT_NEAR(acc.mean().entropy_bits, 3.0, 1e-6);
  EXPECT_NEAR(acc.mean().sink, 0.125, 1e-7);
  EXPECT_NEAR(acc.mean().previous, 0.125, 1e-7);
}

TEST(HeadStats, APurePreviousTokenPatternScoresOne) {
  HeadStatsAccumulator acc;
  for (int q = 1; q < 10; ++q) {
    std::vector<float> row(static_cast<std::size_t>(q) + 1, 0.0f);
    row[static_cast<std::size_t>(q) - 1] = 1.0f;
    acc.add(row);
  }
  EXPECT_EQ(acc.mean().previous, 1.0);
  EXPECT_EQ(acc.mean().entropy_bits, 0.0);
  EXPECT_NEAR(acc.mean().sink, 1.0 / 9, 1e-12);  // only query 1's previous token is the first token
}

TEST(HeadStats, ASinkPutsEverythingOnTheFirstToken) {
  HeadStatsAccumulator acc;
  for (int q = 0; q < 5; ++q) {
    std::vector<float> row(static_cast<std::size_t>(q) + 1, 0.0f);
    row[0] = 1.0f;
    acc.add(row);
  }
  EXPECT_EQ(acc.mean().sink, 1.0);
  EXPECT_NEAR(acc.mean().previous, 0.25, 1e-12);  // query 1 of the four with a previous token
}

TEST(HeadStats, LocalIsTheWeightOnTheLastFourKeys) {
  HeadStatsAccumulator acc;
  acc.add(std::vector<float>{0.5f, 0.1f, 0.1f, 0.1f, 0.2f});  // keys 1..4: 0.5
  acc.add(std::vector<float>{0.25f, 0.75f});                  // shorter than the window: all of it
  EXPECT_NEAR(acc.mean().local, 0.75, 1e-7);
  EXPECT_NEAR(acc.mean().uniform_entropy_bits, (std::log2(5.0) + 1.0) / 2, 1e-12);
}

TEST(HeadStats, NoRowsGiveZeros) {
  const HeadStats s = HeadStatsAccumulator().mean();
  EXPECT_EQ(s.entropy_bits, 0.0);
  EXPECT_EQ(s.sink, 0.0);
  EXPECT_EQ(s.previous, 0.0);
  EXPECT_EQ(s.local, 0.0);
  EXPECT_EQ(s.uniform_entropy_bits, 0.0);
}

}  // namespace
}  // namespace glassbox
