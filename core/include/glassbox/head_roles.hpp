// A one-word label for what an attention head does, where its statistics make that clear. The rules are
// first-match, most specific evidence first:
//   induction       induction score >= kInductionThreshold (measured on the repeated-random-tokens probe)
//   previous-token  previous >= kPreviousTokenThreshold
//   sink            sink >= kSinkThreshold
//   local           local >= kLocalThreshold
//   broad           entropy_bits >= kBroadFraction * uniform_entropy_bits (close to spreading evenly)
//   mixed           none of these
// Induction comes first because real induction heads park their attention on the first token when nothing
// repeats, so on ordinary text they look like sinks. The statistics (and so the labels) need rows much
// longer than kLocalWindow to mean anything: on a prompt of 8 tokens even uniform attention is "local".
#pragma once

#include <array>
#include <span>

#include "glassbox/head_stats.hpp"

namespace glassbox {

// The last three are what encoders show (glassbox/encoder_heads.hpp): most weight on the token after the
// query, on [SEP], or on punctuation.
enum class HeadRole {
  Sink,
  PreviousToken,
  Induction,
  Local,
  Broad,
  Mixed,
  NextToken,
  Separator,
  Punctuation
};
inline constexpr int kHeadRoleCount = 9;

// The roles each kind of model's heads can have, in the order summaries list them: a decoder's (measured on
// causal rows and the induction probe, glassbox/measure_heads.hpp) and an encoder's (full rows,
// glassbox/encoder_heads.hpp).
inline constexpr HeadRole kDecoderRoles[] = {HeadRole::Sink,  HeadRole::PreviousToken, HeadRole::Induction,
                                             HeadRole::Local, HeadRole::Broad,         HeadRole::Mixed};
inline constexpr HeadRole kEncoderRoles[] = {
    HeadRole::Sink,        HeadRole::PreviousToken, HeadRole::NextToken, HeadRole::Separator,
    HeadRole::Punctuation, HeadRole::Local,         HeadRole::Broad,     HeadRole::Mixed};

// The stable names, for JSON and the page: "sink", "previous-token", "induction", "local", "broad", "mixed",
// "next-token", "separator", "punctuation".
const char* to_string(HeadRole role);

// Over 40% of the weight on the one right key, where spreading evenly would give it about 1/position (2 to 3%
// at the probe's second copy): far beyond chance, yet below 1 so that heads that also keep some weight on
// the first token (as trained induction heads do) still count.
inline constexpr double kInductionThreshold = 0.4;
// Most of the weight on one key, on average over the rows: the pattern dominates the head.
inline constexpr double kPreviousTokenThreshold = 0.5;
inline constexpr double kSinkThreshold = 0.5;
// 70% on the last kLocalWindow keys: uniform attention over 16 keys puts about 57% there (over 64 keys, 23%),
// so past short prompts this is a clear preference for nearby tokens.
inline constexpr double kLocalThreshold = 0.7;
// Within 10% of the entropy of uniform attention: the head averages rather than selects.
inline constexpr double kBroadFraction = 0.9;

// The label of a head from its statistics and its induction score (NaN: not measured, never "induction").
HeadRole classify_head(const HeadStats& stats, double induction);

// How many heads have each role: counts[static_cast<int>(role)].
struct RoleCounts {
  std::array<int, kHeadRoleCount> counts{};
  int operator[](HeadRole role) const { return counts[static_cast<std::size_t>(role)]; }
};
RoleCounts count_roles(std::span<const HeadRole> roles);

}  // namespace glassbox
