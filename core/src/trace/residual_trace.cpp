// Residual-stream storage: a ring of the most recent positions, as many as the budget holds. The ring grows
// a block of positions at a time until it reaches the capacity, then position p reuses the slot of
// p - capacity.
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

float* ResidualTrace::position_rows(std::size_t index) {
  const auto per_position = static_cast<std::size_t>(n_layers_ + 1) * dim_;
  return blocks_[index / kBlockPositions].data() + (index % kBlockPositions) * per_position;
}

const float* ResidualTrace::position_rows(std::size_t index) const {
  return const_cast<ResidualTrace*>(this)->position_rows(index);
}

std::span<const float> ResidualTrace::row(int layer, int position) const {
  if (!kept(position) || layer < 0 || layer > n_layers_) return {};
  return {position_rows(ring_index(position)) + static_cast<std::size_t>(layer) * dim_,
          static_cast<std::size_t>(dim_)};
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
  const std::size_t block = ring_index(position) / kBlockPositions;
  while (blocks_.size() <= block) {
    // The last block of a capped ring holds only the positions the budget has left.
    std::size_t positions = kBlockPositions;
    if (capacity_ > 0)
      positions = std::min(positions, static_cast<std::size_t>(capacity_) - blocks_.size() * kBlockPositions);
    blocks_.emplace_back(positions * per_position);
    bytes_held_ += static_cast<int64_t>(positions * per_position * sizeof(float));
  }
}

float* ResidualTrace::slot(int position, int layer) {
  if (capacity_ == 0) return nullptr;
  return position_rows(ring_index(position)) + static_cast<std::size_t>(layer) * dim_;
}

void ResidualTrace::clear() {
  n_positions_ = 0;
  first_kept_ = 0;
  blocks_.clear();
  bytes_held_ = 0;
}

}  // namespace glassbox
