#include "glassbox/session.hpp"

#include <algorithm>
#include <cmath>

#include "glassbox/ablation.hpp"
#include "glassbox/error.hpp"
#include "glassbox/thread_choice.hpp"
#include "glassbox/token_ids.hpp"
#include "inspect/logit_attribution.hpp"
#include "model/forward.hpp"
#include "model/linear.hpp"
#include "model/run_state.hpp"
#include "trace/attention_rows.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {
namespace {
constexpr int kDefaultMaxContext = 4096;
constexpr int64_t kMaxSessionBytes = int64_t{3} << 30;  // past this the WASM heap (4 GiB) could not hold it
}  // namespace

Result<Session> Session::create(std::shared_ptr<const Model> model, SessionOptions options) {
  if (!model) return error(ErrorCode::InvalidState, "session: no model");
  const ModelConfig& c = model->config;
  if (!c.causal)
    return error(ErrorCode::BadArgument, "this model is an encoder (", c.architecture,
                 "): it reads whole texts and continues none, so it cannot generate; use embed or fill-mask");
  const int context =
      options.context_length > 0 ? options.context_length : std::min(c.max_seq_len, kDefaultMaxContext);
  if (context > c.max_seq_len)
    return error(ErrorCode::BadArgument, "session: context length ", context, " exceeds the model's maximum ",
                 c.max_seq_len);
  if (options.threads < 1)
    return error(ErrorCode::BadArgument, "session: threads must be >= 1, found ", options.threads);
  if (options.prefill_batch < 0)
    return error(ErrorCode::BadArgument, "session: prefill batch must be >= 0 (0: the default), found ",
                 options.prefill_batch);
  GLASSBOX_TRY(check_attention_variant(options.attention));
  const AttentionVariant& variant = options.attention;
  if (variant.last_layer >= c.n_layers || (!variant.every_layer() && variant.first_layer >= c.n_layers))
    return error(ErrorCode::BadArgument, "attention '", to_string(variant), "': the model has layers 0 to ",
                 c.n_layers - 1);
  bool slides_where_it_runs = false;
  for (int layer = 0; layer < c.n_layers; ++layer)
    slides_where_it_runs |= variant.applies_to(layer) && c.slides(layer);
  if (options.attention.uses_features() && slides_where_it_runs)
    return error(ErrorCode::BadArgument, "attention '", to_string(options.attention),
                 "' cannot run this model: its sliding-window layers must forget the keys older than their "
                 "window, and the running sums of linear and performer attention keep every key (use exact, "
                 "window or global-window)");
  if (options.attention.uses_features() && c.position == PositionKind::ALiBi)
    return error(
        ErrorCode::BadArgument, "attention '", to_string(options.attention),
        "' cannot run this model: ALiBi puts its positions in a bias on each score by distance, which "
        "the feature maps of linear and performer attention cannot carry (use exact, window, "
        "global-window or low-rank)");
  const int batch = std::min(options.prefill_batch > 0 ? options.prefill_batch : kPrefillBatch, context);
  const int64_t bytes = run_state_bytes(c, context, options.threads, batch, options.attention);
  if (bytes > kMaxSessionBytes)
    return error(
        ErrorCode::OutOfMemory, "session: a context of ", context, " positions needs ", bytes >> 20,
        " MiB of KV cache and scratch; choose a shorter context length (or a smaller prefill batch)");

  Session session;
  session.model_ = std::move(model);
  session.context_length_ = context;
  session.pool_ = std::make_unique<ThreadPool>(options.threads);
  session.auto_threads_ = options.auto_threads;
  session.thread_limit_ = session.pool_->size();
  session.state_ = std::make_unique<RunState>(c, context, session.pool_->size(), batch);
  session.state_->use_attention(c, options.attention);
  session.trace_ = AttentionTrace(c.n_layers, c.n_heads);
  session.trace_enabled_ = options.trace_attention;
  session.residuals_ = ResidualTrace(c.n_layers, c.dim, options.residual_budget_bytes);
  session.residuals_enabled_ = options.trace_residuals;
  return session;
}

Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

