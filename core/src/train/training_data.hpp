// What a training run reads: UTF-8 text, one training sequence per line, each line encoded as `generate`
// encodes a prompt (Tokenizer::encode_prompt: BOS first where the vocabulary asks), and the rows of tokens
// the steps are made of.
//
// Packing rule: each epoch shuffles the lines (seeded, the same order on every platform), then fills rows
// greedily in that order: a row takes the next line while the row's tokens and the line's together fit in
// the context, so a row holds one or more whole lines (a line is never split, and each keeps its own BOS).
// A row's loss is the mean next-token loss over the row, as `score` computes it for the row's tokens: the
// tokens of a later line in a row attend to the lines before it (GPT-2's and llm.c's packing, without a
// mask between documents). A row never spans two epochs. With a single line every row is that line, so
// step 0's loss is `score`'s loss for it.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "glassbox/result.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox::train {

struct TrainingLine {
  std::vector<int> tokens;
  int line_number = 0;  // 1-based, in the text as given (blank lines count)
};

// The text's lines as tokens. Blank lines (only spaces, tabs or '\r') are skipped: each would be a lone BOS,
// with nothing to predict. BadArgument when no line is left ("the training data is empty"), when a line
// gives a single token (nothing to predict), or when a line gives more tokens than `context` (naming its
// line number and both counts).
Result<std::vector<TrainingLine>> tokenize_lines(std::string_view text, const Tokenizer& tokenizer,
                                                 int context);

// The seeded order of one epoch's lines: a Fisher-Yates shuffle driven by the sampler's xorshift64*
// generator (not std::shuffle, whose algorithm differs between standard libraries).
void shuffle_indices(std::vector<std::size_t>& indices, Rng& rng);

// An endless stream of packed rows (the rule above), epoch after epoch.
class RowStream {
 public:
  RowStream(const std::vector<TrainingLine>& lines, int context, uint64_t seed);

  std::vector<int> next_row();
  int epoch() const { return epoch_; }  // 0 during the first pass over the data

 private:
  void start_epoch();

  const std::vector<TrainingLine>& lines_;
  std::size_t context_;
  Rng rng_;
  std::vector<std::size_t> order_;
  std::size_t next_ = 0;
  int epoch_ = -1;
};

}  // namespace glassbox::train
