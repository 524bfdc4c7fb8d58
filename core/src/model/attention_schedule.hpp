// How a chunk's attention is laid out over the threads and the kernels, so that forward.cpp can state only
// what attention computes. For every head h and every query t of the chunk (at position first_position + t)
// this computes the scores q·k of the keys the query sees, and hands them to the caller, who turns them into
// probabilities and the weighted sum of the values (forward.cpp's attend()).
//
// Two ways to get the same scores, chosen by the chunk:
//   one query at a time (a generated token, or a run state without prompt scratch): kernels::dot_strided;
//   a prompt's queries a tile at a time: one matrix product per tile of queries and tile of keys
//     (kernels::matmul_rows, whose outputs have dot()'s bits), with each worker's queries packed into its
//     own scratch (RunState::packed_queries_of, RunState::query_tile_scores_of).
// Either way each score is the same dot product in the same order, so the bits do not depend on the chunk.
// Heads are split across the threads once there are enough keys to read to pay for waking them.
#pragma once

#include <cstddef>

#include "glassbox/model.hpp"
#include "model/run_state.hpp"
#include "model/visible_keys.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// A non-owning reference to the caller's `void(head, query, scores)`, like ChunkFn (no copy, no allocation:
// the forward pass allocates nothing). `scores` holds the query's scores q·k (not yet divided by
// sqrt(head_dim)) at the cache rows the query sees, [begin, end) of VisibleKeys::of(query); the entries before
// begin hold nothing meaningful. The callee may overwrite all `end` entries. It is called from several threads
// at once, for different heads.
class QueryScoresFn {
 public:
  template <class F>
  QueryScoresFn(const F& f)  // NOLINT(google-explicit-constructor): pass lambdas straight in
      : callable_(&f), call_([](const void* c, std::size_t head, std::size_t query, float* scores) {
          (*static_cast<const F*>(c))(head, query, scores);
        }) {}
  void operator()(std::size_t head, std::size_t query, float* scores) const {
    call_(callable_, head, query, scores);
  }

 private:
  const void* callable_;
  void (*call_)(const void*, std::size_t, std::size_t, float*);
};

// Scores of the chunk's n queries (state.q, [n][q_dim]) over the cached keys of `keys.layer` (the chunk's own
// keys are in the cache already), each handed to `use` once: for query t of head h, the keys keys.of(t) of kv
// head h / (n_heads / n_kv_heads).
void score_queries(const ModelConfig& c, RunState& state, const VisibleKeys& keys, ThreadPool& pool,
                   QueryScoresFn use);

}  // namespace glassbox
