// glassbox inspect: one run of the model on a prompt, with everything the page's views show (tokens, the
// sampling pipeline of each step, attention, the logit lens, head statistics and roles, the model's
// anatomy), as the JSON document that the core writes and docs/inspect.md describes.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "glassbox/ablation.hpp"
#include "glassbox/attention_variant.hpp"
#include "glassbox/inspection.hpp"
#include "model_flags.hpp"
#include "sampler_flags.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  ModelFlags model;
  std::string prompt;
  InspectOptions inspect;
  std::string ablate;
  std::string attention = "exact";
  bool json = false;
};

Result<void> inspect(Options options) {
  GLASSBOX_ASSIGN(options.inspect.ablate, parse_head_scales(options.ablate));
  GLASSBOX_ASSIGN(options.inspect.attention, parse_attention_variant(options.attention));
  GLASSBOX_ASSIGN(const LoadedModel loaded, open_model_from_flags(options.model));
  GLASSBOX_ASSIGN(const std::string document,
                  inspect_json(loaded.model, *loaded.tokenizer, options.prompt, options.inspect));
  std::printf("%s\n", document.c_str());
  return ok();
}

}  // namespace

Command add_inspect_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "inspect",
      "Runs the prompt and a few sampled tokens and prints what the model did inside as one JSON document "
      "(tokens, each step's sampling pipeline, attention, logit lens, head statistics; docs/inspect.md)");
  auto options = std::make_shared<Options>();
  add_model_flags(*app, options->model);
  app->add_option("--prompt", options->prompt, "text to continue (empty: start from BOS)")->type_name("TEXT");
  app->add_option("--steps", options->inspect.steps, "tokens to generate after the prompt, one step each")
      ->type_name("N")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  add_sampler_flags(*app, options->inspect.sampler);
  app->add_option("--candidates", options->inspect.candidates,
                  "tokens listed at each step, most likely first")
      ->type_name("N")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app->add_option("--ablate", options->ablate,
                  "heads to switch off for the whole run, LAYER.HEAD (from 0), comma-separated; LAYER.HEAD=S "
                  "scales a head by S instead")
      ->type_name("L.H[=S],...");
  app->add_option("--attention", options->attention,
                  "also compare this attention variant with exact attention on the run's tokens: window:W, "
                  "global-window:G,W, linear, performer:M[:SEED] or low-rank:R (docs/attention-variants.md)")
      ->type_name("VARIANT")
      ->capture_default_str();
  add_threads_flag(*app, options->inspect.threads);
  app->add_option("--max-tokens", options->inspect.max_tokens,
                  "refuse longer sequences: the attention is written in full (layers x heads x n x n)")
      ->type_name("N")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app->add_flag("--json", options->json, "the output format (the only one: the document is JSON)");
  return {app, [options] { return inspect(*options); }};
}

}  // namespace glassbox::cli
