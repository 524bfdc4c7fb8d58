#include "glassbox/session.hpp"

#include <algorithm>

#include "glassbox/error.hpp"
#include "model/forward.hpp"
#include "model/linear.hpp"
#include "model/run_state.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {
namespace {
constexpr int kDefaultMaxContext = 4096;
constexpr int64_t kMaxSessionBytes = int64_t{3} << 30;  // past this the WASM heap (4 GiB) could not hold it
}  // namespace

Result<Session> Session::create(std::shared_ptr<const Model> model, SessionOptions options) {
  if (!model) return error(ErrorCode::InvalidState, "session: no model");
  const ModelConfig& c = model->config;
  const int context =
      options.context_length > 0 ? options.context_length : std::min(c.max_seq_len, kDefaultMaxContext);
  if (context > c.max_seq_len)
    return error(ErrorCode::BadArgument, "session: context length ", context, " exceeds the model's maximum ",
                 c.max_seq_len);
  if (options.threads < 1)
    return error(ErrorCode::BadArgument, "session: threads must be >= 1, found ", options.threads);
  const int64_t bytes = run_state_bytes(c, context, options.threads);
  if (bytes > kMaxSessionBytes)
    return error(ErrorCode::OutOfMemory, "session: a context of ", context, " positions needs ", bytes >> 20,
                 " MiB of KV cache and scratch; choose a shorter context length");

  Session session;
  session.model_ = std::move(model);
  session.context_length_ = context;
  session.pool_ = std::make_unique<ThreadPool>(options.threads);
  session.state_ = std::make_unique<RunState>(c, context, session.pool_->size());
  session.trace_ = AttentionTrace(c.n_layers, c.n_heads);
  session.trace_enabled_ = options.trace_attention;
  return session;
}

Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

Result<std::span<const float>> Session::step(int token) {
  const ModelConfig& c = model_->config;
  if (token < 0 || token >= c.vocab_size)
    return error(ErrorCode::BadArgument, "token id ", token, " is outside the vocabulary (0..",
                 c.vocab_size - 1, ")");
  if (position_ >= context_length_)
    return error(ErrorCode::ContextFull, "the context is full: all ", context_length_,
                 " positions are used (reset to start over)");
  if (trace_enabled_) trace_.begin_position(position_);  // sized here, so the forward pass allocates nothing
  forward(*model_, *state_, token, position_, trace_enabled_ ? &trace_ : nullptr, *pool_);
  ++position_;
  return logits();
}

std::span<const float> Session::logits() const {
  return state_->logits;
}

void Session::reset() {
  position_ = 0;
  trace_.clear();
}

}  // namespace glassbox
