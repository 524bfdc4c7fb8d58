// The attention of a few heads over a window of positions, as the page's attention view draws it: the
// weights, each head's statistics and where each row's visible keys begin. Recomputed from a session's
// residual trace, so its memory is the window's, whatever the sequence's length.
#pragma once

#include <vector>

#include "glassbox/head_stats.hpp"
#include "glassbox/result.hpp"

namespace glassbox {

class Session;

struct AttentionWindow {
  int begin = 0;  // the window's first position
  int size = 0;   // its positions: end - begin
  int heads = 0;  // head_end - head_begin
  // [head][query][key], row-major, size x size per head: row r holds query begin + r's weights on the keys
  // begin..begin + r. Keys before the window are left out; entries above the diagonal are zero.
  std::vector<float> weights;
  // Per head: the mean statistics of the window's rows, each row taken over its full keys 0..query.
  std::vector<HeadStats> stats;
  // Per row: the first key its query sees (ModelConfig::first_visible_key; 0 on a global layer), so a
  // sliding window's mask can be drawn as a mask rather than as weights of zero.
  std::vector<int> first_visible;
};

// Heads [head_begin, head_end) of `layer` over positions [begin, end) of what `session` has computed. Fails
// as Session::attention_rows does (a layer, head or position out of range; not-recorded past the trace's
// budget).
Result<AttentionWindow> attention_window(const Session& session, int layer, int head_begin, int head_end,
                                         int begin, int end);

}  // namespace glassbox
