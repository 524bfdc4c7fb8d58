// A conversation with a model: the KV cache and the current position. step(token) runs the forward pass for
// one token at the next position and returns the logits for the token after it; prefill(tokens) does the
// same for many tokens at once (a prompt), faster.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/trace.hpp"

namespace glassbox {

class ThreadPool;
struct RunState;

struct SessionOptions {
  int threads = 1;         // worker threads for the matrix products (1: run on the caller's thread)
  int context_length = 0;  // positions the KV cache holds; 0: the model's max_seq_len, capped at 4096
  bool trace_attention = false;
};

class Session {
 public:
  // Allocates the KV cache and scratch buffers. Fails on a context length outside 1..max_seq_len.
  static Result<Session> create(std::shared_ptr<const Model> model, SessionOptions options = {});

  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  // Runs one token at position(), then advances. Fails (changing nothing) on an id outside the vocabulary or
  // a full context. The returned logits stay valid until the next step.
  Result<std::span<const float>> step(int token);
  // Runs several tokens at positions position() .. position() + size - 1, then advances past them, and
  // returns the logits for the token after the last one. The same as step() on each token in turn, bit for
  // bit (KV cache, trace and logits), but a chunk of tokens shares each read of the weights, so a prompt goes
  // several times faster. Fails (changing nothing) on no tokens, any id outside the vocabulary, or more
  // tokens than the context has positions left.
  Result<std::span<const float>> prefill(std::span<const int> tokens);

  int position() const { return position_; }
  int context_length() const { return context_length_; }
  void reset();  // back to position 0; the trace is cleared too

  // Tracing starts recording at the next step. Turning it off keeps what was recorded.
  void set_attention_trace(bool enabled) { trace_enabled_ = enabled; }
  bool attention_trace_enabled() const { return trace_enabled_; }
  const AttentionTrace& attention_trace() const { return trace_; }

  const Model& model() const { return *model_; }
  std::span<const float> logits() const;

 private:
  Session() = default;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<RunState> state_;
  std::unique_ptr<ThreadPool> pool_;
  AttentionTrace trace_;
  bool trace_enabled_ = false;
  int position_ = 0;
  int context_length_ = 0;
};

}  // namespace glassbox
