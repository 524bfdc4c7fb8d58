// Statistics of a head's attention pattern (how spread out, how much on the first token, the previous one,
// the most recent ones), accumulated one recomputed row at a time.
#pragma once

#include <span>

namespace glassbox {

// Pattern statistics of one head, averaged over the query rows given to add(), one row at a time (so a head
// of any length is summarized in constant memory from recomputed rows). A row is a query's probabilities
// over keys 0..query.
//   entropy_bits: mean over rows of -sum p log2 p (0: all on one key; log2(n): uniform over n keys)
//   sink:         mean weight on the first token
//   previous:     mean weight on the token just before the query (over rows with query >= 1)
//   local:        mean weight on the kLocalWindow most recent keys (the query's own and the ones before it;
//                 all of them in rows shorter than that)
//   uniform_entropy_bits: mean over rows of log2(keys), the entropy each row would have were it uniform:
//                 the ceiling entropy_bits is compared with ("broad" heads come close to it)
struct HeadStats {
  double entropy_bits = 0;
  double sink = 0;
  double previous = 0;
  double local = 0;
  double uniform_entropy_bits = 0;
};

// A "local" head looks at the last few tokens: the query's own and the three before it, about a word's worth
// of subword tokens, and short enough that a previous-token head is a special case rather than the rule.
inline constexpr int kLocalWindow = 4;

class HeadStatsAccumulator {
 public:
  void add(std::span<const float> row);
  HeadStats mean() const;

 private:
  double entropy_ = 0, sink_ = 0, previous_ = 0, local_ = 0, uniform_entropy_ = 0;
  long rows_ = 0, rows_with_previous_ = 0;
};

}  // namespace glassbox
