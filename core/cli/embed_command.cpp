// glassbox embed: sentence embeddings from an encoder (BERT, sentence-transformers): every text through one
// padded batch, each pooled into one vector, and how similar the texts are to each other.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glassbox/encoder.hpp"
#include "glassbox/error.hpp"
#include "json_writer.hpp"
#include "model_flags.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  ModelFlags model;
  std::vector<std::string> texts;
  std::string pooling;  // empty: what the model file asks for
  bool normalize = false;
  bool json = false;
  int threads = default_threads();
};

void print_json(const std::vector<std::vector<int>>& tokens,
                const std::vector<std::vector<float>>& embeddings, Pooling pooling,
                const std::vector<std::vector<float>>& similarity) {
  JsonWriter json;
  json.begin_object().key("tokens").begin_array();
  for (const std::vector<int>& text : tokens) {
    json.begin_array();
    for (int id : text)
      json.integer(id);
    json.end_array();
  }
  json.end_array().key("embeddings").begin_array();
  for (const std::vector<float>& e : embeddings) {
    json.begin_array();
    for (float v : e)
      json.number(v);
    json.end_array();
  }
  json.end_array().key("pooling").string(to_string(pooling));
  if (embeddings.size() > 1) {
    json.key("similarity").begin_array();
    for (const std::vector<float>& row : similarity) {
      json.begin_array();
      for (float v : row)
        json.number(v);
      json.end_array();
    }
    json.end_array();
  }
  json.end_object();
  std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
}

Result<void> embed(const Options& o) {
  GLASSBOX_ASSIGN(LoadedModel loaded, open_model_from_flags(o.model));
  std::optional<Pooling> pooling;  // none: what the model file asks for
  if (!o.pooling.empty()) pooling = o.pooling == "cls" ? Pooling::Cls : Pooling::Mean;
  GLASSBOX_ASSIGN(Encoder encoder, Encoder::create(loaded.model, {.threads = o.threads}));
  GLASSBOX_ASSIGN(const TextEmbeddings result,
                  embed_texts(encoder, *loaded.tokenizer, o.texts, pooling, o.normalize));
  const auto& [tokens, embeddings, used_pooling, similarity] = result;
  if (o.json) {
    print_json(tokens, embeddings, used_pooling, similarity);
    return ok();
  }
  for (std::size_t i = 0; i < embeddings.size(); ++i) {
    std::printf("text %zu: %zu tokens, %s-pooled embedding of %zu values:", i + 1, tokens[i].size(),
                to_string(used_pooling), embeddings[i].size());
    for (std::size_t k = 0; k < embeddings[i].size() && k < 6; ++k)
      std::printf(" %.5f", static_cast<double>(embeddings[i][k]));
    std::printf("%s\n", embeddings[i].size() > 6 ? " ..." : "");
  }
  if (embeddings.size() > 1) {
    std::printf("cosine similarity:\n");
    for (const std::vector<float>& row : similarity) {
      for (float v : row)
        std::printf(" %7.4f", static_cast<double>(v));
      std::printf("\n");
    }
  }
  return ok();
}

}  // namespace

Command add_embed_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "embed", "Embeds texts with an encoder (BERT): one vector per text, and their cosine similarities");
  auto options = std::make_shared<Options>();
  add_model_flags(*app, options->model);
  app->add_option("--text", options->texts, "a text to embed (repeat for several; all go through one batch)")
      ->type_name("TEXT")
      ->required();
  app->add_option("--pooling", options->pooling,
                  "mean of the tokens' states, or the [CLS] token's (default: what the model file says, else "
                  "mean)")
      ->type_name("mean|cls")
      ->check(CLI::IsMember({"mean", "cls"}));
  app->add_flag("--normalize", options->normalize,
                "divide each embedding by its length (L2); a sentence-transformers folder with a Normalize "
                "module does so anyway");
  app->add_flag("--json", options->json,
                "print JSON: {tokens: [[ids] per text], embeddings: [[floats] per text], pooling, "
                "similarity: [[cosine]] (several texts)}");
  add_threads_flag(*app, options->threads);
  return {app, [options] { return embed(*options); }};
}

}  // namespace glassbox::cli
