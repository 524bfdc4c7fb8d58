// Token-by-token generation, and every rule of it: what a prompt may be, when generation ends, and why it
// ended. The CLI, the WASM bindings and the page's worker all drive this one class and hold no copy of
// those rules.
//
// The step convention is llama2.c's: every prompt token takes a position (the session reads them in chunks,
// with the same results as one forward pass each), and sampling starts at the pass that sees the last prompt
// token. The caller pulls one new token per next() call, so it can stream text and stop at any moment.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/result.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/session.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox {

// Why a generation ended. The names (to_string) are stable: the page and the CLI's JSON show them.
enum class StopReason : uint8_t {
  None,         // still going
  EndOfText,    // the model sampled one of the tokenizer's end-of-text tokens (ends_text)
  ContextFull,  // the token sampled at the last position of the context cannot be fed back
  Length,       // the caller's budget (max_new_tokens or max_steps) is used up
  Stopped,      // the caller asked to stop
};
const char* to_string(StopReason reason);  // "end-of-text", "context-full", "length", "stopped", "none"

struct GenerationLimits {
  int max_new_tokens = 0;  // tokens to sample at most; 0: no limit but the context
  int max_steps = 0;       // forward passes in all, prompt included (llama2.c's --steps); 0: no limit
};

// One sampled token.
struct GeneratedToken {
  int id = 0;
  std::string text;  // the bytes it adds to the text; empty for an end-of-text token
  int position = 0;  // the query position whose logits it was drawn from (it lands at position + 1)
  bool end_of_text = false;
};

class Generator {
 public:
  Generator(Session& session, Sampler& sampler, const Tokenizer& tokenizer)
      : session_(session), sampler_(sampler), tokenizer_(tokenizer) {}

  // Checks the prompt and limits, then resets the session and queues the prompt. Errors:
  //   prompt-empty     no tokens
  //   prompt-too-long  more tokens than the session's context holds
  //   bad-argument     a token id outside the vocabulary; max_steps shorter than the prompt; a negative limit
  Result<void> start(std::span<const int> prompt_ids, GenerationLimits limits = {});
  // The same for text, encoded as a prompt (Tokenizer::encode_prompt: BOS first where the vocabulary asks).
  Result<void> start_text(std::string_view prompt, GenerationLimits limits = {});

  // A conversation's next turn: the same checks and the same generation as start(), but when every token
  // the session has already run is where it stands at the start of `prompt_ids` (the new turn's rendering
  // extends the conversation so far), those positions and their KV cache are kept and only the rest is fed;
  // otherwise the session is reset as start() does. Returns how many positions were kept.
  Result<int> extend(std::span<const int> prompt_ids, GenerationLimits limits = {});

  // Feeds the prompt but its last token, so prompt and generation speed can be timed apart. Optional.
  Result<void> prefill();

  // Feeds whatever is pending (the prompt on the first call, the last sampled token after that) and samples
  // the next token. After it, finished() says whether this was the last one and stop_reason() why.
  // Fails with invalid-state before start() and once finished.
  Result<GeneratedToken> next();

  // Ends the generation at once (stop_reason() Stopped); next() then fails.
  void stop();

  bool finished() const { return reason_ != StopReason::None; }
  StopReason stop_reason() const { return reason_; }

  // The prompt, then every sampled token (an end-of-text token included), in order.
  std::span<const int> tokens() const { return tokens_; }
  int prompt_length() const { return prompt_length_; }
  int generated_count() const { return static_cast<int>(tokens_.size()) - prompt_length_; }

  // The logits next() sampled from last.
  std::span<const float> last_logits() const { return last_logits_; }

 private:
  // The checks of start() and extend().
  Result<void> check(std::span<const int> prompt_ids, GenerationLimits limits) const;
  // Queues `prompt_ids`, of which the first `kept` already went through the session.
  void begin(std::span<const int> prompt_ids, GenerationLimits limits, std::size_t kept);
  // Runs pending tokens through the session until `keep` are left.
  Result<void> feed(std::size_t keep);
  // The reason to stop after `token` was sampled, or None.
  StopReason reason_after(const GeneratedToken& token) const;

  Session& session_;
  Sampler& sampler_;
  const Tokenizer& tokenizer_;
  GenerationLimits limits_;
  std::vector<int> tokens_;
  std::size_t fed_ = 0;  // tokens_[0..fed_) went through the session
  int prompt_length_ = 0;
  bool started_ = false;
  StopReason reason_ = StopReason::None;
  std::span<const float> last_logits_;
};

}  // namespace glassbox
