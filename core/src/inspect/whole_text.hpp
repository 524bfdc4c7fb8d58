// A session that has read a whole text in one forward pass (prefill_batch = n) with its residual stream kept:
// what scoring and the attention lab read. One pass gives the same bits as any other chunking for every
// attention that can run token by token, and it is the only way low-rank attention sees its matrix.
#pragma once

#include <memory>
#include <span>

#include "glassbox/attention_variant.hpp"
#include "glassbox/session.hpp"

namespace glassbox {

// `extra_positions`: room left in the KV cache after the text (for a continuation), capped at the context.
Result<Session> read_whole_text(const std::shared_ptr<const Model>& model, std::span<const int> ids,
                                int threads, const AttentionVariant& attention, int extra_positions = 0);

}  // namespace glassbox
