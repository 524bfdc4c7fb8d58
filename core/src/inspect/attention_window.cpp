#include "glassbox/attention_window.hpp"

#include <algorithm>

#include "glassbox/session.hpp"

namespace glassbox {

Result<AttentionWindow> attention_window(const Session& session, int layer, int head_begin, int head_end,
                                         int begin, int end) {
  AttentionWindow w;
  w.begin = begin;
  w.size = std::max(end - begin, 0);
  w.heads = std::max(head_end - head_begin, 0);
  const auto size = static_cast<std::size_t>(w.size);
  w.weights.assign(static_cast<std::size_t>(w.heads) * size * size, 0.0f);
  std::vector<HeadStatsAccumulator> stats(static_cast<std::size_t>(w.heads));
  GLASSBOX_TRY(session.attention_rows(
      layer, head_begin, head_end, begin, end, [&](int head, int query, std::span<const float> row) {
        const auto h = static_cast<std::size_t>(head - head_begin);
        stats[h].add(row);
        float* out = w.weights.data() + h * size * size + static_cast<std::size_t>(query - begin) * size;
        std::copy(row.begin() + begin, row.end(), out);
      }));
  for (const HeadStatsAccumulator& s : stats)
    w.stats.push_back(s.mean());
  const ModelConfig& c = session.model().config;
  for (int query = begin; query < begin + w.size; ++query)
    w.first_visible.push_back(c.first_visible_key(layer, query));
  return w;
}

}  // namespace glassbox
