#include "glassbox/encoder_heads.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace glassbox {
namespace {

// A piece made of punctuation only (a WordPiece continuation's "##" aside).
bool is_punctuation(std::string piece) {
  if (piece.starts_with("##")) piece = piece.substr(2);
  if (piece.empty()) return false;
  for (char c : piece)
    if (!std::ispunct(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::vector<EncoderHeadReport> measure_encoder_heads(const AttentionTrace& attention,
                                                     const Tokenizer& tokenizer,
                                                     std::span<const int> tokens) {
  const std::size_t n = tokens.size();
  std::vector<bool> separator(n), punctuation(n);
  for (std::size_t k = 0; k < n; ++k) {
    separator[k] = tokens[k] == tokenizer.sep_id();
    punctuation[k] = !separator[k] && is_punctuation(tokenizer.piece(tokens[k]));
  }
  const int reach = kLocalWindow / 2;
  std::vector<EncoderHeadReport> reports;
  for (int layer = 0; layer < attention.n_layers(); ++layer) {
    for (int head = 0; head < attention.n_heads(); ++head) {
      EncoderHeadReport r{.layer = layer, .head = head};
      double entropy = 0, uniform = 0, sink = 0, previous = 0, next = 0, local = 0, sep = 0, punct = 0;
      long rows = 0;
      for (std::size_t q = 0; q < n; ++q) {
        const std::span<const float> row = attention.row(layer, head, static_cast<int>(q));
        if (row.size() != n) continue;  // not recorded
        ++rows;
        for (std::size_t k = 0; k < n; ++k) {
          const double p = row[k];
          if (p > 0) entropy -= p * std::log2(p);
          if (separator[k]) sep += p;
          if (punctuation[k]) punct += p;
          if (std::abs(static_cast<long>(k) - static_cast<long>(q)) <= reach) local += p;
        }
        uniform += std::log2(static_cast<double>(n));
        sink += row[0];
        if (q > 0) previous += row[q - 1];
        if (q + 1 < n) next += row[q + 1];
      }
      if (rows > 0) {
        const auto mean = [&](double total) { return total / static_cast<double>(rows); };
        r.stats = {.entropy_bits = mean(entropy),
                   .sink = mean(sink),
                   .previous = n > 1 ? previous / static_cast<double>(rows - 1) : 0.0,
                   .local = mean(local),
                   .uniform_entropy_bits = mean(uniform)};
        r.next = n > 1 ? next / static_cast<double>(rows - 1) : 0.0;
        r.separator = mean(sep);
        r.punctuation = mean(punct);
      }
      r.role = classify_encoder_head(r);
      reports.push_back(r);
    }
  }
  return reports;
}

HeadRole classify_encoder_head(const EncoderHeadReport& r) {
  const HeadStats& s = r.stats;
  if (s.previous >= kPreviousTokenThreshold) return HeadRole::PreviousToken;
  if (r.next >= kPreviousTokenThreshold) return HeadRole::NextToken;
  if (s.sink >= kSinkThreshold) return HeadRole::Sink;
  if (r.separator >= kSinkThreshold) return HeadRole::Separator;
  if (r.punctuation >= kSinkThreshold) return HeadRole::Punctuation;
  if (s.local >= kLocalThreshold) return HeadRole::Local;
  if (s.uniform_entropy_bits > 0 && s.entropy_bits >= kBroadFraction * s.uniform_entropy_bits)
    return HeadRole::Broad;
  return HeadRole::Mixed;
}

}  // namespace glassbox
