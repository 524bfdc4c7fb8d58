// glassbox tokenize: how a text splits into tokens, with each token's id, piece and the input bytes it
// covers.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glassbox/formats.hpp"
#include "json_writer.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  std::string tokenizer;
  std::string text;
  bool json = false;
  bool no_bos = false;
  bool special = false;
};

void print_json(const Tokenizer& tokenizer, const std::vector<EncodedToken>& tokens) {
  JsonWriter json;
  json.begin_object().key("ids").begin_array();
  for (const EncodedToken& t : tokens)
    json.integer(t.id);
  json.end_array().key("tokens").begin_array();
  for (const EncodedToken& t : tokens) {
    json.begin_object().key("id").integer(t.id).key("piece").string(tokenizer.piece(t.id));
    json.key("bytes").begin_array().integer(t.byte_begin).integer(t.byte_end).end_array();
    json.end_object();
  }
  json.end_array().end_object();
  std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
}

Result<void> tokenize(const Options& o) {
  GLASSBOX_ASSIGN(const Tokenizer tokenizer, load_tokenizer(o.tokenizer));
  const std::vector<EncodedToken> tokens = tokenizer.encode(
      o.text, tokenizer.adds_bos() && !o.no_bos, o.special ? SpecialTokens::Parse : SpecialTokens::AsText);
  if (o.json) {
    print_json(tokenizer, tokens);
    return ok();
  }
  std::printf("%-8s %-20s %s\n", "id", "piece", "bytes");
  for (const EncodedToken& t : tokens) {
    std::printf("%-8d %-20s [%d, %d)\n", t.id, json_quoted(tokenizer.piece(t.id)).c_str(), t.byte_begin,
                t.byte_end);
  }
  std::fprintf(stderr, "%zu tokens\n", tokens.size());
  return ok();
}

}  // namespace

Command add_tokenize_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "tokenize", "Splits the text into tokens and prints each token's id, piece and byte span");
  auto options = std::make_shared<Options>();
  app->add_option("--tokenizer", options->tokenizer,
                  "llama2.c tokenizer.bin, GGUF (model or vocabulary-only) or tokenizer.json")
      ->type_name("FILE")
      ->required();
  app->add_option("--text", options->text, "the text to tokenize")->type_name("TEXT")->required();
  app->add_flag("--json", options->json,
                "print JSON: {ids: [...], tokens: [{id, piece, bytes: [begin, end]}]}");
  app->add_flag("--no-bos", options->no_bos,
                "do not start with the BOS token (added when the tokenizer asks for it)");
  app->add_flag(
      "--special", options->special,
      "read the spellings of special tokens in the text as those tokens (\"<|im_start|>\" becomes one "
      "token), as a rendered chat template needs");
  return {app, [options] { return tokenize(*options); }};
}

}  // namespace glassbox::cli
