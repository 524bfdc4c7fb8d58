// glassbox tokenize: how a text splits into tokens, with each token's id, piece and the input bytes it
// covers.
#include <cstdio>

#include "commands.hpp"
#include "glassbox/formats.hpp"
#include "json.hpp"

namespace glassbox::cli {
namespace {

constexpr Flag kFlags[] = {
    {"tokenizer", "FILE",
     "llama2.c tokenizer.bin, GGUF (model or vocabulary-only) or tokenizer.json (required)"},
    {"text", "TEXT", "the text to tokenize (required)"},
    {"json", nullptr,
     "print JSON: {\"ids\": [...], \"tokens\": [{\"id\", \"piece\", \"bytes\": [begin, end]}]}"},
    {"no-bos", nullptr, "do not start with the BOS token (added when the tokenizer asks for it)"},
};

constexpr CommandSpec kSpec = {"tokenize", "tokenize --tokenizer FILE --text TEXT [--json] [--no-bos]",
                               "Splits TEXT into tokens and prints each token's id, piece and byte span.",
                               kFlags};

struct Options {
  std::string tokenizer;
  std::string text;
};

Result<Options> read_options(const Args& args) {
  Options o;
  GLASSBOX_ASSIGN(o.tokenizer, args.required("tokenizer"));
  GLASSBOX_ASSIGN(o.text, args.required("text"));
  return o;
}

Result<void> tokenize(const Args& args, const Options& o) {
  GLASSBOX_ASSIGN(const Tokenizer tokenizer, load_tokenizer(o.tokenizer));
  const std::vector<EncodedToken> tokens =
      tokenizer.encode(o.text, tokenizer.adds_bos() && !args.has("no-bos"));
  if (args.has("json")) {
    std::string ids, list;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const EncodedToken& t = tokens[i];
      const char* comma = i ? ", " : "";
      ids += std::string(comma) + std::to_string(t.id);
      list += std::string(comma) + "{\"id\": " + std::to_string(t.id) +
              ", \"piece\": " + json_string(tokenizer.piece(t.id)) + ", \"bytes\": [" +
              std::to_string(t.byte_begin) + ", " + std::to_string(t.byte_end) + "]}";
    }
    std::printf("{\"ids\": [%s], \"tokens\": [%s]}\n", ids.c_str(), list.c_str());
    return ok();
  }
  std::printf("%-8s %-20s %s\n", "id", "piece", "bytes");
  for (const EncodedToken& t : tokens) {
    std::printf("%-8d %-20s [%d, %d)\n", t.id, json_string(tokenizer.piece(t.id)).c_str(), t.byte_begin,
                t.byte_end);
  }
  std::fprintf(stderr, "%zu tokens\n", tokens.size());
  return ok();
}

}  // namespace

int run_tokenize(int argc, char** argv) {
  return run_command<Options>(kSpec, argc, argv, read_options, tokenize);
}

}  // namespace glassbox::cli
