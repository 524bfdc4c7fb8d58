// Measuring heads: one session runs the prompt, then (reset) the probe. Rows are recomputed from the residual
// trace one step's heads at a time; the statistics take them one at a time, and only the rank window's rows
// are kept, so memory is one layer's heads x window^2 floats at most, whatever the prompt's length.
#include "glassbox/measure_heads.hpp"

#include <algorithm>

#include "glassbox/effective_rank.hpp"
#include "glassbox/error.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {
namespace {

// Statistics and the rank-window matrix of one head, filled row by row.
struct HeadRows {
  HeadStatsAccumulator stats;
  std::vector<float> window;  // window x window, row-major, zeros above the diagonal
};

}  // namespace

Result<HeadMeasurement> HeadMeasurement::begin(std::shared_ptr<const Model> model,
                                               std::span<const int> tokens,
                                               const MeasureHeadsOptions& options) {
  if (!model) return error(ErrorCode::InvalidState, "measure heads: no model");
  const ModelConfig& c = model->config;
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
  // One session for the prompt and, later, the probe: its context holds the longer of the two.
  const int probe_positions = static_cast<int>(options.probe.prefix.size()) + 2 * options.probe.length;
  const int context = std::min(c.max_seq_len, std::max(n, probe_positions));
  GLASSBOX_ASSIGN(Session session, Session::create(std::move(model), {.threads = options.threads,
                                                                      .context_length = context,
                                                                      .trace_residuals = true}));
  GLASSBOX_TRY(session.prefill(tokens));
  return HeadMeasurement(std::move(session), n, options);
}

HeadMeasurement::HeadMeasurement(Session session, int tokens, const MeasureHeadsOptions& options)
    : session_(std::move(session)),
      pool_(std::make_unique<ThreadPool>(options.threads)),
      tokens_(tokens),
      rank_window_(options.rank_window),
      probe_(options.probe) {}

HeadMeasurement::HeadMeasurement(HeadMeasurement&&) noexcept = default;
HeadMeasurement& HeadMeasurement::operator=(HeadMeasurement&&) noexcept = default;
HeadMeasurement::~HeadMeasurement() = default;

int HeadMeasurement::total() const {
  const ModelConfig& c = session_.model().config;
  return c.n_layers * c.n_heads + 1;
}

int HeadMeasurement::completed() const {
  return static_cast<int>(reports_.size()) + (probed_ ? 1 : 0);
}

Result<void> HeadMeasurement::step(int heads) {
  if (heads < 1)
    return error(ErrorCode::BadArgument, "measure heads: a step measures at least 1 head, found ", heads);
  if (probed_) return error(ErrorCode::InvalidState, "measure heads: every head is measured already");
  const ModelConfig& c = session_.model().config;
  const int measured = static_cast<int>(reports_.size());
  if (measured == c.n_layers * c.n_heads) return run_probe();

  const int layer = measured / c.n_heads;
  const int first = measured % c.n_heads, last = std::min(c.n_heads, first + heads);
  const int n = tokens_;
  const int window = std::min(n, rank_window_);
  const int window_start = n - window;
  std::vector<HeadRows> rows(static_cast<std::size_t>(last - first));
  for (HeadRows& h : rows)
    h.window.assign(static_cast<std::size_t>(window) * static_cast<std::size_t>(window), 0.0f);
  GLASSBOX_TRY(
      session_.attention_rows(layer, first, last, 0, n, [&](int head, int query, std::span<const float> row) {
        HeadRows& h = rows[static_cast<std::size_t>(head - first)];
        h.stats.add(row);
        if (query < window_start) return;
        const auto r = static_cast<std::size_t>(query - window_start);
        std::copy(row.begin() + window_start, row.end(),
                  h.window.begin() + static_cast<std::ptrdiff_t>(r * window));
      }));
  std::vector<int> ranks(rows.size());
  // Each head's SVD on its own: any thread count gives the same ranks.
  pool_->parallel_for(rows.size(), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t h = begin; h < end; ++h)
      ranks[h] = effective_rank(rows[h].window, window);
  });
  for (int head = first; head < last; ++head) {
    const auto h = static_cast<std::size_t>(head - first);
    reports_.push_back(head_report(layer, head, rows[h].stats.mean(), ranks[h]));
  }
  return ok();
}

Result<void> HeadMeasurement::run_probe() {
  GLASSBOX_ASSIGN(const std::vector<double> induction, induction_scores(session_, probe_));
  for (std::size_t i = 0; i < reports_.size(); ++i) {
    HeadReport& r = reports_[i];
    r.induction = induction[i];
    const HeadStats s{.entropy_bits = r.entropy_bits,
                      .sink = r.sink,
                      .previous = r.previous_token,
                      .local = r.local,
                      .uniform_entropy_bits = r.uniform_entropy_bits};
    r.role = classify_head(s, r.induction);
  }
  probed_ = true;
  return ok();
}

Result<std::vector<HeadReport>> measure_heads(const Model& model, std::span<const int> tokens,
                                              const MeasureHeadsOptions& options) {
  // The measurement only borrows the model for this call: a shared_ptr that owns nothing.
  auto borrowed = std::shared_ptr<const Model>(std::shared_ptr<const Model>(), &model);
  GLASSBOX_ASSIGN(HeadMeasurement measurement, HeadMeasurement::begin(std::move(borrowed), tokens, options));
  // A whole layer per step: its rows are recomputed once, and its heads' SVDs run side by side.
  while (!measurement.done())
    GLASSBOX_TRY(measurement.step(model.config.n_heads));
  return measurement.reports();
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
