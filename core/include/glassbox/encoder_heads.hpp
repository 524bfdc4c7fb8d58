// What an encoder's heads do, from their full attention rows (Encoder::encode with an AttentionTrace): the
// decoders' statistics (glassbox/head_stats.hpp) read both ways, plus what bidirectional attention shows
// (bertviz's usual findings on BERT): heads that look at the next token, at [SEP], at punctuation.
#pragma once

#include <span>
#include <vector>

#include "glassbox/head_roles.hpp"
#include "glassbox/head_stats.hpp"
#include "glassbox/tokenizer.hpp"
#include "glassbox/trace.hpp"

namespace glassbox {

// Means over the text's query rows:
//   stats.entropy_bits, stats.uniform_entropy_bits  as for decoders, over the whole row
//   stats.sink      weight on the first token ([CLS])
//   stats.previous  weight on the token before the query (rows with one)
//   stats.local     weight on the keys within kLocalWindow / 2 tokens either side of the query, its own included
//   next            weight on the token after the query (rows with one)
//   separator       weight on the tokens that are the tokenizer's [SEP]
//   punctuation     weight on the tokens whose piece is punctuation only ("." "," "?" ...)
struct EncoderHeadReport {
  int layer = 0, head = 0;
  HeadStats stats;
  double next = 0, separator = 0, punctuation = 0;
  HeadRole role = HeadRole::Mixed;
};

// Every head of the trace's layers, in layer-then-head order. `tokens` are the text's ids (the trace's rows).
std::vector<EncoderHeadReport> measure_encoder_heads(const AttentionTrace& attention,
                                                     const Tokenizer& tokenizer, std::span<const int> tokens);

// The role, first match wins: previous-token, next-token (weight >= kPreviousTokenThreshold), sink ([CLS]),
// separator, punctuation (>= kSinkThreshold), local, broad, mixed.
HeadRole classify_encoder_head(const EncoderHeadReport& report);

}  // namespace glassbox
