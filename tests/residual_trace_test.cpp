// The residual trace's bookkeeping: which positions it keeps under a budget, across rewinds and gaps.
#include "glassbox/residual_trace.hpp"

#include <gtest/gtest.h>

namespace glassbox {
namespace {

// Records `position` with every row filled with a value that names it.
void record(ResidualTrace& trace, int position) {
  trace.begin_position(position);
  for (int layer = 0; layer <= trace.n_layers(); ++layer) {
    float* row = trace.slot(position, layer);
    ASSERT_NE(row, nullptr);
    for (int i = 0; i < trace.dim(); ++i)
      row[i] = static_cast<float>(position * 100 + layer * 10 + i);
  }
}

bool holds(const ResidualTrace& trace, int position) {
  for (int layer = 0; layer <= trace.n_layers(); ++layer) {
    const auto row = trace.row(layer, position);
    if (row.size() != static_cast<std::size_t>(trace.dim())) return false;
    for (int i = 0; i < trace.dim(); ++i)
      if (row[static_cast<std::size_t>(i)] != static_cast<float>(position * 100 + layer * 10 + i))
        return false;
  }
  return true;
}

TEST(ResidualTrace, WithoutABudgetKeepsEveryPosition) {
  ResidualTrace trace(2, 3, 0);
  EXPECT_EQ(trace.bytes_per_position(), 3 * 3 * 4);
  EXPECT_EQ(trace.capacity_positions(), -1);
  for (int p = 0; p < 50; ++p)
    record(trace, p);
  EXPECT_EQ(trace.n_positions(), 50);
  EXPECT_EQ(trace.first_kept(), 0);
  for (int p = 0; p < 50; ++p)
    EXPECT_TRUE(holds(trace, p)) << p;
  EXPECT_TRUE(trace.row(3, 0).empty()) << "layer past n_layers";
  EXPECT_TRUE(trace.row(0, 50).empty()) << "position not computed yet";
}

TEST(ResidualTrace, ABudgetKeepsTheMostRecentPositionsAndNoMoreMemory) {
  ResidualTrace trace(1, 4, 10 * 2 * 4 * 4);  // room for exactly 10 positions
  EXPECT_EQ(trace.capacity_positions(), 10);
  for (int p = 0; p < 37; ++p) {
    record(trace, p);
    EXPECT_LE(trace.bytes_held(), trace.budget_bytes());
  }
  EXPECT_EQ(trace.first_kept(), 27);
  for (int p = 0; p < 27; ++p)
    EXPECT_FALSE(trace.kept(p)) << p;
  for (int p = 27; p < 37; ++p)
    EXPECT_TRUE(holds(trace, p)) << p;
  EXPECT_TRUE(trace.row(0, 26).empty());
}

TEST(ResidualTrace, RewindingDropsTheRewrittenPositionsOnly) {
  ResidualTrace trace(1, 2, 8 * 2 * 2 * 4);  // 8 positions
  for (int p = 0; p < 12; ++p)
    record(trace, p);
  record(trace, 9);  // the session went back to 9 and computed it again
  EXPECT_EQ(trace.n_positions(), 10);
  EXPECT_EQ(trace.first_kept(), 4);
  for (int p = 4; p < 10; ++p)
    EXPECT_TRUE(holds(trace, p)) << p;
  EXPECT_FALSE(trace.kept(10));
}

TEST(ResidualTrace, PositionsComputedUntracedAreNotKept) {
  ResidualTrace trace(1, 2, 0);
  record(trace, 0);
  record(trace, 1);
  record(trace, 5);  // 2..4 ran with tracing off
  EXPECT_EQ(trace.first_kept(), 5);
  EXPECT_FALSE(trace.kept(1));
  EXPECT_TRUE(holds(trace, 5));
  trace.clear();
  EXPECT_EQ(trace.n_positions(), 0);
  record(trace, 3);  // turned on after three untraced positions
  EXPECT_EQ(trace.first_kept(), 3);
  EXPECT_TRUE(holds(trace, 3));
}

TEST(ResidualTrace, APositionOverTheBudgetKeepsNothingAndSaysSo) {
  ResidualTrace trace(4, 64, 100);  // one position needs 5 * 64 * 4 bytes
  EXPECT_EQ(trace.capacity_positions(), 0);
  trace.begin_position(0);
  EXPECT_EQ(trace.slot(0, 0), nullptr);
  EXPECT_FALSE(trace.kept(0));
  EXPECT_EQ(trace.bytes_held(), 0);
}

}  // namespace
}  // namespace glassbox
