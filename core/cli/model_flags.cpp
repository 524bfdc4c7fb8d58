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

void add_threads_flag(CLI::App& app, ThreadsSetting& threads) {
  const CLI::Validator count_or_auto(
      [](std::string& value) -> std::string {
        if (value == "auto") return {};
        int count = 0;
        const bool is_count = CLI::detail::lexical_cast(value, count);
        return is_count && count >= 1 && count <= 256
                   ? std::string()
                   : "Value " + value + " is neither auto nor a count in range 1 to 256";
      },
      "N|auto");
  app.add_option("--threads", threads.value,
                 "threads for the matrix products: auto (each pass uses those that pay for its work, up to "
                 "this machine's cores) or N, always N (results are the same for any count)")
      ->type_name("N|auto")
      ->check(count_or_auto)
      ->capture_default_str();
}

int ThreadsSetting::most() const {
  return automatic() ? default_threads() : std::stoi(value);
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
