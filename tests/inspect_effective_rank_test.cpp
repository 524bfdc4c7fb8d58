// Effective rank (seed 002 §3.2) and the Jacobi SVD under it, on matrices whose singular values are known.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "glassbox/effective_rank.hpp"

namespace glassbox {
namespace {

std::vector<float> identity(int n) {
  std::vector<float> m(static_cast<std::size_t>(n) * n, 0.0f);
  for (int i = 0; i < n; ++i)
    m[static_cast<std::size_t>(i) * n + i] = 1.0f;
  return m;
}

TEST(EffectiveRank, IdentityBelow100HasFullRank) {
  for (int n : {1, 2, 7, 64, 99})
    EXPECT_EQ(effective_rank(identity(n), n), n) << n;
}

TEST(EffectiveRank, IdentityFrom100LosesOneToTheThreshold) {
  // k / n >= 0.99 first holds at k = ceil(0.99 n): 99 of 100, 149 of 150.
  EXPECT_EQ(effective_rank(identity(100), 100), 99);
  EXPECT_EQ(effective_rank(identity(150), 150), 149);
}

TEST(EffectiveRank, EqualRowsHaveRankOne) {
  // Every query reads the same blend of keys (not causal, but a valid row-stochastic matrix): rank 1.
  const int n = 32;
  std::vector<float> m(static_cast<std::size_t>(n) * n);
  for (int q = 0; q < n; ++q)
    for (int k = 0; k < n; ++k)
      m[static_cast<std::size_t>(q) * n + k] = static_cast<float>(k + 1) / (n * (n + 1) / 2.0f);
  EXPECT_EQ(effective_rank(m, n), 1);
  const std::vector<double> s = singular_values(m, n, n);
  EXPECT_LT(s[1], 1e-6 * s[0]);
}

TEST(EffectiveRank, ASinkHeadHasRankOne) {
  // All weight on key 0: a causal attention matrix of rank 1.
  const int n = 20;
  std::vector<float> m(static_cast<std::size_t>(n) * n, 0.0f);
  for (int q = 0; q < n; ++q)
    m[static_cast<std::size_t>(q) * n] = 1.0f;
  EXPECT_EQ(effective_rank(m, n), 1);
}

TEST(SingularValues, DiagonalGivesItsAbsoluteEntriesSorted) {
  const std::vector<float> m = {0.5f, 0, 0, 0, -3.0f, 0, 0, 0, 2.0f};
  const std::vector<double> s = singular_values(m, 3, 3);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NEAR(s[0], 3.0, 1e-12);
  EXPECT_NEAR(s[1], 2.0, 1e-12);
  EXPECT_NEAR(s[2], 0.5, 1e-12);
}

TEST(SingularValues, ATwoByTwoMatchesTheClosedForm) {
  // [[3, 0], [4, 5]]: sigma^2 are the eigenvalues of A^T A = [[25, 20], [20, 25]], that is 45 and 5.
  const std::vector<float> m = {3, 0, 4, 5};
  const std::vector<double> s = singular_values(m, 2, 2);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NEAR(s[0], std::sqrt(45.0), 1e-12);
  EXPECT_NEAR(s[1], std::sqrt(5.0), 1e-12);
}

TEST(SingularValues, ARectangularMatrixHasMinDimensionValues) {
  // [[1, 1, 0], [0, 0, 2]]^T and itself: rows orthogonal with norms sqrt 2 and 2.
  const std::vector<float> wide = {1, 1, 0, 0, 0, 2};
  const std::vector<float> tall = {1, 0, 1, 0, 0, 2};
  for (const auto& [m, rows, cols] : {std::tuple{wide, 2, 3}, std::tuple{tall, 3, 2}}) {
    const std::vector<double> s = singular_values(m, rows, cols);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_NEAR(s[0], 2.0, 1e-12);
    EXPECT_NEAR(s[1], std::sqrt(2.0), 1e-12);
  }
}

TEST(SingularValues, TheirSquaresSumToTheFrobeniusNormOnARandomAttentionMatrix) {
  // Rotations keep the Frobenius norm, so a lost or doubled value shows here.
  const int n = 48;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> m(static_cast<std::size_t>(n) * n, 0.0f);
  double frobenius = 0;
  for (int q = 0; q < n; ++q) {
    float sum = 0;
    for (int k = 0; k <= q; ++k)
      sum += m[static_cast<std::size_t>(q) * n + k] = std::exp(normal(rng));
    for (int k = 0; k <= q; ++k) {
      float& p = m[static_cast<std::size_t>(q) * n + k];
      p /= sum;
      frobenius += static_cast<double>(p) * p;
    }
  }
  const std::vector<double> s = singular_values(m, n, n);
  double squares = 0;
  for (double v : s)
    squares += v * v;
  EXPECT_NEAR(squares, frobenius, 1e-9 * frobenius);
  for (std::size_t i = 1; i < s.size(); ++i)
    EXPECT_GE(s[i - 1], s[i]);
  const int rank = effective_rank(s);
  EXPECT_GT(rank, 1);
  EXPECT_LE(rank, n);
}

TEST(EffectiveRank, FromValuesFollowsTheCumulativeSum) {
  // Sum 10: 6 is 60%, 6 + 3 = 90%, 6 + 3 + 0.95 = 99.5% >= 99%.
  const std::vector<double> s = {6, 3, 0.95, 0.05};
  EXPECT_EQ(effective_rank(s), 3);
  EXPECT_EQ(effective_rank(s, 0.9), 2);
  EXPECT_EQ(effective_rank(std::vector<double>{}), 0);
  EXPECT_EQ(effective_rank(std::vector<double>{1e-12}), 0);  // negligible values are dropped
}

}  // namespace
}  // namespace glassbox
