// Attention trace storage: one block per traced position p holding [layer][head][keys] probabilities, keys
// p + 1 in a decoder, so a sequence of T positions costs layers * heads * T(T+1)/2 floats (the causal
// triangle), nothing more; an encoder's rows are whole (T keys each).
#include "glassbox/trace.hpp"

#include <algorithm>

namespace glassbox {

bool AttentionTrace::recorded(int query) const {
  return query >= 0 && query < n_positions() && row_offset_[static_cast<std::size_t>(query)] != kNotRecorded;
}

std::span<const float> AttentionTrace::row(int layer, int head, int query) const {
  if (!recorded(query) || layer < 0 || layer >= n_layers_ || head < 0 || head >= n_heads_) return {};
  const auto keys = static_cast<std::size_t>(row_keys_[static_cast<std::size_t>(query)]);
  const std::size_t at = static_cast<std::size_t>(row_offset_[static_cast<std::size_t>(query)]) +
                         (static_cast<std::size_t>(layer) * n_heads_ + head) * keys;
  return {probabilities_.data() + at, keys};
}

float AttentionTrace::at(int layer, int head, int query, int key) const {
  const std::span<const float> r = row(layer, head, query);
  return key >= 0 && static_cast<std::size_t>(key) < r.size() ? r[static_cast<std::size_t>(key)] : 0.0f;
}

void AttentionTrace::copy_matrix(int layer, int head, float* out) const {
  const auto n = static_cast<std::size_t>(n_positions());
  std::fill(out, out + n * n, 0.0f);
  for (std::size_t q = 0; q < n; ++q) {
    const std::span<const float> r = row(layer, head, static_cast<int>(q));
    std::copy(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(std::min(r.size(), n)), out + q * n);
  }
}

AttentionTrace AttentionTrace::rows(int first, int count) const {
  AttentionTrace out(n_layers_, n_heads_);
  for (int q = 0; q < count; ++q) {
    if (!recorded(first + q)) continue;
    const auto at = static_cast<std::size_t>(first + q);
    out.begin_position(q, row_keys_[at]);
    const auto block = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(n_layers_) * n_heads_ *
                                                   static_cast<std::size_t>(row_keys_[at]));
    const auto from = probabilities_.begin() + row_offset_[at];
    std::copy(from, from + block, out.probabilities_.begin() + out.row_offset_.back());
  }
  return out;
}

void AttentionTrace::begin_position(int position, int keys) {
  const auto p = static_cast<std::size_t>(std::max(position, 0));
  const auto row = keys > 0 ? static_cast<std::size_t>(keys) : p + 1;
  truncate(position);
  row_offset_.resize(p, kNotRecorded);  // positions computed while tracing was off
  row_keys_.resize(p, 0);
  row_offset_.push_back(static_cast<int64_t>(probabilities_.size()));
  row_keys_.push_back(static_cast<int>(row));
  probabilities_.resize(probabilities_.size() + static_cast<std::size_t>(n_layers_) * n_heads_ * row);
}

float* AttentionTrace::slot(int position, int layer, int head) {
  const auto p = static_cast<std::size_t>(position);
  return probabilities_.data() + row_offset_[p] +
         (static_cast<std::size_t>(layer) * n_heads_ + head) * static_cast<std::size_t>(row_keys_[p]);
}

void AttentionTrace::clear() {
  row_offset_.clear();
  row_keys_.clear();
  probabilities_.clear();
}

void AttentionTrace::truncate(int position) {
  const auto p = static_cast<std::size_t>(std::max(position, 0));
  if (p >= row_offset_.size()) return;
  // Blocks are stored in position order, so everything from the first dropped recorded block on goes.
  for (std::size_t q = p; q < row_offset_.size(); ++q) {
    if (row_offset_[q] != kNotRecorded) {
      probabilities_.resize(static_cast<std::size_t>(row_offset_[q]));
      break;
    }
  }
  row_offset_.resize(p);
  row_keys_.resize(p);
}

}  // namespace glassbox
