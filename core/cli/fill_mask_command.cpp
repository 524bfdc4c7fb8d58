// glassbox fill-mask: what a masked-language model (BERT with its MLM head) puts in each [MASK] of a text.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glassbox/ablation.hpp"
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
  std::string ablate;  // heads switched off ("L.H") or scaled ("L.H=S"): glassbox/ablation.hpp
  bool json = false;
  int threads = default_threads();
};

void write_candidates(JsonWriter& json, const Tokenizer& tokenizer,
                      const std::vector<TokenProbability>& list) {
  json.begin_array();
  for (const TokenProbability& c : list)
    json.begin_object()
        .key("id")
        .integer(c.id)
        .key("piece")
        .string(tokenizer.piece(c.id))
        .key("probability")
        .number(c.probability)
        .end_object();
  json.end_array();
}

void print_candidates(const Tokenizer& tokenizer, const std::vector<TokenProbability>& list) {
  for (const TokenProbability& c : list)
    std::printf("  %-20s %6.2f%%\n", json_quoted(tokenizer.piece(c.id)).c_str(),
                100.0 * static_cast<double>(c.probability));
}

// Each [MASK]'s candidates with the ablation, beside those without it and how far the distribution moved.
Result<void> fill_mask_ablated(Encoder& encoder, const Tokenizer& tokenizer, const Options& o) {
  GLASSBOX_ASSIGN(const std::vector<HeadScale> heads, parse_head_scales(o.ablate));
  GLASSBOX_ASSIGN(const std::vector<float> table, head_scale_table(encoder.model().config, heads));
  GLASSBOX_ASSIGN(const FillMaskAblation ablated,
                  ablate_fill_masks(encoder, tokenizer, o.text, o.top_k, table));
  if (o.json) {
    JsonWriter json;
    json.begin_object().key("tokens").begin_array();
    for (int id : ablated.tokens)
      json.integer(id);
    json.end_array().key("ablate");
    write_head_scales(json, heads);
    json.key("masks").begin_array();
    for (const MaskAblation& m : ablated.masks) {
      json.begin_object().key("position").integer(m.position).key("candidates");
      write_candidates(json, tokenizer, m.after);
      json.key("candidates_before");
      write_candidates(json, tokenizer, m.before);
      json.key("kl_bits").number(m.change.kl_bits).end_object();
    }
    json.end_array().end_object();
    std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
    return ok();
  }
  for (const MaskAblation& m : ablated.masks) {
    std::printf("position %d, with %s off (KL %.4f bits from every head on):\n", m.position, o.ablate.c_str(),
                m.change.kl_bits);
    print_candidates(tokenizer, m.after);
    std::printf(" every head on:\n");
    print_candidates(tokenizer, m.before);
  }
  return ok();
}

Result<void> fill_mask(const Options& o) {
  GLASSBOX_ASSIGN(LoadedModel loaded, open_model_from_flags(o.model));
  const Tokenizer& tokenizer = *loaded.tokenizer;
  GLASSBOX_ASSIGN(Encoder encoder, Encoder::create(loaded.model, {.threads = o.threads}));
  if (!o.ablate.empty()) return fill_mask_ablated(encoder, tokenizer, o);
  GLASSBOX_ASSIGN(const FilledMasks filled, fill_masks(encoder, tokenizer, o.text, o.top_k));
  if (o.json) {
    JsonWriter json;
    json.begin_object().key("tokens").begin_array();
    for (int id : filled.tokens)
      json.integer(id);
    json.end_array().key("masks").begin_array();
    for (const MaskFill& f : filled.masks) {
      json.begin_object().key("position").integer(f.position).key("candidates");
      write_candidates(json, tokenizer, f.candidates);
      json.end_object();
    }
    json.end_array().end_object();
    std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
    return ok();
  }
  for (const MaskFill& f : filled.masks) {
    std::printf("position %d:\n", f.position);
    print_candidates(tokenizer, f.candidates);
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
  app->add_option(
         "--ablate", options->ablate,
         "switch heads off (\"L.H\") or scale them (\"L.H=S\"), comma-separated: each mask's candidates "
         "with them, beside those without and the KL between the two (JSON: ablate, "
         "candidates_before, kl_bits)")
      ->type_name("HEADS");
  app->add_flag("--json", options->json,
                "print JSON: {tokens: [ids], masks: [{position, candidates: [{id, piece, probability}]}]}");
  add_threads_flag(*app, options->threads);
  return {app, [options] { return fill_mask(*options); }};
}

}  // namespace glassbox::cli
