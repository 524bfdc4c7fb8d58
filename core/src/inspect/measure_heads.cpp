// measure_heads: one session runs the prompt, then (reset) the probe. Rows are recomputed from the residual
// trace layer by layer; the statistics take them one at a time, and only the rank window's rows are kept, so
// memory is one layer's heads x window^2 floats whatever the prompt's length.
#include "glassbox/measure_heads.hpp"

#include <algorithm>
#include <memory>

#include "glassbox/effective_rank.hpp"
#include "glassbox/error.hpp"
#include "glassbox/session.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {
namespace {

// Statistics and the rank-window matrix of one head, filled row by row.
struct HeadRows {
  HeadStatsAccumulator stats;
  std::vector<float> window;  // window x window, row-major, zeros above the diagonal
};

}  // namespace

Result<std::vector<HeadReport>> measure_heads(const Model& model, std::span<const int> tokens,
                                              const MeasureHeadsOptions& options) {
  const ModelConfig& c = model.config;
  if (tokens.empty()) return error(ErrorCode::BadArgument, "measure heads: no tokens");
  if (options.threads < 1)
    return error(ErrorCode::BadArgument, "measure heads: threads must be >= 1, found ", options.threads);
  if (options.rank_window < 1)
    return error(ErrorCode::BadArgument, "measure heads: rank window must be >= 1, found ",
                 options.rank_window);
  const int n = static_cast<int>(tokens.size());
  if (n > c.max_seq_len)
    return error(ErrorCode::PromptTooLong, "measure heads: ", n, " tokens exceed the model's context of ",
                 c.max_seq_len);
  const int probe_positions = static_cast<int>(options.probe.prefix.size()) + 2 * options.probe.length;
  const int context = std::min(c.max_seq_len, std::max(n, probe_positions));

  // The session only borrows the model for this call: a shared_ptr that owns nothing.
  auto borrowed = std::shared_ptr<const Model>(std::shared_ptr<const Model>(), &model);
  GLASSBOX_ASSIGN(Session session, Session::create(borrowed, {.threads = options.threads,
                                                              .context_length = context,
                                                              .trace_residuals = true}));
  GLASSBOX_TRY(session.prefill(tokens));

  const int heads_per_layer = c.n_heads;
  const int window = std::min(n, options.rank_window);
  const int window_start = n - window;
  ThreadPool pool(options.threads);
  std::vector<HeadReport> reports;
  for (int layer = 0; layer < c.n_layers; ++layer) {
    std::vector<HeadRows> heads(static_cast<std::size_t>(heads_per_layer));
    for (HeadRows& h : heads)
      h.window.assign(static_cast<std::size_t>(window) * static_cast<std::size_t>(window), 0.0f);
    GLASSBOX_TRY(session.attention_rows(
        layer, 0, heads_per_layer, 0, n, [&](int head, int query, std::span<const float> row) {
          HeadRows& h = heads[static_cast<std::size_t>(head)];
          h.stats.add(row);
          if (query < window_start) return;
          const auto r = static_cast<std::size_t>(query - window_start);
          std::copy(row.begin() + window_start, row.end(),
                    h.window.begin() + static_cast<std::ptrdiff_t>(r * window));
        }));
    std::vector<int> ranks(heads.size());
    // Each head's SVD on its own: any thread count gives the same ranks.
    pool.parallel_for(heads.size(), [&](std::size_t begin, std::size_t end, int) {
      for (std::size_t h = begin; h < end; ++h)
        ranks[h] = effective_rank(heads[h].window, window);
    });
    for (int head = 0; head < heads_per_layer; ++head) {
      const auto h = static_cast<std::size_t>(head);
      reports.push_back(head_report(layer, head, heads[h].stats.mean(), ranks[h]));
    }
  }

  GLASSBOX_ASSIGN(const std::vector<double> induction, induction_scores(session, options.probe));
  for (std::size_t i = 0; i < reports.size(); ++i) {
    HeadReport& r = reports[i];
    r.induction = induction[i];
    const HeadStats s{.entropy_bits = r.entropy_bits,
                      .sink = r.sink,
                      .previous = r.previous_token,
                      .local = r.local,
                      .uniform_entropy_bits = r.uniform_entropy_bits};
    r.role = classify_head(s, r.induction);
  }
  return reports;
}

HeadReport head_report(int layer, int head, const HeadStats& s, int rank) {
  return {.layer = layer,
          .head = head,
          .entropy_bits = s.entropy_bits,
          .uniform_entropy_bits = s.uniform_entropy_bits,
          .sink = s.sink,
          .previous_token = s.previous,
          .local = s.local,
          .effective_rank = rank};
}

RoleCounts summarize_roles(std::span<const HeadReport> heads) {
  std::vector<HeadRole> roles;
  roles.reserve(heads.size());
  for (const HeadReport& h : heads)
    roles.push_back(h.role);
  return count_roles(roles);
}

}  // namespace glassbox
