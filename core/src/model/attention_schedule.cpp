#include "model/attention_schedule.hpp"

#include <algorithm>

#include "kernels/kernels.hpp"
#include "kernels/matmul.hpp"

namespace glassbox {

void score_queries(const ModelConfig& c, RunState& s, const VisibleKeys& visible, ThreadPool& pool,
                   QueryScoresFn use) {
  const std::size_t n = visible.n;
  const auto head_dim = static_cast<std::size_t>(c.head_dim), kv_dim = static_cast<std::size_t>(c.kv_dim());
  const auto q_dim = static_cast<std::size_t>(c.q_dim());
  const auto heads_per_kv = static_cast<std::size_t>(c.n_heads / c.n_kv_heads);
  const auto context = static_cast<std::size_t>(s.context_length);
  const float* keys = s.keys(static_cast<std::size_t>(visible.layer), 0, kv_dim);

  // One query at a time: its scores over the keys it sees, in the head's row of s.scores.
  auto heads_by_query = [&](std::size_t head_begin, std::size_t head_end, int /*worker*/) {
    for (std::size_t h = head_begin; h < head_end; ++h) {
      const std::size_t kv_offset = (h / heads_per_kv) * head_dim;
      float* scores = s.scores.data() + h * context;
      for (std::size_t t = 0; t < n; ++t) {
        const KeyRange range = visible.of(t);
        kernels::dot_strided(scores + range.begin, keys + kv_offset + range.begin * kv_dim, kv_dim,
                             range.end - range.begin, s.q.data() + t * q_dim + h * head_dim, head_dim);
        use(h, t, scores);
      }
    }
  };
  // A prompt's queries a tile at a time: the scores of the tile's queries over the keys any of them sees, as
  // one matrix product. The keys outside a query's range, computed with the rest of the tile, are never read.
  auto heads_by_tile = [&](std::size_t head_begin, std::size_t head_end, int worker) {
    const std::size_t tile_tokens = kernels::matmul_tile_tokens(), tile_rows = kernels::matmul_tile_rows();
    float* tile_scores = s.query_tile_scores_of(worker);
    for (std::size_t h = head_begin; h < head_end; ++h) {
      const std::size_t kv_offset = (h / heads_per_kv) * head_dim;
      float* packed = s.packed_queries_of(worker);
      kernels::pack_token_tiles(s.q.data() + h * head_dim, q_dim, n, head_dim, packed, 0,
                                kernels::token_tiles(n));
      const kernels::PackedTokens queries{packed, n, head_dim};
      for (std::size_t tile = 0; tile < kernels::token_tiles(n); ++tile) {
        const kernels::PackedTokens these = kernels::token_tile(queries, tile);
        const std::size_t first = tile * tile_tokens;
        KeyRange range = visible.of(first);
        for (std::size_t i = 1; i < these.tokens; ++i) {
          const KeyRange r = visible.of(first + i);
          range = {std::min(range.begin, r.begin), std::max(range.end, r.end)};
        }
        const std::size_t first_key = range.begin, n_keys = range.end;
        for (std::size_t key = first_key; key < n_keys; key += tile_rows) {
          const std::size_t count = std::min(tile_rows, n_keys - key);
          const float* rows[kernels::kMaxMatmulTileRows];
          for (std::size_t i = 0; i < count; ++i)
            rows[i] = keys + (key + i) * kv_dim + kv_offset;
          kernels::matmul_rows(tile_scores + key, context, rows, count, these,
                               s.decode.matmul_scratch(worker));
        }
        for (std::size_t i = 0; i < these.tokens; ++i)
          use(h, first + i, tile_scores + i * context);
      }
    }
  };
  const bool by_tile = n > 1 && !s.query_tile_scores.empty();
  auto heads = [&](std::size_t head_begin, std::size_t head_end, int worker) {
    if (by_tile) {
      heads_by_tile(head_begin, head_end, worker);
    } else {
      heads_by_query(head_begin, head_end, worker);
    }
  };
  // Splitting heads across threads pays off only once there are enough keys to read: below 64, the
  // threshold is past the head count, so they stay on this thread.
  std::size_t keys_read = 0;
  for (std::size_t t = 0; t < n; ++t)
    keys_read += visible.of(t).end - visible.of(t).begin;
  const auto n_heads = static_cast<std::size_t>(c.n_heads);
  pool.parallel_for(n_heads, heads, keys_read >= 64 ? 2 : n_heads + 1);
}

}  // namespace glassbox
