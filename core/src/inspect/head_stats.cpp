#include <cmath>

#include "glassbox/inspect.hpp"

namespace glassbox {

void HeadStatsAccumulator::add(std::span<const float> row) {
  if (row.empty()) return;
  double entropy = 0;
  for (float p : row)
    if (p > 0) entropy -= p * std::log2(static_cast<double>(p));
  entropy_ += entropy;
  sink_ += row.front();
  ++rows_;
  if (row.size() >= 2) {
    previous_ += row[row.size() - 2];
    ++rows_with_previous_;
  }
}

HeadStats HeadStatsAccumulator::mean() const {
  HeadStats s;
  if (rows_ > 0) {
    s.entropy_bits = entropy_ / static_cast<double>(rows_);
    s.sink = sink_ / static_cast<double>(rows_);
  }
  if (rows_with_previous_ > 0) s.previous = previous_ / static_cast<double>(rows_with_previous_);
  return s;
}

}  // namespace glassbox
