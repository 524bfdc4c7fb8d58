// The most likely next tokens of a set of logits, with their probabilities: what the page lists at each step.
#pragma once

#include <span>
#include <vector>

namespace glassbox {

struct TokenProbability {
  int id;
  float logit;
  float probability;  // softmax over the whole vocabulary at temperature 1
};

// The k most likely tokens, most likely first (ties: lower id first).
std::vector<TokenProbability> top_tokens(std::span<const float> logits, int k);

}  // namespace glassbox
