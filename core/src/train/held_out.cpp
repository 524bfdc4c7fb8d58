// The held-out loss of glassbox/train.hpp: what a training run reports beside its training loss, scored by
// the one statement of the loss (score_tokens), line by line.
#include <algorithm>

#include "glassbox/score.hpp"
#include "glassbox/train.hpp"

namespace glassbox {

Result<double> held_out_loss(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                             std::string_view text) {
  if (!model) return error(ErrorCode::BadArgument, "held-out loss: no model");
  const auto context = static_cast<std::size_t>(model->config.max_seq_len);
  double total = 0;
  std::size_t predicted = 0;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::vector<int> ids = tokenizer.encode_prompt(line);
    if (ids.size() > context) ids.resize(context);
    if (ids.size() < 2) continue;
    GLASSBOX_ASSIGN(TextScore scored, score_tokens(model, ids));
    for (double lp : scored.logprobs)
      total -= lp;
    predicted += scored.logprobs.size();
  }
  if (predicted == 0) return error(ErrorCode::BadArgument, "held-out loss: the text has no line to score");
  return total / static_cast<double>(predicted);
}

}  // namespace glassbox
