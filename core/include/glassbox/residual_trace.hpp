// The residual stream as the forward pass saw it: for each traced position, the vector x entering every
// layer and the one leaving the last layer, (n_layers + 1) x dim floats. It is small (dim floats per layer
// and position, where the attention probabilities cost heads x position floats per layer and position) and
// everything the inspection views need follows from it with the model's own kernels: a head's attention row
// (norm, query projection, RoPE, scores over the cached keys, softmax), and what each layer would predict
// (the logit lens: final norm and unembedding).
//
// Row l of a position is x before layer l's attention sub-block; row n_layers is x after the last layer,
// before the final norm. A memory budget caps how many positions are kept: past it, the oldest positions are
// dropped (a ring of the most recent ones), and first_kept() says where the kept ones begin.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace glassbox {

// Receives one recomputed attention row: head, query position, the probabilities over keys 0..query.
using AttentionRowFn = std::function<void(int head, int query, std::span<const float> probabilities)>;

class ResidualTrace {
 public:
  ResidualTrace() = default;
  // budget_bytes <= 0: no cap (every position is kept).
  ResidualTrace(int n_layers, int dim, int64_t budget_bytes);

  int n_layers() const { return n_layers_; }
  int dim() const { return dim_; }
  // Bytes one position takes: (n_layers + 1) * dim floats.
  int64_t bytes_per_position() const;
  // The most positions the budget holds (0 when one position alone is over it); -1 when there is no cap.
  int64_t capacity_positions() const { return capacity_; }
  int64_t budget_bytes() const { return budget_bytes_; }
  // Bytes held now (grows up to the budget, then stays).
  int64_t bytes_held() const { return bytes_held_; }

  // Positions covered: 0 .. n_positions() - 1, of which first_kept() .. n_positions() - 1 are kept.
  int n_positions() const { return n_positions_; }
  int first_kept() const { return first_kept_; }
  bool kept(int position) const { return position >= first_kept() && position < n_positions_; }

  // The residual entering layer `layer` (layer == n_layers: leaving the last one) at `position`; empty when
  // that position is not kept.
  std::span<const float> row(int layer, int position) const;

  // Session side, before the forward pass of `position`: drops what was recorded at and after it, and makes
  // room for it (allocating on the caller's thread, up to the budget). A position past n_positions() starts
  // a new run: the positions in between were computed untraced.
  void begin_position(int position);
  // Forward-pass side: where to copy the dim floats of row `layer` of the position begun last.
  float* slot(int position, int layer);

  void clear();

 private:
  std::size_t ring_index(int position) const;
  float* position_rows(std::size_t index);
  const float* position_rows(std::size_t index) const;

  int n_layers_ = 0;
  int dim_ = 0;
  int64_t budget_bytes_ = 0;
  int64_t capacity_ = -1;
  int n_positions_ = 0;
  int first_kept_ = 0;       // older positions were computed untraced, or overwritten by the ring
  // The ring of positions, (n_layers + 1) * dim floats each, in blocks of kBlockPositions positions: it grows a
  // block at a time and never reallocates what it holds, so it takes no more than its budget (plus part of a
  // block) even while growing, and a growing vector's copies do not leave a larger high-water mark behind
  // (WebAssembly memory never shrinks).
  static constexpr std::size_t kBlockPositions = 32;
  std::vector<std::vector<float>> blocks_;
  int64_t bytes_held_ = 0;
};

}  // namespace glassbox
