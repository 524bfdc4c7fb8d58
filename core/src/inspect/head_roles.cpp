#include "glassbox/head_roles.hpp"

namespace glassbox {

const char* to_string(HeadRole role) {
  switch (role) {
    case HeadRole::Sink:
      return "sink";
    case HeadRole::PreviousToken:
      return "previous-token";
    case HeadRole::Induction:
      return "induction";
    case HeadRole::Local:
      return "local";
    case HeadRole::Broad:
      return "broad";
    case HeadRole::Mixed:
      return "mixed";
    case HeadRole::NextToken:
      return "next-token";
    case HeadRole::Separator:
      return "separator";
    case HeadRole::Punctuation:
      return "punctuation";
  }
  return "mixed";
}

HeadRole classify_head(const HeadStats& stats, double induction) {
  if (induction >= kInductionThreshold) return HeadRole::Induction;  // false for NaN
  if (stats.previous >= kPreviousTokenThreshold) return HeadRole::PreviousToken;
  if (stats.sink >= kSinkThreshold) return HeadRole::Sink;
  if (stats.local >= kLocalThreshold) return HeadRole::Local;
  if (stats.uniform_entropy_bits > 0 && stats.entropy_bits >= kBroadFraction * stats.uniform_entropy_bits)
    return HeadRole::Broad;
  return HeadRole::Mixed;
}

RoleCounts count_roles(std::span<const HeadRole> roles) {
  RoleCounts out;
  for (HeadRole r : roles)
    ++out.counts[static_cast<std::size_t>(r)];
  return out;
}

}  // namespace glassbox
