// Activation patching's hook in the forward pass (core/src/inspect/activation_patching.cpp): values another
// run recorded put in place of this run's, at two places, every head's output recorded for such a use, and a
// run resumed at a later layer from a record. Off (the default) it costs the forward pass a comparison before
// the layers and two per layer, and changes no bit.
#pragma once

#include <algorithm>
#include <cstddef>

#include "glassbox/model.hpp"
#include "glassbox/residual_trace.hpp"

namespace glassbox {

struct ActivationPatch {
  // The residual stream entering layer `stream_layer` (n_layers: leaving the last layer, before the final
  // norm) at positions [stream_begin, stream_end) replaced by the same rows of `stream_source` (another run's
  // residual trace, which holds them). -1: none.
  int stream_layer = -1;
  int stream_begin = 0, stream_end = 0;
  const ResidualTrace* stream_source = nullptr;
  // Head `head` of layer `head_layer`: its output (the attention-weighted sum of values, after any ablation
  // scale, before the output projection) at every position replaced by `head_source`'s, a record as
  // `record_heads` writes it. -1: none.
  int head_layer = -1, head = -1;
  const float* head_source = nullptr;
  // Resume the run at layer `resume_layer`, the stream entering it at the chunk's positions taken from
  // `resume_source` (a record of an unpatched run of the same tokens), instead of computing the layers before
  // it again: they would give the same bits, as a patch reaches no layer before its own. Those layers' keys
  // and values are not written; the layers run read only their own. 0: from the embedding, as always.
  int resume_layer = 0;
  const ResidualTrace* resume_source = nullptr;
  // Where to record every head's output: [n_layers][record_positions][q_dim]; null: no record.
  float* record_heads = nullptr;
  int record_positions = 0;  // positions per layer of record_heads, and of head_source
  // Where to add up every head's output over the positions run (mean ablation's means, Session::
  // read_averaging_heads): [n_layers][q_dim], in double, position by position in order, so that any chunking
  // of the text gives the same sums. Null: none.
  double* sum_heads = nullptr;
  // The feed-forward of layer `record_ffn_layer` recorded at the chunk's positions, [position][hidden_dim]
  // each (glassbox/neurons.hpp): what its neurons read before the activation (a gated one's gate projection,
  // a plain one's up projection), a gated one's up projection, and the hidden layer the down projection
  // reads. -1: none.
  int record_ffn_layer = -1;
  float* record_ffn_pre = nullptr;
  float* record_ffn_up = nullptr;  // gated feed-forwards only
  float* record_ffn_hidden = nullptr;
};

// The chunk's rows of the feed-forward buffers (n rows of hidden_dim, the first at first_position) copied to
// the patch's record of that layer, where it asks for one.
inline void record_ffn(const ModelConfig& c, const ActivationPatch& patch, int layer, int first_position,
                       const float* rows, float* record, std::size_t n) {
  if (patch.record_ffn_layer != layer || !record) return;
  const auto hidden_dim = static_cast<std::size_t>(c.hidden_dim);
  std::copy(rows, rows + n * hidden_dim, record + static_cast<std::size_t>(first_position) * hidden_dim);
}

// x (the chunk's n rows, dim values each, the first at first_position) as it enters `layer`, with the
// patch's rows put in where it asks.
inline void patch_stream(const ModelConfig& c, const ActivationPatch& patch, int layer, int first_position,
                         float* x, std::size_t n) {
  if (patch.stream_layer != layer) return;
  const auto dim = static_cast<std::size_t>(c.dim);
  for (std::size_t t = 0; t < n; ++t) {
    const int position = first_position + static_cast<int>(t);
    if (position < patch.stream_begin || position >= patch.stream_end) continue;
    const auto row = patch.stream_source->row(layer, position);
    std::copy(row.begin(), row.end(), x + t * dim);
  }
}

// The layer the forward pass starts at: 0, or the patch's resume_layer with x (the chunk's n rows) taken from
// its record.
inline int resume_stream(const ModelConfig& c, const ActivationPatch& patch, int first_position, float* x,
                         std::size_t n) {
  if (patch.resume_layer == 0) return 0;
  const auto dim = static_cast<std::size_t>(c.dim);
  for (std::size_t t = 0; t < n; ++t) {
    const auto row = patch.resume_source->row(patch.resume_layer, first_position + static_cast<int>(t));
    std::copy(row.begin(), row.end(), x + t * dim);
  }
  return patch.resume_layer;
}

// The chunk's head outputs of `layer` ([n][q_dim]): recorded, one head's replaced, and summed, where the patch
// asks.
inline void patch_head_outputs(const ModelConfig& c, const ActivationPatch& patch, int layer,
                               int first_position, float* head_outputs, std::size_t n) {
  if (!patch.record_heads && patch.head_layer != layer && !patch.sum_heads) return;
  const auto q_dim = static_cast<std::size_t>(c.q_dim()), head_dim = static_cast<std::size_t>(c.head_dim);
  const auto layer_rows = static_cast<std::size_t>(layer) * static_cast<std::size_t>(patch.record_positions);
  for (std::size_t t = 0; t < n; ++t) {
    const auto position = static_cast<std::size_t>(first_position) + t;
    float* row = head_outputs + t * q_dim;
    if (patch.head_layer == layer) {
      const std::size_t offset = static_cast<std::size_t>(patch.head) * head_dim;
      const float* source = patch.head_source + (layer_rows + position) * q_dim + offset;
      std::copy(source, source + head_dim, row + offset);
    }
    if (patch.record_heads) std::copy(row, row + q_dim, patch.record_heads + (layer_rows + position) * q_dim);
    if (patch.sum_heads) {
      double* sums = patch.sum_heads + static_cast<std::size_t>(layer) * q_dim;
      for (std::size_t i = 0; i < q_dim; ++i)
        sums[i] += row[i];
    }
  }
}

}  // namespace glassbox
