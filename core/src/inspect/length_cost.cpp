// Cost against length (glassbox/length_cost.hpp): the seeds' formulas for a model's shape, and the times and
// memory measured on the model itself.
#include "glassbox/length_cost.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>

#include "glassbox/error.hpp"
#include "model/visible_keys.hpp"

namespace glassbox {
namespace {

constexpr int kDefaultWindow = 256;
constexpr int kLongestCrossover = 1 << 24;  // past this, "never"
constexpr int kLongestLength = 1 << 20;     // no model's context is longer

int64_t layers(const ModelConfig& c) {
  return c.n_layers;
}

// The keys the query at position n - 1 of `layer` sees under the variant's mask and the model's own (the one
// statement of both: model/visible_keys.hpp). Linear and performer sum every key, through their features.
int64_t keys_seen(const ModelConfig& c, const AttentionVariant& variant, int layer, int n) {
  VisibleKeys visible{c, layer, 0, static_cast<std::size_t>(n)};
  visible.restrict_to(variant);
  const std::size_t query = static_cast<std::size_t>(n) - 1;
  const KeyRange range = visible.of(query), hidden = visible.hidden(query);
  return static_cast<int64_t>((range.end - range.begin) - (hidden.end - hidden.begin));
}

// phi's width: head_dim for linear attention, M for performer.
int64_t feature_width(const ModelConfig& c, const AttentionVariant& variant) {
  return variant.kind == AttentionKind::Performer ? variant.features : c.head_dim;
}

// Attention's FLOPs for the token at position n - 1, all layers: the scores and the value sum over the keys
// it sees (4 q per key), or the feature sums' update and read (the same at every n).
int64_t attention_token_flops(const ModelConfig& c, const AttentionVariant& variant, int n) {
  if (variant.uses_features())
    return layers(c) * 2 * feature_width(c, variant) * c.head_dim * (c.n_kv_heads + c.n_heads);
  int64_t flops = 0;
  for (int layer = 0; layer < c.n_layers; ++layer)
    flops += 4 * keys_seen(c, variant, layer, n) * c.q_dim();
  return flops;
}

template <class T>
Result<T> whole_number(std::string_view text) {
  T value{};
  const auto [end, failed] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || failed != std::errc() || end != text.data() + text.size())
    return error(ErrorCode::BadArgument, "not a whole number");
  return value;
}

// The seed of the token sequence (see the header): a forward pass does the same work whatever the ids.
std::vector<int> cost_tokens(const ModelConfig& c, int n) {
  std::vector<int> tokens(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    tokens[static_cast<std::size_t>(i)] = static_cast<int>((int64_t{i} * 7919 + 1) % c.vocab_size);
  return tokens;
}

Spread spread(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  return {seconds[seconds.size() / 2], seconds.front(), seconds.back()};
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

std::vector<int> default_cost_lengths() {
  return {64, 128, 256, 512, 1024, 2048};
}

std::vector<int> quick_cost_lengths(const ModelConfig& c, int64_t flop_budget) {
  std::vector<int> lengths;
  for (int n = 16; n <= c.max_seq_len; n *= 2) {
    const CostFormula f = cost_formula(c, AttentionVariant{}, n);
    if (!lengths.empty() && f.attention_prompt + f.projections_prompt + f.feed_forward_prompt > flop_budget)
      break;
    lengths.push_back(n);
  }
  if (lengths.empty()) lengths.push_back(c.max_seq_len);  // a context shorter than 16
  return lengths;
}

std::vector<AttentionVariant> default_cost_variants(const ModelConfig& c) {
  AttentionVariant window{.kind = AttentionKind::Window};
  window.window = std::max(1, std::min(kDefaultWindow, c.max_seq_len / 4));
  return {AttentionVariant{}, window, AttentionVariant{.kind = AttentionKind::Linear}};
}

Result<void> check_cost_variant(std::shared_ptr<const Model> model, const AttentionVariant& variant) {
  if (!model) return error(ErrorCode::InvalidState, "cost against length: no model");
  if (variant.needs_whole_prompt())
    return error(ErrorCode::BadArgument, "attention '", to_string(variant),
                 "' cannot be measured against length: it reads a whole prompt in one pass and cannot "
                 "generate, so it has no per-token time (use exact, window, global-window, linear or "
                 "performer)");
  // The session's own refusals (an ALiBi or sliding-window model with linear attention, ...), stated once.
  GLASSBOX_TRY(Session::create(model, {.context_length = 1, .attention = variant}));
  return ok();
}

Result<std::vector<int>> parse_cost_lengths(std::string_view text) {
  std::vector<int> lengths;
  const std::string_view whole = text;
  for (;;) {
    const std::size_t comma = text.find(',');
    const std::string_view entry = text.substr(0, comma);
    auto n = whole_number<int>(entry);
    if (!n)
      return error(ErrorCode::BadArgument, "--lengths '", whole, "': '", entry,
                   "' is not a whole number (write lengths like 64,128,256)");
    if (*n < 1)
      return error(ErrorCode::BadArgument, "--lengths '", whole,
                   "': a length must be at least 1 token, found ", *n);
    if (*n > kLongestLength)
      return error(ErrorCode::BadArgument, "--lengths '", whole, "': a length must be at most ",
                   kLongestLength, " tokens, found ", *n);
    lengths.push_back(*n);
    if (comma == std::string_view::npos) return lengths;
    text.remove_prefix(comma + 1);
  }
}

Result<std::vector<AttentionVariant>> parse_cost_variants(std::string_view text) {
  std::vector<AttentionVariant> variants;
  std::size_t begin = 0;
  for (std::size_t at = 0; at <= text.size(); ++at) {
    const bool ends =
        at == text.size() ||
        (text[at] == ',' && !(at + 1 < text.size() && text[at + 1] >= '0' && text[at + 1] <= '9'));
    if (!ends) continue;
    GLASSBOX_ASSIGN(AttentionVariant variant, parse_attention_variant(text.substr(begin, at - begin)));
    variants.push_back(variant);
    begin = at + 1;
  }
  return variants;
}

CostFormula cost_formula(const ModelConfig& c, const AttentionVariant& variant, int n) {
  const int64_t d = c.dim, h = c.hidden_dim, q = c.q_dim(), kv = c.kv_dim(), L = layers(c);
  constexpr int64_t kFloat = sizeof(float);
  CostFormula f;
  f.attention_token = attention_token_flops(c, variant, n);
  f.projections_token = L * 2 * (q * d + 2 * kv * d + d * q);
  f.feed_forward_token = L * 2 * (c.gated_ffn ? 3 : 2) * h * d;
  for (int t = 1; t <= n; ++t)
    f.attention_prompt += attention_token_flops(c, variant, t);
  f.projections_prompt = n * f.projections_token;
  f.feed_forward_prompt = n * f.feed_forward_token;
  if (variant.uses_features()) {
    const int64_t width = feature_width(c, variant);
    // The sums, and performer's log scale per head (kernels/feature_attention.hpp) and its random features.
    f.state_bytes = L * c.n_kv_heads * (width * c.head_dim + width + 1) * kFloat;
    if (variant.kind == AttentionKind::Performer) f.state_bytes += width * c.head_dim * kFloat;
    return f;
  }
  // A dense matrix of n queries by the keys the last one sees, per head (the largest layer's), and the keys
  // and values each layer's last query reads.
  int64_t widest = 0;
  for (int layer = 0; layer < c.n_layers; ++layer) {
    const int64_t keys = keys_seen(c, variant, layer, n);
    widest = std::max(widest, keys);
    f.kv_cache_bytes += 2 * keys * kv * kFloat;
  }
  f.scores_bytes = int64_t{c.n_heads} * n * widest * kFloat;
  return f;
}

int crossover_length(const ModelConfig& c, const AttentionVariant& variant) {
  const auto passes = [&](int n) {
    return attention_token_flops(c, variant, n) > cost_formula(c, variant, 1).feed_forward_token;
  };
  if (!passes(kLongestCrossover)) return 0;
  // Attention's cost never falls as n grows: the first length past the feed-forward, by bisection.
  int low = 1, high = kLongestCrossover;
  while (low < high) {
    const int mid = low + (high - low) / 2;
    if (passes(mid))
      high = mid;
    else
      low = mid + 1;
  }
  return low;
}

Result<LengthCostPoint> measure_length_cost(std::shared_ptr<const Model> model,
                                            const AttentionVariant& variant, int length,
                                            const LengthCostOptions& options) {
  GLASSBOX_TRY(check_cost_variant(model, variant));
  const ModelConfig& c = model->config;
  if (length < 1 || length > c.max_seq_len)
    return error(ErrorCode::BadArgument, "cost against length: a length of ", length,
                 " tokens is outside 1..", c.max_seq_len, " (the model's context)");
  if (options.repeat < 1)
    return error(ErrorCode::BadArgument, "cost against length: repeat must be >= 1, found ", options.repeat);
  GLASSBOX_ASSIGN(
      Session session,
      Session::create(model, {.threads = options.threads, .context_length = length, .attention = variant}));
  const std::vector<int> tokens = cost_tokens(c, length);
  const std::span<const int> all(tokens), before_last = all.first(tokens.size() - 1);

  // An untimed pass first: it faults the mapped weights in, which would otherwise land in the first run.
  GLASSBOX_TRY(session.prefill(all));
  std::vector<double> prefill, token;
  for (int r = 0; r < options.repeat; ++r) {
    session.reset();
    const auto start = Clock::now();
    GLASSBOX_TRY(session.prefill(all));
    prefill.push_back(since(start));

    session.reset();
    if (!before_last.empty()) GLASSBOX_TRY(session.prefill(before_last));
    const auto step_start = Clock::now();
    GLASSBOX_TRY(session.step(tokens.back()));
    token.push_back(since(step_start));
  }
  LengthCostPoint point;
  point.length = length;
  point.prefill_seconds = spread(std::move(prefill));
  point.token_seconds = spread(std::move(token));
  point.memory = session.memory();
  point.formula = cost_formula(c, variant, length);
  return point;
}

}  // namespace glassbox
