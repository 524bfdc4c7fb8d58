// The induction score over attention rows: a pure function of the rows and the probe's layout.
#include "glassbox/induction.hpp"

namespace glassbox {

int InductionLayout::target(int query) const {
  if (query < first_query() || query >= end_query()) return -1;
  const int j = query - first_query();
  return offset + j + 1;
}

void InductionAccumulator::add(int query, std::span<const float> row) {
  const int key = layout_.target(query);
  if (key < 0 || static_cast<std::size_t>(key) >= row.size()) return;
  sum_ += row[static_cast<std::size_t>(key)];
  ++rows_;
}

double induction_score(std::span<const float> matrix, int n, InductionLayout layout) {
  InductionAccumulator acc(layout);
  if (n <= 0 || matrix.size() < static_cast<std::size_t>(n) * static_cast<std::size_t>(n)) return 0.0;
  for (int q = 0; q < n; ++q)
    acc.add(q, matrix.subspan(static_cast<std::size_t>(q) * static_cast<std::size_t>(n),
                              static_cast<std::size_t>(q) + 1));
  return acc.mean();
}

}  // namespace glassbox
