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

// The pieces words are made of: the text of every ordinary token (as it prints after another token), without
// its leading space, once each ("the", "ing", "Tom", ","). Most of the vocabulary, so that the lines use
// nearly every token, as inspect's induction probe (random tokens of the whole vocabulary) does.
std::vector<std::string> vocabulary_pieces(const Tokenizer& tokenizer) {
  std::vector<std::string> pieces;
  for (int id = 0; id < tokenizer.vocab_size(); ++id) {
    if (tokenizer.type(id) != TokenType::Normal) continue;
    std::string text = tokenizer.token_text(id, id);
    const std::size_t first = text.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    text = text.substr(first);
    if (text.find_first_of(" \n\r\t") != std::string::npos) continue;
    pieces.push_back(text);
  }
  std::sort(pieces.begin(), pieces.end());
  pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
  return pieces;
}

// `length` fresh random words, each 1 to kMostPiecesPerWord random pieces glued together ("heim", "edTom"),
// then the same words again. Fresh words rather than a list: nothing to learn by heart, so the first half
// cannot be predicted and only the earlier occurrence tells what comes next in the second. Words of varying
// length in tokens: the distance to the copy differs from line to line, so no fixed offset finds it (a model
// trained on one-token words copies by position, and forms no induction head).
constexpr int kMostPiecesPerWord = 4;

std::string copy_line(const std::vector<std::string>& pieces, int length, Rng& rng) {
  std::string half;
  for (int w = 0; w < length; ++w) {
    if (w > 0) half += ' ';
    const int count = 1 + draw(rng, kMostPiecesPerWord);
    for (int p = 0; p < count; ++p)
      half += pieces[static_cast<std::size_t>(draw(rng, static_cast<int>(pieces.size())))];
  }
  return half + ' ' + half;
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
  std::vector<std::string> pieces;
  if (settings.task == SyntheticTask::Copy) {
    pieces = vocabulary_pieces(tokenizer);
    if (pieces.size() < 2)
      return error(ErrorCode::BadArgument,
                   "the copy task needs a vocabulary of ordinary tokens, and this one has ", pieces.size());
  }
  Rng rng(settings.seed);
  const auto draw_line = [&]() -> std::string {
    switch (settings.task) {
      case SyntheticTask::Copy:
        return copy_line(pieces, settings.length, rng);
      case SyntheticTask::Counting:
        return counting_line(settings.length, rng);
      case SyntheticTask::Brackets:
        return brackets_line(settings.length, rng);
    }
    return {};
  };
  // Lines over max_tokens are drawn again; a bound that most lines miss is a mistake, not bad luck.
  constexpr int kDrawsPerLine = 100;
  std::string text;
  for (int i = 0; i < settings.lines; ++i) {
    std::string line = draw_line();
    for (int tries = 1; settings.max_tokens > 0 &&
                        static_cast<int>(tokenizer.encode_prompt(line).size()) > settings.max_tokens;
         ++tries) {
      if (tries == kDrawsPerLine)
        return error(ErrorCode::BadArgument, "the ", to_string(settings.task), " task's lines of length ",
                     settings.length, " do not fit ", settings.max_tokens, " tokens (", kDrawsPerLine,
                     " tries): choose a shorter length or a longer context");
      line = draw_line();
    }
    if (i > 0) text += '\n';
    text += line;
  }
  return text;
}

}  // namespace glassbox
