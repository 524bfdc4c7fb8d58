#include "model_flags.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <thread>

namespace glassbox::cli {

void add_model_flags(CLI::App& app, ModelFlags& flags) {
  app.add_option("--model", flags.model, "GGUF file, or llama2.c checkpoint (.bin) with --tokenizer")
      ->type_name("FILE")
      ->required();
  app.add_option("--tokenizer", flags.tokenizer,
                 "llama2.c tokenizer.bin, GGUF or tokenizer.json (optional for GGUF models)")
      ->type_name("FILE");
}

void add_threads_flag(CLI::App& app, int& threads) {
  app.add_option("--threads", threads, "threads for the matrix products (results are the same for any count)")
      ->type_name("N")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
}

int default_threads() {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  return 1;  // the single-threaded WebAssembly build of the CLI runs on one thread whatever it is asked
#else
  return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 256);  // 0: unknown
#endif
}

Result<LoadedModel> open_model_from_flags(const ModelFlags& flags) {
  return open_model_files(flags.model, flags.tokenizer);
}

}  // namespace glassbox::cli
