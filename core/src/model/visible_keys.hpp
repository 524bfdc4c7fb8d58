// Which keys each query of a forward pass's chunk attends to: the one statement of the masks.
//   decoder (causal):  the query at position p sees positions first_visible_key(layer, p) .. p
//                      (everything before it, or a sliding window of it);
//   encoder:           the query sees every token of its own text, before and after it.
// A run's attention variant may narrow a decoder's keys further (glassbox/attention_variant.hpp):
//   window:W           the query at p sees only p - W + 1 .. p (with the model's own mask: the later start);
//   global-window:G,W  the window, plus the global keys 0 .. G - 1: the keys between them are hidden, a gap
//                      in the middle of the range (hidden(t)).
// An encoder's padded batch puts several texts side by side in one chunk, `stride` rows each: text i is
// rows [i * stride, i * stride + lengths[i]) and the rows after it, up to the next text, are padding. A
// query sees only its own text's rows, so padding is never a key (the padding mask), and each text's
// result is the bits it would have alone: every key is the same dot product, every softmax runs over the
// same keys, and the matrix products compute each row the same way whatever the chunk.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>

#include "glassbox/attention_variant.hpp"
#include "glassbox/config.hpp"

namespace glassbox {

// An encoder's padded batch (see above). Positions restart at 0 in each text.
struct TextBatch {
  std::size_t stride = 0;
  std::span<const int> lengths;
};

// Rows of the cache [begin, end).
struct KeyRange {
  std::size_t begin = 0, end = 0;
};

// The chunk of one forward pass: n rows, cache rows first_position .. first_position + n - 1, and for an
// encoder's batch the texts they hold.
struct VisibleKeys {
  const ModelConfig& config;
  int layer;
  int first_position;
  std::size_t n;
  const TextBatch* texts = nullptr;  // null: one text (or a decoder's run), the chunk continuing the cache
  // The run's attention variant's mask (restrict_to): a window of this many keys (0: none), and the global
  // keys every query sees beside it.
  int window = 0;
  int global_keys = 0;

  // Takes the variant's mask, where it is one (window, global-window) and runs in this layer; the other
  // variants see every key the model's mask shows.
  VisibleKeys& restrict_to(const AttentionVariant& variant) {
    if (!variant.applies_to(layer)) return *this;  // a layer the variant leaves exact
    if (variant.kind == AttentionKind::Window || variant.kind == AttentionKind::GlobalWindow) {
      window = variant.window;
      global_keys = variant.kind == AttentionKind::GlobalWindow ? variant.global_keys : 0;
    }
    return *this;
  }

  // The position of the chunk's row t in its text (what RoPE and a learned table read).
  int position(std::size_t t) const {
    return texts ? static_cast<int>(t % texts->stride) : first_position + static_cast<int>(t);
  }

  // The cache row where the query's text starts (0 for one text or a decoder's run).
  std::size_t text_start(std::size_t t) const { return texts ? (t / texts->stride) * texts->stride : 0; }
  // The cache row of the chunk's row t itself (what ALiBi measures its distances from).
  std::size_t query_row(std::size_t t) const { return text_start(t) + static_cast<std::size_t>(position(t)); }

  KeyRange of(std::size_t t) const {
    const int p = position(t);
    // The cache row where the query's text starts, and the row just past its last token.
    const std::size_t text_begin = text_start(t);
    std::size_t text_end = static_cast<std::size_t>(first_position) + n;
    if (texts) text_end = text_begin + static_cast<std::size_t>(texts->lengths[t / texts->stride]);
    if (!config.causal) return {text_begin, text_end};
    std::size_t first = static_cast<std::size_t>(config.first_visible_key(layer, p));
    if (window > 0 && global_keys == 0) first = std::max(first, window_start(p));
    return {text_begin + first, text_begin + static_cast<std::size_t>(p) + 1};
  }

  // The keys inside of(t) that the query does not see: global-window's gap between the global keys and the
  // window (empty for every other mask).
  KeyRange hidden(std::size_t t) const {
    if (!config.causal || window == 0 || global_keys == 0) return {};
    const int p = position(t);
    const std::size_t text_begin = text_start(t);
    const std::size_t begin = std::max(static_cast<std::size_t>(config.first_visible_key(layer, p)),
                                       static_cast<std::size_t>(global_keys));
    const std::size_t end = window_start(p);
    if (begin >= end) return {};
    return {text_begin + begin, text_begin + end};
  }

  // The oldest key of the variant's window for the query at position p: p - window + 1, or 0.
  std::size_t window_start(int p) const { return p >= window ? static_cast<std::size_t>(p - window + 1) : 0; }
};

}  // namespace glassbox
