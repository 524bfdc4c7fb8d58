// A conversation with a model: the KV cache and the current position. step(token) runs the forward pass for
// one token at the next position and returns the logits for the token after it; prefill(tokens) does the
// same for many tokens at once (a prompt), faster.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "glassbox/attention_detail.hpp"
#include "glassbox/attention_variant.hpp"
#include "glassbox/logit_attribution.hpp"
#include "glassbox/model.hpp"
#include "glassbox/residual_trace.hpp"
#include "glassbox/result.hpp"
#include "glassbox/trace.hpp"

namespace glassbox {

class ThreadPool;
struct RunState;

struct SessionOptions {
  int threads = 1;  // worker threads for the matrix products (1: run on the caller's thread)
  // true: `threads` is the most a pass may use, and each pass (a prompt chunk, a generated token) uses the
  // count glassbox/thread_choice.hpp chooses for its work; a tiny model's decode runs on one. false: every
  // pass uses all `threads`. The results are the same bits either way.
  bool auto_threads = false;
  int context_length = 0;  // positions the KV cache holds; 0: the model's max_seq_len, capped at 4096
  // The full attention record: every probability of every head, layers x heads x n(n+1)/2 floats. Only for
  // short sequences asked for explicitly; views recompute the rows they show from the residual trace instead.
  bool trace_attention = false;
  // The residual stream entering each layer, per position ((n_layers + 1) x dim floats): attention rows and
  // the logit lens are recomputed from it on demand, bit for bit as the forward pass computed them.
  bool trace_residuals = false;
  // The most bytes the residual trace may hold; past it the oldest positions are dropped. 0: no cap.
  int64_t residual_budget_bytes = 0;
  // Prompt tokens per forward pass in prefill(); 0: 256. Fewer hold less scratch memory (the activations of
  // that many tokens) and read the weights more often; the results are the same bits for any value.
  int prefill_batch = 0;
  // Which attention the run computes (glassbox/attention_variant.hpp); exact, the default, is the model's own
  // and the same bits as before variants existed. Low-rank reads only a prompt in one pass (prefill from
  // position 0 with at most prefill_batch tokens) and cannot generate; linear and performer cannot replace a
  // sliding-window layer's attention (their sums keep every key).
  AttentionVariant attention = {};
};

// The bytes a session's buffers hold, read from their sizes (glassbox/length_cost.hpp reports them):
struct SessionMemory {
  int64_t kv_cache = 0;         // keys and values of every position the context holds, every layer
  int64_t scores = 0;           // attention scores: a row per head, and a prompt's tiles of rows per thread
                                // (never a whole n x n matrix, except low-rank's per head)
  int64_t attention_state = 0;  // linear and performer: the running sums and performer's random features
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
  // The threads the last forward pass used (with auto_threads, the rule's choice for it; 0 before any pass)
  // and the most any pass may use (the threads the session started).
  int last_pass_threads() const { return last_pass_threads_; }
  int max_threads() const;
  // From the next pass on: `threads` (clamped to 1..max_threads()) for every pass, or with `automatic` the
  // most a pass may use, each taking what glassbox/thread_choice.hpp chooses. The bits do not change.
  void use_threads(int threads, bool automatic);
  int thread_limit() const { return thread_limit_; }
  bool auto_threads() const { return auto_threads_; }
  int context_length() const { return context_length_; }
  void reset();  // back to position 0; the trace is cleared too

  // Tracing starts recording at the next step. Turning it off keeps what was recorded.
  void set_attention_trace(bool enabled) { trace_enabled_ = enabled; }
  bool attention_trace_enabled() const { return trace_enabled_; }
  const AttentionTrace& attention_trace() const { return trace_; }

  // The residual trace, the same way: recording starts at the next step; off keeps what was recorded.
  void set_residual_trace(bool enabled) { residuals_enabled_ = enabled; }
  bool residual_trace_enabled() const { return residuals_enabled_; }
  const ResidualTrace& residual_trace() const { return residuals_; }

  // Recomputes (exact) attention rows from the residual trace; BadArgument in a session running another
  // attention variant: fn(head, query, probabilities over keys 0..query) for
  // heads [head_begin, head_end) of `layer` and queries [query_begin, query_end), one row in memory at a
  // time. NotRecorded when a query's residual was not kept. Call between steps, not during one.
  Result<void> attention_rows(int layer, int head_begin, int head_end, int query_begin, int query_end,
                              const AttentionRowFn& fn) const;
  // One head's attention at one query with every number along the way (glassbox/attention_detail.hpp).
  // NotRecorded when the query's residual was not kept.
  Result<AttentionDetail> attention_detail(int layer, int head, int query) const;
  // The logit lens: what the residual entering `layer` at `position` predicts for position + 1 (final norm
  // and unembedding applied to it); layer n_layers gives the model's own logits for that position.
  Result<void> layer_logits(int layer, int position, std::span<float> logits) const;
  // The same for a residual row kept from an earlier run (dim values, as residual_trace().row(n_layers, p)
  // holds it): final norm and unembedding, the model's logits for it bit for bit.
  Result<void> residual_logits(std::span<const float> residual, std::span<float> logits) const;
  // Direct logit attribution (glassbox/logit_attribution.hpp): the logit of `token` at `position` split into
  // the embedding, every head, every feed-forward and the biases, recomputed from the residual trace.
  // BadArgument for a Post-LN model or a position not computed yet; NotRecorded when it was not kept.
  Result<LogitAttribution> logit_attribution(int position, int token) const;

  // Head ablation (glassbox/ablation.hpp): scales[layer * n_heads + head] multiplies that head's output
  // before the output projection; 0 switches it off. Empty, or all 1: every head as trained, at no cost.
  // Takes effect from the next step; what the cache already holds stays, so reset() and run the prompt again
  // to see an ablation's whole effect. Fails with bad-argument on the wrong length or a non-finite scale.
  Result<void> set_head_scales(std::span<const float> scales);
  std::span<const float> head_scales() const;  // empty when none is set
  // Mean ablation's half of it: offsets[layer * q_dim + h * head_dim + i] is added to head h's output after
  // its scale, so a head scaled by 0 with its mean output as offset writes that mean at every position. Empty,
  // or all 0: none. Takes effect as set_head_scales does; fails with bad-argument on the wrong length or a
  // value that is not finite.
  Result<void> set_head_offsets(std::span<const float> offsets);
  std::span<const float> head_offsets() const;  // empty when none is set
  // Reads `tokens` again from position 0 as the model was trained (both tables above cleared) and returns
  // every head's output averaged over them, [n_layers][q_dim] laid out as the offsets: the means a mean
  // ablation puts in. Fails as prefill does.
  Result<std::vector<float>> read_averaging_heads(std::span<const int> tokens);

  const AttentionVariant& attention() const;
  SessionMemory memory() const;

  const Model& model() const { return *model_; }
  std::span<const float> logits() const;

 private:
  Session() = default;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<RunState> state_;
  std::unique_ptr<ThreadPool> pool_;
  AttentionTrace trace_;
  bool trace_enabled_ = false;
  ResidualTrace residuals_;
  bool residuals_enabled_ = false;
  int position_ = 0;
  int context_length_ = 0;
  bool auto_threads_ = false;
  int thread_limit_ = 1;
  int last_pass_threads_ = 0;
};

}  // namespace glassbox
