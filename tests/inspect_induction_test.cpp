// The induction score on hand-built attention matrices, and the probe sequence it is measured on.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "glassbox/induction.hpp"

namespace glassbox {
namespace {

// An n x n matrix whose row q puts all its weight on key_of(q).
template <class KeyOf>
std::vector<float> one_hot_rows(int n, KeyOf key_of) {
  std::vector<float> m(static_cast<std::size_t>(n) * n, 0.0f);
  for (int q = 0; q < n; ++q)
    m[static_cast<std::size_t>(q) * n + static_cast<std::size_t>(key_of(q))] = 1.0f;
  return m;
}

TEST(InductionScore, APerfectInductionHeadScoresOne) {
  const InductionLayout layout{.offset = 1, .length = 10};
  const int n = layout.sequence_length();
  // In the second copy, r[j] at 1 + 10 + j attends to r[j + 1] at 1 + j + 1; elsewhere to BOS.
  const auto m = one_hot_rows(n, [&](int q) { return q >= 11 && q < n - 1 ? q - 10 + 1 : 0; });
  EXPECT_DOUBLE_EQ(induction_score(m, n, layout), 1.0);
}

TEST(InductionScore, APreviousTokenHeadScoresZero) {
  const InductionLayout layout{.offset = 1, .length = 10};
  const int n = layout.sequence_length();
  const auto m = one_hot_rows(n, [](int q) { return q > 0 ? q - 1 : 0; });
  EXPECT_DOUBLE_EQ(induction_score(m, n, layout), 0.0);
}

TEST(InductionScore, TheSameTokenInTheFirstCopyIsNotTheTarget) {
  // Attending to r[j]'s first occurrence (a duplicate-token head) is not induction.
  const InductionLayout layout{.offset = 0, .length = 8};
  const int n = layout.sequence_length();
  const auto m = one_hot_rows(n, [](int q) { return q >= 8 ? q - 8 : q; });
  EXPECT_DOUBLE_EQ(induction_score(m, n, layout), 0.0);
}

TEST(InductionScore, UniformAttentionScoresAboutOneOverPosition) {
  const InductionLayout layout{.offset = 1, .length = 20};
  const int n = layout.sequence_length();
  std::vector<float> m(static_cast<std::size_t>(n) * n, 0.0f);
  double expected = 0;
  for (int q = 0; q < n; ++q) {
    for (int k = 0; k <= q; ++k)
      m[static_cast<std::size_t>(q) * n + k] = 1.0f / static_cast<float>(q + 1);
    if (q >= 21 && q < n - 1) expected += 1.0 / (q + 1);
  }
  expected /= 19;
  EXPECT_NEAR(induction_score(m, n, layout), expected, 1e-6);
  EXPECT_LT(induction_score(m, n, layout), 0.05);
}

TEST(InductionLayout, TargetsAreTheNextTokenOfTheFirstCopy) {
  const InductionLayout layout{.offset = 2, .length = 5};  // r at 2..6 and 7..11
  EXPECT_EQ(layout.target(6), -1);
  EXPECT_EQ(layout.target(7), 3);
  EXPECT_EQ(layout.target(10), 6);
  EXPECT_EQ(layout.target(11), -1);  // r[L-1] has no next token in the first copy's run
}

TEST(InductionProbe, BuildsPrefixThenADistinctRunTwice) {
  InductionProbe probe{.prefix = {1}, .length = 24, .first_id = 3, .excluded = {7, 8}, .seed = 5};
  const auto made = make_induction_sequence(probe, 100, 512);
  ASSERT_TRUE(made.ok()) << made.error().message;
  const InductionSequence& s = *made;
  EXPECT_EQ(s.layout.offset, 1);
  EXPECT_EQ(s.layout.length, 24);
  ASSERT_EQ(s.tokens.size(), 49u);
  EXPECT_EQ(s.tokens[0], 1);
  std::set<int> seen;
  for (int j = 0; j < 24; ++j) {
    const int id = s.tokens[static_cast<std::size_t>(1 + j)];
    EXPECT_EQ(s.tokens[static_cast<std::size_t>(25 + j)], id);
    EXPECT_GE(id, 3);
    EXPECT_NE(id, 7);
    EXPECT_NE(id, 8);
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 24u);
  // Seeded: the same seed gives the same run, another seed another.
  EXPECT_EQ(make_induction_sequence(probe, 100, 512)->tokens, s.tokens);
  probe.seed = 6;
  EXPECT_NE(make_induction_sequence(probe, 100, 512)->tokens, s.tokens);
}

TEST(InductionProbe, ShortensTheRunToFitTheContextAndTheIds) {
  const InductionProbe probe{.prefix = {0}, .length = 32};
  EXPECT_EQ(make_induction_sequence(probe, 1000, 21)->layout.length, 10);             // (21 - 1) / 2
  EXPECT_EQ(make_induction_sequence(probe, 7, 512)->layout.length, 6);                // ids 1..6
  EXPECT_FALSE(make_induction_sequence(probe, 2, 512).ok());                          // one id left
  EXPECT_FALSE(make_induction_sequence(InductionProbe{.prefix = {5}}, 3, 512).ok());  // prefix out of range
}

}  // namespace
}  // namespace glassbox
