// glassbox fill-mask: what a masked-language model (BERT with its MLM head) puts in each [MASK] of a text.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glassbox/encoder.hpp"
#include "glassbox/error.hpp"
#include "glassbox/top_tokens.hpp"
#include "json_writer.hpp"
#include "model_flags.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  ModelFlags model;
  std::string text;
  int top_k = 5;
  bool json = false;
  int threads = default_threads();
};

Result<void> fill_mask(const Options& o) {
  GLASSBOX_ASSIGN(LoadedModel loaded, open_model_from_flags(o.model));
  const Tokenizer& tokenizer = *loaded.tokenizer;
  GLASSBOX_ASSIGN(Encoder encoder, Encoder::create(loaded.model, {.threads = o.threads}));
  GLASSBOX_ASSIGN(const FilledMasks filled, fill_masks(encoder, tokenizer, o.text, o.top_k));
  const std::vector<int>& tokens = filled.tokens;
  const std::vector<MaskFill>& fills = filled.masks;
  if (o.json) {
    JsonWriter json;
    json.begin_object().key("tokens").begin_array();
    for (int id : tokens)
      json.integer(id);
    json.end_array().key("masks").begin_array();
    for (const MaskFill& f : fills) {
      json.begin_object().key("position").integer(f.position).key("candidates").begin_array();
      for (const TokenProbability& c : f.candidates)
        json.begin_object()
            .key("id")
            .integer(c.id)
            .key("piece")
            .string(tokenizer.piece(c.id))
            .key("probability")
            .number(c.probability)
            .end_object();
      json.end_array().end_object();
    }
    json.end_array().end_object();
    std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
    return ok();
  }
  for (const MaskFill& f : fills) {
    std::printf("position %d:\n", f.position);
    for (const TokenProbability& c : f.candidates)
      std::printf("  %-20s %6.2f%%\n", json_quoted(tokenizer.piece(c.id)).c_str(),
                  100.0 * static_cast<double>(c.probability));
  }
  return ok();
}

}  // namespace

Command add_fill_mask_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "fill-mask", "Predicts the token at each [MASK] of the text with a masked-language model (BERT)");
  auto options = std::make_shared<Options>();
  add_model_flags(*app, options->model);
  app->add_option("--text", options->text, "a text with one or more [MASK]")->type_name("TEXT")->required();
  app->add_option("--top-k", options->top_k, "candidates per [MASK]")->check(CLI::Range(1, 1000));
  app->add_flag("--json", options->json,
                "print JSON: {tokens: [ids], masks: [{position, candidates: [{id, piece, probability}]}]}");
  add_threads_flag(*app, options->threads);
  return {app, [options] { return fill_mask(*options); }};
}

}  // namespace glassbox::cli
