// What the model attended to: for every position the forward pass computed while tracing was on, the
// attention probabilities of every layer and head over the keys it saw: 0..position in a decoder (read it as
// [layer][head][query][key]; entries above the diagonal, key > query, are zero by the causal mask), every
// key of the text in an encoder (full rows).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace glassbox {

class AttentionTrace {
 public:
  AttentionTrace() = default;
  AttentionTrace(int n_layers, int n_heads) : n_layers_(n_layers), n_heads_(n_heads) {}

  int n_layers() const { return n_layers_; }
  int n_heads() const { return n_heads_; }
  // Number of query positions covered: positions 0 .. n_positions() - 1 (some may be unrecorded).
  int n_positions() const { return static_cast<int>(row_offset_.size()); }
  bool recorded(int query) const;

  // Probabilities of one query over the keys it saw (0..query, query + 1 values, in a decoder; the whole text
  // in an encoder). Empty if that position wasn't traced.
  std::span<const float> row(int layer, int head, int query) const;
  float at(int layer, int head, int query, int key) const;

  // Writes the [n_positions][n_positions] matrix of one head, zero where a row saw no key and in unrecorded
  // rows.
  void copy_matrix(int layer, int head, float* out) const;
  // Rows first .. first + count - 1 as a trace of their own, row first becoming row 0: one text of an
  // encoder's padded batch (Encoder::encode), to be read as if it ran alone.
  AttentionTrace rows(int first, int count) const;

  // Session side, before the forward pass of `position` runs: drops rows at and after it and sizes the
  // block that pass will fill (all layers and heads), `keys` floats per row (0: position + 1, a decoder's).
  // Only here does the trace allocate, on the caller's thread; the forward pass then writes into slots from
  // any number of threads and allocates nothing.
  void begin_position(int position, int keys = 0);
  // Forward-pass side: the slot for (layer, head) at a begun position, its row's keys floats to fill.
  // A lookup only: it never resizes, so threads writing different heads never race.
  float* slot(int position, int layer, int head);
  void clear();
  // Drops rows at and after `position` (the session rewound).
  void truncate(int position);

 private:
  static constexpr int64_t kNotRecorded = -1;
  int n_layers_ = 0;
  int n_heads_ = 0;
  std::vector<int64_t> row_offset_;  // per position: start of its [layer][head][key] block, or kNotRecorded
  std::vector<int> row_keys_;        // per position: keys in each of its rows
  std::vector<float> probabilities_;
};

}  // namespace glassbox
