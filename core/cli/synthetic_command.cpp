// glassbox synthetic: prints a built-in synthetic task's lines (copy, counting, brackets), the data the page's
// training lab trains on, so that scripts train `glassbox train --data` on the same lines. The core states the
// tasks (glassbox/train.hpp, synthetic_task_text); this file only reads flags and prints.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/train.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  std::string tokenizer;
  std::string task = "copy";
  int lines = 1000;
  int length = 12;
  uint64_t seed = 1;
  int max_tokens = 0;
};

Result<void> synthetic(const Options& o) {
  GLASSBOX_ASSIGN(const SyntheticTask task, synthetic_task_named(o.task));
  GLASSBOX_ASSIGN(const Tokenizer tokenizer, load_tokenizer(o.tokenizer));
  GLASSBOX_ASSIGN(
      const std::string text,
      synthetic_task_text(
          tokenizer,
          {.task = task, .lines = o.lines, .length = o.length, .seed = o.seed, .max_tokens = o.max_tokens}));
  std::printf("%s\n", text.c_str());
  return ok();
}

}  // namespace

Command add_synthetic_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "synthetic",
      "Prints a built-in synthetic task's training lines (copy, counting, brackets), one per line, for train "
      "--data");
  auto options = std::make_shared<Options>();
  app->add_option("--tokenizer", options->tokenizer,
                  "the vocabulary the lines are made for: llama2.c tokenizer.bin, GGUF or tokenizer.json")
      ->type_name("FILE")
      ->required();
  app->add_option(
         "--task", options->task,
         "copy (LENGTH fresh random words of 1 to 4 vocabulary pieces, then the same again), counting "
         "(LENGTH consecutive numbers) or brackets (LENGTH balanced pairs)")
      ->type_name("TASK")
      ->capture_default_str();
  app->add_option("--lines", options->lines, "how many lines (1..1000000)")->capture_default_str();
  app->add_option("--length", options->length, "words per half, numbers or pairs (2..512)")
      ->capture_default_str();
  app->add_option("--seed", options->seed, "the same seed gives the same lines")->capture_default_str();
  app->add_option(
         "--max-tokens", options->max_tokens,
         "draw a line again while it is more tokens than this, BOS included (a context); 0: no bound")
      ->capture_default_str();
  return {app, [options] { return synthetic(*options); }};
}

}  // namespace glassbox::cli