Result<std::span<const float>> Session::step(int token) {
  return prefill(std::span<const int>(&token, 1));
}

Result<std::span<const float>> Session::prefill(std::span<const int> tokens) {
  const ModelConfig& c = model_->config;
  if (tokens.empty()) return error(ErrorCode::BadArgument, "prefill: no tokens");
  GLASSBOX_TRY(check_token_ids(tokens, c.vocab_size));
  if (position_ >= context_length_)
    return error(ErrorCode::ContextFull, "the context is full: all ", context_length_,
                 " positions are used (reset to start over)");
  if (static_cast<int64_t>(tokens.size()) > context_length_ - position_)
    return error(ErrorCode::ContextFull, tokens.size(),
                 " tokens do not fit the context: ", context_length_ - position_, " of its ", context_length_,
                 " positions are left");

  if (state_->attention.needs_whole_prompt() &&
      (position_ != 0 || tokens.size() > static_cast<std::size_t>(state_->batch)))
    return error(
        ErrorCode::BadArgument, "attention '", to_string(state_->attention),
        "' truncates each head's whole attention matrix, so it reads one text in one forward pass from "
        "position 0 (score, inspect) and cannot generate or continue a text",
        position_ != 0 ? ""
                       : cat(" (this one has ", tokens.size(), " tokens, the session's prefill batch ",
                             state_->batch, ")"));
  while (!tokens.empty()) {
    const auto chunk = tokens.first(std::min(tokens.size(), static_cast<std::size_t>(state_->batch)));
    // Traces are sized here, so the forward pass allocates nothing.
    for (int p = position_; p < position_ + static_cast<int>(chunk.size()); ++p) {
      if (trace_enabled_) trace_.begin_position(p);
      if (residuals_enabled_) residuals_.begin_position(p);
    }
    const int threads = auto_threads_
                            ? threads_for_pass(c, static_cast<int>(chunk.size()), position_, thread_limit_)
                            : thread_limit_;
    pool_->set_active(threads);
    forward(*model_, *state_, chunk, position_, trace_enabled_ ? &trace_ : nullptr,
            residuals_enabled_ ? &residuals_ : nullptr, *pool_);
    pool_->set_active(pool_->size());  // the views' recomputations keep every thread, as before
    last_pass_threads_ = threads;
    position_ += static_cast<int>(chunk.size());
    tokens = tokens.subspan(chunk.size());
  }
  return logits();
}

int Session::max_threads() const {
  return pool_->size();
}

void Session::use_threads(int threads, bool automatic) {
  thread_limit_ = std::clamp(threads, 1, pool_->size());
  auto_threads_ = automatic;
}

const AttentionVariant& Session::attention() const {
  return state_->attention;
}

SessionMemory Session::memory() const {
  const RunState& s = *state_;
  const auto bytes = [](std::size_t floats) { return static_cast<int64_t>(floats * sizeof(float)); };
  SessionMemory m;
  m.kv_cache = bytes(s.key_cache.size() + s.value_cache.size());
  m.scores = bytes(s.scores.size() + s.query_tile_scores.size() + s.head_matrices.size());
  m.attention_state = bytes(s.feature_kv_sums.size() + s.feature_key_sums.size() +
                            s.feature_log_scales.size() + s.feature_projection.size());
  return m;
}

namespace {
// The recomputations of attention rows go through the exact softmax only.
Result<void> exact_attention_only(const AttentionVariant& attention) {
  if (attention.is_exact()) return ok();
  return error(ErrorCode::BadArgument,
               "attention rows are recomputed with exact attention, and this session runs '",
               to_string(attention), "'");
}
}  // namespace

std::span<const float> Session::logits() const {
  return state_->logits;
}

void Session::reset() {
  position_ = 0;
  trace_.clear();
  residuals_.clear();
}

