#include "glassbox/ablation.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "glassbox/error.hpp"
#include "glassbox/residual_trace.hpp"
#include "glassbox/session.hpp"

namespace glassbox {
namespace {

// A whole non-negative integer, nothing else.
bool read_index(std::string_view text, int* out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && *out >= 0;
}

// std::from_chars for floats is missing from Emscripten 3.1.6's libc++; strtof on a copy does the same here.
bool read_scale(std::string_view text, float* out) {
  if (text.empty()) return false;
  const std::string copy(text);
  char* end = nullptr;
  *out = std::strtof(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && std::isfinite(*out);
}

Result<HeadScale> parse_item(std::string_view item) {
  const auto bad = [&] {
    return error(ErrorCode::BadArgument, "head ablation: \"", item,
                 "\" is not LAYER.HEAD or LAYER.HEAD=SCALE (e.g. 1.3 or 1.3=0.5)");
  };
  HeadScale out;
  const std::size_t equals = item.find('=');
  const std::string_view head = item.substr(0, equals);
  const std::size_t dot = head.find('.');
  if (dot == std::string_view::npos || !read_index(head.substr(0, dot), &out.layer) ||
      !read_index(head.substr(dot + 1), &out.head))
    return bad();
  if (equals != std::string_view::npos && !read_scale(item.substr(equals + 1), &out.scale)) return bad();
  return out;
}

// Log-probabilities (log-softmax) in double: the KL divergence of two nearly equal distributions is not lost
// in rounding, and a probability too small for a double is still a finite logarithm.
std::vector<double> log_probabilities(std::span<const float> logits) {
  double top = logits[0];
  for (float l : logits)
    top = std::max(top, double{l});
  double sum = 0;
  for (float l : logits)
    sum += std::exp(double{l} - top);
  const double log_total = top + std::log(sum);
  std::vector<double> out(logits.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = double{logits[i]} - log_total;
  return out;
}

int argmax_of(const std::vector<double>& p) {  // the lowest id among equals
  std::size_t best = 0;
  for (std::size_t i = 1; i < p.size(); ++i)
    if (p[i] > p[best]) best = i;
  return static_cast<int>(best);
}

}  // namespace

Result<std::vector<HeadScale>> parse_head_scales(std::string_view spec) {
  std::vector<HeadScale> out;
  while (!spec.empty()) {
    const std::size_t comma = spec.find(',');
    GLASSBOX_ASSIGN(HeadScale item, parse_item(spec.substr(0, comma)));
    out.push_back(item);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
  }
  return out;
}

Result<std::vector<float>> head_scale_table(const ModelConfig& config, std::span<const HeadScale> scales) {
  std::vector<float> table(
      static_cast<std::size_t>(config.n_layers) * static_cast<std::size_t>(config.n_heads), 1.0f);
  for (const HeadScale& s : scales) {
    if (s.layer < 0 || s.layer >= config.n_layers || s.head < 0 || s.head >= config.n_heads)
      return error(ErrorCode::BadArgument, "head ablation: head ", s.layer, ".", s.head,
                   " is not in the model (layers 0..", config.n_layers - 1, ", heads 0..", config.n_heads - 1,
                   ")");
    if (!std::isfinite(s.scale))
      return error(ErrorCode::BadArgument, "head ablation: head ", s.layer, ".", s.head,
                   " has a scale that is not a finite number");
    table[static_cast<std::size_t>(s.layer * config.n_heads + s.head)] = s.scale;
  }
  return table;
}

Result<void> check_head_scale_table(const ModelConfig& config, std::span<const float> table) {
  const auto heads = static_cast<std::size_t>(config.n_layers) * static_cast<std::size_t>(config.n_heads);
  if (table.size() != heads)
    return error(ErrorCode::BadArgument, "head scales: ", table.size(), " values for a model of ",
                 config.n_layers, " layers x ", config.n_heads, " heads (", heads, ")");
  for (std::size_t i = 0; i < table.size(); ++i)
    if (!std::isfinite(table[i]))
      return error(ErrorCode::BadArgument, "head scales: the scale of head ", i / config.n_heads, ".",
                   i % config.n_heads, " is not a finite number");
  return ok();
}

void write_head_scales(JsonWriter& json, std::span<const HeadScale> scales) {
  json.begin_array();
  for (const HeadScale& h : scales)
    json.begin_object()
        .key("layer")
        .integer(h.layer)
        .key("head")
        .integer(h.head)
        .key("scale")
        .number(h.scale)
        .end_object();
  json.end_array();
}

Result<std::vector<float>> head_scales_in_force(const ModelConfig& config, std::span<const float> table) {
  if (table.empty()) return std::vector<float>{};
  GLASSBOX_TRY(check_head_scale_table(config, table));
  if (std::all_of(table.begin(), table.end(), [](float s) { return s == 1.0f; })) return std::vector<float>{};
  return std::vector<float>(table.begin(), table.end());
}

Result<std::vector<HeadScale>> scaled_heads(const ModelConfig& config, std::span<const float> table) {
  GLASSBOX_TRY(check_head_scale_table(config, table));
  std::vector<HeadScale> out;
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i] != 1.0f)
      out.push_back({.layer = static_cast<int>(i) / config.n_heads,
                     .head = static_cast<int>(i) % config.n_heads,
                     .scale = table[i]});
  return out;
}

Result<DistributionChange> compare_distributions(std::span<const float> logits_before,
                                                 std::span<const float> logits_after) {
  if (logits_before.empty() || logits_before.size() != logits_after.size())
    return error(ErrorCode::BadArgument, "compare_distributions: ", logits_before.size(), " and ",
                 logits_after.size(), " logits; both need the same, non-zero number");
  const std::vector<double> log_p = log_probabilities(logits_before), log_q = log_probabilities(logits_after);
  DistributionChange change;
  for (std::size_t i = 0; i < log_p.size(); ++i)
    change.kl_bits += std::exp(log_p[i]) * (log_p[i] - log_q[i]);
  change.kl_bits = std::max(0.0, change.kl_bits / std::log(2.0));  // rounding may leave -1e-17 when equal
  change.top_before = argmax_of(log_p);
  change.p_top_before = std::exp(log_p[static_cast<std::size_t>(change.top_before)]);
  change.q_top_before = std::exp(log_q[static_cast<std::size_t>(change.top_before)]);
  change.top_after = argmax_of(log_q);
  change.q_top_after = std::exp(log_q[static_cast<std::size_t>(change.top_after)]);
  return change;
}

namespace {

// The baseline's rows leaving the last layer at the positions the trace keeps, copied aside before the ablated
// run replaces them.
struct KeptOutputs {
  int first_position = 0;
  std::vector<float> rows;  // [positions][dim]
};

KeptOutputs keep_last_rows(const Session& session) {
  const ResidualTrace& trace = session.residual_trace();
  KeptOutputs kept;
  if (!session.residual_trace_enabled() || trace.n_positions() == 0) return kept;
  kept.first_position = trace.first_kept();
  for (int p = trace.first_kept(); p < trace.n_positions(); ++p) {
    const auto row = trace.row(trace.n_layers(), p);
    kept.rows.insert(kept.rows.end(), row.begin(), row.end());
  }
  return kept;
}

// The mean ablation's tables: each listed head scaled by 0, with its mean (from the model as trained) as
// offset. Reads the tokens again as trained (Session::read_averaging_heads); the heads are checked already.
Result<std::vector<float>> mean_offsets(Session& session, std::span<const int> tokens,
                                        std::span<const int> mean_heads, std::vector<float>& scales) {
  const ModelConfig& c = session.model().config;
  GLASSBOX_ASSIGN(const std::vector<float> means, session.read_averaging_heads(tokens));
  std::vector<float> offsets(means.size(), 0.0f);
  const auto head_dim = static_cast<std::size_t>(c.head_dim);
  for (int i : mean_heads) {
    const std::size_t at = static_cast<std::size_t>(i / c.n_heads) * static_cast<std::size_t>(c.q_dim()) +
                           static_cast<std::size_t>(i % c.n_heads) * head_dim;
    std::copy(means.begin() + static_cast<std::ptrdiff_t>(at),
              means.begin() + static_cast<std::ptrdiff_t>(at + head_dim),
              offsets.begin() + static_cast<std::ptrdiff_t>(at));
    scales[static_cast<std::size_t>(i)] = 0.0f;
  }
  return offsets;
}

}  // namespace

Result<AblationEffect> ablate_session(Session& session, std::span<const int> tokens,
                                      std::span<const float> table, int measured_position,
                                      std::span<const int> mean_heads) {
  if (tokens.empty() || session.position() != static_cast<int>(tokens.size()))
    return error(ErrorCode::InvalidState, "ablation: the session holds ", session.position(),
                 " positions, not the ", tokens.size(), " tokens given (it must have read them, from 0)");
  const int last = static_cast<int>(tokens.size()) - 1;
  if (measured_position < -1 || measured_position > last)
    return error(ErrorCode::BadArgument, "ablation: position ", measured_position, " is not one of the ",
                 tokens.size(), " tokens read (0 to ", last, ", or -1 for the last)");
  const ModelConfig& c = session.model().config;
  GLASSBOX_TRY(check_head_scale_table(c, table));
  for (int i : mean_heads)  // checked before anything is read again, so that a refusal changes nothing
    if (i < 0 || i >= c.n_layers * c.n_heads)
      return error(ErrorCode::BadArgument, "mean ablation: head index ", i, " is not one of the model's ",
                   c.n_layers * c.n_heads, " (layer * ", c.n_heads, " + head)");
  const auto read_again = [&]() -> Result<void> {
    session.reset();
    GLASSBOX_TRY(session.prefill(tokens));
    return ok();
  };
  const int measured = measured_position == -1 ? last : measured_position;
  // The next-token logits at the measured position: the session's own after the last token (as before a
  // position could be named, bit for bit), else the model's output read back from the trace.
  const auto measured_logits = [&]() -> Result<std::vector<float>> {
    if (measured == last) return std::vector<float>(session.logits().begin(), session.logits().end());
    std::vector<float> logits(session.logits().size());
    GLASSBOX_TRY(session.layer_logits(c.n_layers, measured, logits));
    return logits;
  };
  // The baseline is the model as trained: where an ablation is on, or means are wanted from it, the tokens
  // are read again without it.
  std::vector<float> scales(table.begin(), table.end()), offsets;
  if (!mean_heads.empty()) {
    GLASSBOX_ASSIGN(offsets, mean_offsets(session, tokens, mean_heads, scales));
  } else if (!session.head_scales().empty() || !session.head_offsets().empty()) {
    GLASSBOX_TRY(session.set_head_scales({}));
    GLASSBOX_TRY(session.set_head_offsets({}));
    GLASSBOX_TRY(read_again());
  }
  GLASSBOX_ASSIGN(const std::vector<float> before, measured_logits());
  const KeptOutputs baseline = keep_last_rows(session);

  GLASSBOX_TRY(session.set_head_scales(scales));
  GLASSBOX_TRY(session.set_head_offsets(offsets));
  GLASSBOX_TRY(read_again());
  GLASSBOX_ASSIGN(const std::vector<float> after, measured_logits());

  AblationEffect effect;
  GLASSBOX_ASSIGN(effect.change, compare_distributions(before, after));
  // Every position both runs kept: the baseline's logits from its rows set aside, the ablated run's from the
  // trace.
  const ResidualTrace& trace = session.residual_trace();
  const auto dim = static_cast<std::size_t>(c.dim);
  const int kept = static_cast<int>(baseline.rows.size() / dim);
  effect.first_position = std::max(baseline.first_position, trace.first_kept());
  std::vector<float> p_logits(before.size()), q_logits(before.size());
  for (int p = effect.first_position; p < baseline.first_position + kept && trace.kept(p); ++p) {
    const auto row = std::span<const float>(baseline.rows)
                         .subspan(static_cast<std::size_t>(p - baseline.first_position) * dim, dim);
    GLASSBOX_TRY(session.residual_logits(row, p_logits));
    GLASSBOX_TRY(session.layer_logits(c.n_layers, p, q_logits));
    GLASSBOX_ASSIGN(DistributionChange change, compare_distributions(p_logits, q_logits));
    effect.by_position.push_back(change);
  }
  return effect;
}

}  // namespace glassbox
