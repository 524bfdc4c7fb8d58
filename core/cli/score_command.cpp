// glassbox score: how well the model predicts a text, token by token. The core's score_text computes it (the
// page and training call the same function); this file only prints.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "glassbox/score.hpp"
#include "json_writer.hpp"
#include "model_flags.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  ModelFlags model;
  std::string text;
  std::string attention = "exact";
  int threads = default_threads();
  bool json = false;
};

void print_json(const Tokenizer& tokenizer, const TextScore& score) {
  JsonWriter json;
  json.begin_object().key("tokens").begin_array();
  for (int id : score.ids)
    json.begin_object().key("id").integer(id).key("piece").string(tokenizer.piece(id)).end_object();
  json.end_array().key("logprobs").begin_array();
  for (double lp : score.logprobs)
    json.number(lp);
  json.end_array();
  json.key("loss").number(score.loss).key("perplexity").number(score.perplexity);
  if (score.against_exact) {
    json.key("against_exact").begin_object();
    write_json_members(json, *score.against_exact);
    json.end_object();
  }
  json.end_object();
  std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
}

void print_text(const Tokenizer& tokenizer, const TextScore& score) {
  std::printf("%-8s %-8s %-20s %s\n", "position", "id", "piece", "log p (given the tokens before)");
  for (std::size_t i = 0; i < score.ids.size(); ++i) {
    const std::string piece = json_quoted(tokenizer.piece(score.ids[i]));
    if (i == 0) {
      std::printf("%-8zu %-8d %-20s -\n", i, score.ids[i], piece.c_str());
    } else {
      std::printf("%-8zu %-8d %-20s %.6f\n", i, score.ids[i], piece.c_str(), score.logprobs[i - 1]);
    }
  }
  std::printf("loss %.6f nats/token, perplexity %.4f over %zu predicted tokens\n", score.loss,
              score.perplexity, score.logprobs.size());
  if (!score.against_exact) return;
  const AgainstExact& a = *score.against_exact;
  std::printf(
      "against exact attention (loss %.6f): mean KL(exact || this) %.6f nats, the top token agrees at "
      "%.1f%% of positions\n",
      a.exact_loss, a.mean_kl, 100.0 * a.top1_agreement);
  std::printf("%-6s %-6s %-22s %s\n", "layer", "head", "max |row - exact row|", "mean |row - exact row|");
  for (const AttentionRowError& e : a.heads)
    std::printf("%-6d %-6d %-22.6f %.6f%s\n", e.layer, e.head, e.max_abs, e.mean_abs,
                e.energy_kept >= 0 ? cat("   energy kept ", e.energy_kept).c_str() : "");
}

Result<void> score(const Options& options) {
  GLASSBOX_ASSIGN(const AttentionVariant attention, parse_attention_variant(options.attention));
  GLASSBOX_ASSIGN(const LoadedModel loaded, open_model_from_flags(options.model));
  GLASSBOX_ASSIGN(const TextScore result,
                  score_text(loaded.model, *loaded.tokenizer, options.text,
                             {.threads = options.threads, .attention = attention, .compare_to_exact = true}));
  if (options.json) {
    print_json(*loaded.tokenizer, result);
  } else {
    print_text(*loaded.tokenizer, result);
  }
  return ok();
}

}  // namespace

Command add_score_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "score",
      "Prints the log-probability of each token of a text given the ones before, the loss and perplexity");
  auto options = std::make_shared<Options>();
  add_model_flags(*app, options->model);
  app->add_option("--text", options->text,
                  "the text to score (encoded as generate encodes a prompt, BOS first)")
      ->type_name("TEXT")
      ->required();
  app->add_option(
         "--attention", options->attention,
         "the attention the run computes: exact (the model's own), window:W, global-window:G,W, linear, "
         "performer:M[:SEED] or low-rank:R (docs/inspect.md)")
      ->type_name("VARIANT")
      ->capture_default_str();
  add_threads_flag(*app, options->threads);
  app->add_flag(
      "--json", options->json,
      "print JSON: {tokens: [{id, piece}], logprobs: [...], loss, perplexity} (natural logs); with "
      "a variant also "
      "against_exact: {kl, top_agrees, mean_kl, top1_agreement, exact_loss, heads: [{layer, head, max_abs, "
      "mean_abs}]}");
  return {app, [options] { return score(*options); }};
}

}  // namespace glassbox::cli