Result<void> Session::set_head_scales(std::span<const float> scales) {
  GLASSBOX_ASSIGN(state_->head_scales, head_scales_in_force(model_->config, scales));
  return {};
}

std::span<const float> Session::head_scales() const {
  return state_->head_scales;
}

Result<void> Session::set_head_offsets(std::span<const float> offsets) {
  const ModelConfig& c = model_->config;
  const auto expected = static_cast<std::size_t>(c.n_layers) * static_cast<std::size_t>(c.q_dim());
  if (!offsets.empty() && offsets.size() != expected)
    return error(ErrorCode::BadArgument, "head offsets: ", offsets.size(), " values for a model of ",
                 c.n_layers, " layers x ", c.q_dim(), " head outputs (", expected, ")");
  if (const auto bad =
          std::find_if(offsets.begin(), offsets.end(), [](float v) { return !std::isfinite(v); });
      bad != offsets.end())
    return error(ErrorCode::BadArgument, "head offsets: value ", bad - offsets.begin(),
                 " is not a finite number");
  const bool none = std::all_of(offsets.begin(), offsets.end(), [](float v) { return v == 0.0f; });
  state_->head_offsets.assign(none ? offsets.end() : offsets.begin(), offsets.end());
  return {};
}

std::span<const float> Session::head_offsets() const {
  return state_->head_offsets;
}

Result<std::vector<float>> Session::read_averaging_heads(std::span<const int> tokens) {
  const ModelConfig& c = model_->config;
  if (tokens.empty()) return error(ErrorCode::BadArgument, "head means: no tokens to average over");
  state_->head_scales.clear();
  state_->head_offsets.clear();
  std::vector<double> sums(static_cast<std::size_t>(c.n_layers) * static_cast<std::size_t>(c.q_dim()));
  reset();
  state_->patch.sum_heads = sums.data();
  Result<std::span<const float>> read = prefill(tokens);
  state_->patch.sum_heads = nullptr;
  GLASSBOX_TRY(read);
  std::vector<float> means(sums.size());
  for (std::size_t i = 0; i < sums.size(); ++i)
    means[i] = static_cast<float>(sums[i] / static_cast<double>(tokens.size()));
  return means;
}

Result<void> Session::attention_rows(int layer, int head_begin, int head_end, int query_begin, int query_end,
                                     const AttentionRowFn& fn) const {
  GLASSBOX_TRY(exact_attention_only(state_->attention));
  if (query_end > position_)
    return error(ErrorCode::BadArgument, "query ", query_end - 1, " has not been computed (positions 0..",
                 position_ - 1, ")");
  return recompute_attention_rows(*model_, *state_, residuals_, *pool_, layer, head_begin, head_end,
                                  query_begin, query_end, fn);
}

Result<AttentionDetail> Session::attention_detail(int layer, int head, int query) const {
  GLASSBOX_TRY(exact_attention_only(state_->attention));
  if (query >= position_)
    return error(ErrorCode::BadArgument, "query ", query, " has not been computed (positions 0..",
                 position_ - 1, ")");
  return recompute_attention_detail(*model_, *state_, residuals_, *pool_, layer, head, query);
}

Result<void> Session::layer_logits(int layer, int position, std::span<float> logits) const {
  if (position < 0 || position >= position_)
    return error(ErrorCode::BadArgument, "position ", position, " has not been computed (0..", position_ - 1,
                 ")");
  return recompute_layer_logits(*model_, residuals_, *pool_, layer, position, logits);
}

Result<void> Session::residual_logits(std::span<const float> residual, std::span<float> logits) const {
  return glassbox::residual_logits(*model_, *pool_, residual, logits);
}

Result<LogitAttribution> Session::logit_attribution(int position, int token) const {
  if (position < 0 || position >= position_)
    return error(ErrorCode::BadArgument, "position ", position, " has not been computed (0..", position_ - 1,
                 ")");
  return attribute_logit(*model_, *state_, residuals_, *pool_, position, token);
}

}  // namespace glassbox
