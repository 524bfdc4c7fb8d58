// The flags the commands that run a model share: which model, which tokenizer, how many threads.
#pragma once

#include <string>

#include "glassbox/formats.hpp"
#include "glassbox/result.hpp"

namespace CLI {
class App;
}

namespace glassbox::cli {

struct ModelFlags {
  std::string model;
  std::string tokenizer;  // empty: none given (a GGUF model's own tokenizer is used)
};

// Adds --model FILE (required) and --tokenizer FILE, storing their values in `flags`.
void add_model_flags(CLI::App& app, ModelFlags& flags);

// Adds --threads N (1..256), storing it in `threads`, whose value is the default.
void add_threads_flag(CLI::App& app, int& threads);

// --threads N|auto for the commands that generate: auto (the default) lets each forward pass use the
// threads that pay for its work (glassbox/thread_choice.hpp), up to this machine's cores; N uses N always.
struct ThreadsSetting {
  std::string value = "auto";
  bool automatic() const { return value == "auto"; }
  int most() const;  // N, or this machine's cores for auto
};
void add_threads_flag(CLI::App& app, ThreadsSetting& threads);

// The CLI's default thread count: this machine's cores (at least 1, at most 256). The library's own default
// stays one thread (SessionOptions{}.threads); results are the same for any count.
int default_threads();

// Opens the model with the tokenizer given, if any.
Result<LoadedModel> open_model_from_flags(const ModelFlags& flags);

}  // namespace glassbox::cli
