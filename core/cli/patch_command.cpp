// glassbox patch: activation patching of a clean prompt into a corrupt one (glassbox/activation_patching.hpp).
// The core's patch_activations does the work (the page can call the same function); this file reads the
// prompts and the target, and prints.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "glassbox/activation_patching.hpp"
#include "glassbox/error.hpp"
#include "json_writer.hpp"
#include "model_flags.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  ModelFlags model;
  std::string clean, corrupt, target;
  int threads = default_threads();
  bool json = false;
};

// --target: the vocabulary's piece spelled exactly (" Lily"); else a text that encodes to one token
// ("Lily" where the tokenizer adds the leading space); else a token id in decimal. -1 when none was given.
Result<int> target_token(const Tokenizer& tokenizer, const std::string& target) {
  if (target.empty()) return -1;
  for (int id = 0; id < tokenizer.vocab_size(); ++id)
    if (tokenizer.piece(id) == target) return id;
  const std::vector<int> encoded = tokenizer.encode_ids(target, false);
  if (encoded.size() == 1) return encoded.front();
  if (std::all_of(target.begin(), target.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; }) &&
      target.size() < 10) {
    const int id = std::stoi(target);
    if (tokenizer.valid_id(id)) return id;
  }
  return error(ErrorCode::BadArgument, "unknown target '", target,
               "': it is no piece of the vocabulary, does not encode to one token (it makes ", encoded.size(),
               "), and is no token id (0..", tokenizer.vocab_size() - 1, ")");
}

void write_tokens(JsonWriter& json, const char* key, const Tokenizer& tokenizer,
                  const std::vector<int>& ids) {
  json.key(key).begin_array();
  for (int id : ids)
    json.begin_object().key("id").integer(id).key("piece").string(tokenizer.piece(id)).end_object();
  json.end_array();
}

// rows x columns of `values`, row-major, as an array of arrays.
void write_grid(JsonWriter& json, const char* key, const std::vector<double>& values, int rows, int columns) {
  json.key(key).begin_array();
  for (int r = 0; r < rows; ++r) {
    json.begin_array();
    for (int col = 0; col < columns; ++col)
      json.number(values[static_cast<std::size_t>(r * columns + col)]);
    json.end_array();
  }
  json.end_array();
}

void print_json(const Tokenizer& tokenizer, const std::vector<int>& clean, const std::vector<int>& corrupt,
                const PatchingResult& r) {
  JsonWriter json;
  json.begin_object();
  write_tokens(json, "clean_tokens", tokenizer, clean);
  write_tokens(json, "corrupt_tokens", tokenizer, corrupt);
  json.key("target").begin_object().key("id").integer(r.target).key("piece").string(
      tokenizer.piece(r.target));
  json.end_object();
  json.key("metric_clean").number(r.metric_clean).key("metric_corrupt").number(r.metric_corrupt);
  write_grid(json, "residual", r.residual, r.n_layers + 1, r.positions);
  write_grid(json, "heads", r.heads, r.n_layers, r.n_heads);
  json.key("runs").integer(r.runs);
  json.end_object();
  std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
}

void print_text(const Tokenizer& tokenizer, const std::vector<int>& corrupt, const PatchingResult& r) {
  std::printf("target %s (id %d): log p clean %.6f, corrupt %.6f (%d forward passes)\n",
              json_quoted(tokenizer.piece(r.target)).c_str(), r.target, r.metric_clean, r.metric_corrupt,
              r.runs);
  std::printf("residual stream patched (rows: entering layer l, the last: after the last layer)\n%-8s", "");
  for (int p = 0; p < r.positions; ++p)
    std::printf(" %8s",
                json_quoted(tokenizer.piece(corrupt[static_cast<std::size_t>(p)])).substr(0, 8).c_str());
  std::printf("\n");
  for (int l = 0; l <= r.n_layers; ++l) {
    std::printf("%-8s", l < r.n_layers ? cat("layer ", l).c_str() : "out");
    for (int p = 0; p < r.positions; ++p)
      std::printf(" %8.3f", r.residual_effect(l, p));
    std::printf("\n");
  }
  std::printf("heads patched (rows: layers, columns: heads)\n");
  for (int l = 0; l < r.n_layers; ++l) {
    std::printf("%-8s", cat("layer ", l).c_str());
    for (int h = 0; h < r.n_heads; ++h)
      std::printf(" %7.3f", r.head_effect(l, h));
    std::printf("\n");
  }
}

Result<void> patch(const Options& options) {
  GLASSBOX_ASSIGN(const LoadedModel loaded, open_model_from_flags(options.model));
  const Tokenizer& tokenizer = *loaded.tokenizer;
  const std::vector<int> clean = tokenizer.encode_prompt(options.clean);
  const std::vector<int> corrupt = tokenizer.encode_prompt(options.corrupt);
  GLASSBOX_ASSIGN(const int target, target_token(tokenizer, options.target));
  GLASSBOX_ASSIGN(
      const PatchingResult result,
      patch_activations(loaded.model, clean, corrupt, {.threads = options.threads, .target = target}));
  if (options.json) {
    print_json(tokenizer, clean, corrupt, result);
  } else {
    print_text(tokenizer, corrupt, result);
  }
  return ok();
}

}  // namespace

Command add_patch_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("patch",
                                        "Activation patching: how much of a clean prompt's prediction each "
                                        "layer's stream at each position, and "
                                        "each head, restores in a corrupt prompt of the same length");
  auto options = std::make_shared<Options>();
  add_model_flags(*app, options->model);
  app->add_option("--clean", options->clean,
                  "the clean prompt (encoded as generate encodes a prompt, BOS first)")
      ->type_name("TEXT")
      ->required();
  app->add_option("--corrupt", options->corrupt, "the corrupt prompt, of as many tokens as the clean one")
      ->type_name("TEXT")
      ->required();
  app->add_option(
         "--target", options->target,
         "the token whose log-probability at the last position is the metric: a piece as the "
         "vocabulary spells it (\" Lily\"), a text that encodes to one token, or a token id; default: "
         "the clean run's most likely token")
      ->type_name("TOKEN");
  add_threads_flag(*app, options->threads);
  app->add_flag(
      "--json", options->json,
      "print JSON: {clean_tokens, corrupt_tokens: [{id, piece}], target: {id, piece}, metric_clean, "
      "metric_corrupt, residual: [[layers + 1] x positions], heads: [layers x heads], runs} "
      "(docs/inspect.md, \"glassbox patch\")");
  return {app, [options] { return patch(*options); }};
}

}  // namespace glassbox::cli
