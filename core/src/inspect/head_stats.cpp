#include <algorithm>
#include <cmath>

#include "glassbox/head_stats.hpp"

namespace glassbox {

void HeadStatsAccumulator::add(std::span<const float> row) {
  if (row.empty()) return;
  double entropy = 0;
  for (float p : row)
    if (p > 0) entropy -= p * std::log2(static_cast<double>(p));
  entropy_ += entropy;
  sink_ += row.front();
  const std::size_t window = std::min<std::size_t>(kLocalWindow, row.size());
  double local = 0;
  for (std::size_t k = row.size() - window; k < row.size(); ++k)
    local += row[k];
  local_ += local;
  uniform_entropy_ += std::log2(static_cast<double>(row.size()));
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
    s.local = local_ / static_cast<double>(rows_);
    s.uniform_entropy_bits = uniform_entropy_ / static_cast<double>(rows_);
  }
  if (rows_with_previous_ > 0) s.previous = previous_ / static_cast<double>(rows_with_previous_);
  return s;
}

}  // namespace glassbox
