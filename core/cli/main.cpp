// glassbox: run small language models and look inside them.
#include <cstdio>
#include <cstring>

#include "commands.hpp"

namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);
};

constexpr Command kCommands[] = {
    {"generate", "generate text from a prompt, streaming it to stdout", glassbox::cli::run_generate},
    {"tokenize", "show how a text splits into tokens (ids, pieces, byte spans)", glassbox::cli::run_tokenize},
    {"bench", "measure prompt and generation tokens/s", glassbox::cli::run_bench},
    {"convert", "write a model as GGUF (f32, f16, q8_0, q4_0)", glassbox::cli::run_convert},
};

void print_usage(std::FILE* out) {
  std::fprintf(
      out, "Usage: glassbox <command> [flags]   (glassbox <command> --help for its flags)\n\nCommands:\n");
  for (const Command& c : kCommands)
    std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return glassbox::cli::kExitUsage;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    print_usage(stdout);
    return 0;
  }
  for (const Command& c : kCommands) {
    if (!std::strcmp(argv[1], c.name)) return c.run(argc, argv);
  }
  std::fprintf(stderr, "glassbox: unknown command '%s'\n\n", argv[1]);
  print_usage(stderr);
  return glassbox::cli::kExitUsage;
}
