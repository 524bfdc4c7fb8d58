// The inspection document: one run of a model on a prompt, with everything the page's views show, as one
// JSON document. `glassbox inspect --json` prints it and the page exports it; docs/inspect.md is its schema.
// It is built here, once, so the two cannot drift apart.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/ablation.hpp"
#include "glassbox/attention_variant.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox {

struct InspectOptions {
  int steps = 8;                  // tokens to generate, each one a step of the sampling pipeline
  SamplerSettings sampler;        // the core's defaults unless changed
  int candidates = 10;            // tokens listed per step, the most likely first
  std::vector<HeadScale> ablate;  // heads switched off or scaled for the whole run (glassbox/ablation.hpp)
  int threads = 1;
  // Sequences longer than this are refused: the attention is written in full, layers x heads x n x n numbers
  // (about 40 MB of JSON for 12 x 12 heads at 256 tokens).
  int max_tokens = 256;
  // Not exact: the document also compares this attention variant with exact attention on the tokens the run
  // read (glassbox/score.hpp: per-position KL and top-token agreement, per-head row errors; no ablation).
  AttentionVariant attention = {};
};

// Runs the prompt and `steps` sampled tokens through the model and writes the document. Errors: those of
// the generator (prompt-empty, prompt-too-long, bad-argument), bad-argument for an ablation of a head the
// model lacks or a sequence over max_tokens.
Result<std::string> inspect_json(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                                 std::string_view prompt, const InspectOptions& options);

}  // namespace glassbox
