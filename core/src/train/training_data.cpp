#include "train/training_data.hpp"

#include <numeric>

namespace glassbox::train {
namespace {

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

Result<std::vector<TrainingLine>> tokenize_lines(std::string_view text, const Tokenizer& tokenizer,
                                                 int context) {
  std::vector<TrainingLine> lines;
  int number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (is_blank(line)) continue;
    if (line.back() == '\r') line.remove_suffix(1);  // a file written with Windows line ends
    TrainingLine& out = lines.emplace_back();
    out.tokens = tokenizer.encode_prompt(line);
    out.line_number = number;
    if (out.tokens.size() < 2)
      return error(ErrorCode::BadArgument, "line ", number, " of the training data gives ", out.tokens.size(),
                   " token; a training sequence needs at least 2 (one to predict from, one to predict)");
    if (out.tokens.size() > static_cast<std::size_t>(context))
      return error(ErrorCode::PromptTooLong, "line ", number, " of the training data gives ",
                   out.tokens.size(), " tokens, more than the context of ", context,
                   " (split the line, or train with a longer --context)");
  }
  if (lines.empty())
    return error(ErrorCode::BadArgument,
                 "the training data is empty: it needs at least one line of text (one sequence per line)");
  return lines;
}

void shuffle_indices(std::vector<std::size_t>& indices, Rng& rng) {
  for (std::size_t i = indices.size(); i > 1; --i) {
    // A uniform draw from 0..i-1 out of 64 random bits (two of the generator's 32-bit outputs): the
    // modulo's bias is below 2^-32 for any count of lines a run holds.
    const uint64_t bits = (static_cast<uint64_t>(rng.next_u32()) << 32) | rng.next_u32();
    std::swap(indices[i - 1], indices[static_cast<std::size_t>(bits % i)]);
  }
}

RowStream::RowStream(const std::vector<TrainingLine>& lines, int context, uint64_t seed)
    : lines_(lines), context_(static_cast<std::size_t>(context)), rng_(seed), order_(lines.size()) {
  start_epoch();
}

void RowStream::start_epoch() {
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  shuffle_indices(order_, rng_);
  next_ = 0;
  ++epoch_;
}

std::vector<int> RowStream::next_row() {
  if (next_ == order_.size()) start_epoch();
  std::vector<int> row;
  while (next_ < order_.size()) {
    const std::vector<int>& line = lines_[order_[next_]].tokens;
    if (!row.empty() && row.size() + line.size() > context_) break;
    row.insert(row.end(), line.begin(), line.end());
    ++next_;
  }
  return row;
}

}  // namespace glassbox::train
