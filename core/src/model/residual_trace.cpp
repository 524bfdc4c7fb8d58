// Residual-stream storage: a ring of the most recent positions, as many as the budget holds. The ring grows
// one position at a time until it reaches the capacity, then position p reuses the slot of p - capacity.
#include "glassbox/residual_trace.hpp"

#include <algorithm>
#include <limits>

namespace glassbox {

ResidualTrace::ResidualTrace(int n_layers, int dim, int64_t budget_bytes)
    : n_layers_(n_layers), dim_(dim), budget_bytes_(std::max<int64_t>(budget_bytes, 0)) {
  if (budget_bytes_ > 0) capacity_ = budget_bytes_ / std::max<int64_t>(bytes_per_position(), 1);
}

int64_t ResidualTrace::bytes_per_position() const {
  return (int64_t{n_layers_} + 1) * dim_ * static_cast<int64_t>(sizeof(float));
}

std::size_t ResidualTrace::ring_index(int position) const {
  const auto p = static_cast<std::size_t>(position);
  return capacity_ < 0 ? p : p % static_cast<std::size_t>(capacity_);
}

std::span<const float> ResidualTrace::row(int layer, int position) const {
  if (!kept(position) || layer < 0 || layer > n_layers_) return {};
  const auto per_position = static_cast<std::size_t>(n_layers_ + 1) * dim_;
  const std::size_t at = ring_index(position) * per_position + static_cast<std::size_t>(layer) * dim_;
  return {rows_.data() + at, static_cast<std::size_t>(dim_)};
}

void ResidualTrace::begin_position(int position) {
  position = std::max(position, 0);
  // A rewind drops what was recorded from `position` on; a first position or a gap (positions computed
  // untraced) starts the kept run there.
  if (n_positions_ == 0 || position > n_positions_ || position < first_kept_) first_kept_ = position;
  n_positions_ = position + 1;
  // The ring overwrote everything older than its capacity, and a rewind does not bring it back.
  if (capacity_ >= 0)
    first_kept_ = static_cast<int>(std::max<int64_t>(first_kept_, int64_t{n_positions_} - capacity_));
  if (capacity_ == 0) return;  // one position is over the budget: nothing is kept
  const auto per_position = static_cast<std::size_t>(n_layers_ + 1) * dim_;
  const std::size_t needed = (ring_index(position) + 1) * per_position;
  if (rows_.size() < needed) rows_.resize(needed);
}

float* ResidualTrace::slot(int position, int layer) {
  if (capacity_ == 0) return nullptr;
  const auto per_position = static_cast<std::size_t>(n_layers_ + 1) * dim_;
  return rows_.data() + ring_index(position) * per_position + static_cast<std::size_t>(layer) * dim_;
}

void ResidualTrace::clear() {
  n_positions_ = 0;
  first_kept_ = 0;
  rows_.clear();
}

}  // namespace glassbox
