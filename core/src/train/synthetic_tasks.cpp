// The built-in synthetic tasks (glassbox/train.hpp states them): the one rule of what their lines are, which
// the page's training lab reads through the bindings and anyone else through the core.
#include <algorithm>
#include <string>
#include <vector>

#include "glassbox/sampler.hpp"
#include "glassbox/train.hpp"

namespace glassbox {
namespace {

// A number in [0, n).
int draw(Rng& rng, int n) {
  return static_cast<int>(rng.next_u32() % static_cast<uint32_t>(n));
}

// The vocabulary's words: ordinary tokens that print as a space and then two or more ASCII letters.
std::vector<std::string> vocabulary_words(const Tokenizer& tokenizer) {
  std::vector<std::string> words;
  for (int id = 0; id < tokenizer.vocab_size(); ++id) {
    if (tokenizer.type(id) != TokenType::Normal) continue;
    // After a token that is not BOS, so a SentencePiece piece keeps its leading space.
    const std::string text = tokenizer.token_text(id, id);
    if (text.size() < 3 || text[0] != ' ') continue;
    bool letters = true;
    for (std::size_t i = 1; i < text.size(); ++i) {
      const char c = text[i];
      letters = letters && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
    }
    if (letters) words.push_back(text.substr(1));
  }
  return words;
}

// N distinct words, N in [length / 2, length], then the same N again. `order` holds every word's index once
// (in any order); a partial Fisher-Yates shuffle of it picks the N.
std::string copy_line(const std::vector<std::string>& words, std::vector<std::size_t>& order, int length,
                      Rng& rng) {
  const int shortest = std::max(1, length / 2);
  const auto n = static_cast<std::size_t>(shortest + draw(rng, length - shortest + 1));
  for (std::size_t i = 0; i < n; ++i)
    std::swap(order[i], order[i + static_cast<std::size_t>(draw(rng, static_cast<int>(order.size() - i)))]);
  std::string line;
  for (int half = 0; half < 2; ++half)
    for (std::size_t i = 0; i < n; ++i)
      line += (line.empty() ? "" : " ") + words[order[i]];
  return line;
}

std::string counting_line(int length, Rng& rng) {
  const int start = draw(rng, 100);
  std::string line;
  for (int i = 0; i < length; ++i)
    line += (i > 0 ? " " : "") + std::to_string(start + i);
  return line;
}

// A random balanced sequence: at each place open a new pair (while pairs are left) or close the innermost
// open one, each with even odds where both are possible.
std::string brackets_line(int pairs, Rng& rng) {
  static constexpr char kOpen[] = {'(', '[', '{'};
  static constexpr char kClose[] = {')', ']', '}'};
  std::vector<int> open;
  std::string line;
  int left = pairs;
  while (left > 0 || !open.empty()) {
    const bool opens = left > 0 && (open.empty() || draw(rng, 2) == 0);
    if (!line.empty()) line += ' ';
    if (opens) {
      const int kind = draw(rng, 3);
      open.push_back(kind);
      line += kOpen[kind];
      --left;
    } else {
      line += kClose[open.back()];
      open.pop_back();
    }
  }
  return line;
}

}  // namespace

Result<SyntheticTask> synthetic_task_named(std::string_view name) {
  for (SyntheticTask task : {SyntheticTask::Copy, SyntheticTask::Counting, SyntheticTask::Brackets})
    if (name == to_string(task)) return task;
  return error(ErrorCode::BadArgument, "unknown synthetic task \"", name,
               "\" (known: copy, counting, brackets)");
}

const char* to_string(SyntheticTask task) {
  switch (task) {
    case SyntheticTask::Copy:
      return "copy";
    case SyntheticTask::Counting:
      return "counting";
    case SyntheticTask::Brackets:
      return "brackets";
  }
  return "copy";
}

Result<std::string> synthetic_task_text(const Tokenizer& tokenizer, const SyntheticTaskSettings& settings) {
  if (settings.lines < 1 || settings.lines > 1000000)
    return error(ErrorCode::BadArgument, "a synthetic task's lines must be in 1..1000000, found ",
                 settings.lines);
  if (settings.length < 2 || settings.length > 512)
    return error(ErrorCode::BadArgument, "a synthetic task's length must be in 2..512, found ",
                 settings.length);
  std::vector<std::string> words;
  if (settings.task == SyntheticTask::Copy) {
    words = vocabulary_words(tokenizer);
    if (static_cast<int>(words.size()) < settings.length)
      return error(ErrorCode::BadArgument, "the copy task needs ", settings.length,
                   " distinct words and the vocabulary has ", words.size(),
                   " (tokens that print as a space and letters)");
  }
  std::vector<std::size_t> order(words.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  Rng rng(settings.seed);
  std::string text;
  for (int i = 0; i < settings.lines; ++i) {
    if (i > 0) text += '\n';
    switch (settings.task) {
      case SyntheticTask::Copy:
        text += copy_line(words, order, settings.length, rng);
        break;
      case SyntheticTask::Counting:
        text += counting_line(settings.length, rng);
        break;
      case SyntheticTask::Brackets:
        text += brackets_line(settings.length, rng);
        break;
    }
  }
  return text;
}

}  // namespace glassbox
