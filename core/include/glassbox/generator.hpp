// Token-by-token generation in llama2.c's convention: the prompt's tokens are fed one forward pass each, and
// sampling starts at the pass that sees the last prompt token. The caller pulls one new token per next()
// call, so it can stream text and stop at any moment.
#pragma once

#include <span>
#include <vector>

#include "glassbox/result.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/session.hpp"

namespace glassbox {

class Generator {
 public:
  Generator(Session& session, Sampler& sampler) : session_(session), sampler_(sampler) {}

  // Resets the session and queues the prompt (at least one token, usually BOS first).
  Result<void> start(std::span<const int> prompt_ids);

  // Feeds whatever is pending (the whole prompt on the first call, the last sampled token after that) and
  // samples the next token. Fails when the context is full.
  Result<int> next();

  // Feeds the prompt but the last token, so prompt and generation speed can be timed apart.
  Result<void> prefill();

  // The logits next() sampled from last.
  std::span<const float> last_logits() const { return last_logits_; }

 private:
  // Runs pending tokens through the session until `keep` are left.
  Result<void> feed(std::size_t keep);

  Session& session_;
  Sampler& sampler_;
  std::vector<int> pending_;  // tokens still to feed
  std::span<const float> last_logits_;
};

}  // namespace glassbox
