// glassbox: run small language models and look inside them.
//
// CLI11 reads the flags and writes the usage text from their declarations. It reports parse errors and
// --help / --version by throwing; they are all caught here and become exit statuses, so nothing past the
// parser (and nothing in the core, whose errors are values) sees an exception.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "glassbox/build.hpp"

namespace {

using namespace glassbox::cli;

// The command the arguments name, for messages: "glassbox generate", or "glassbox" before one is known.
std::string command_line_name(const CLI::App& app) {
  const auto chosen = app.get_subcommands();
  return chosen.empty() ? app.get_name() : app.get_name() + " " + chosen.front()->get_name();
}

int usage_error(const CLI::App& app, const std::string& message) {
  const std::string name = command_line_name(app);
  std::fprintf(stderr, "%s: %s\nRun '%s --help' for the flags.\n", name.c_str(), message.c_str(),
               name.c_str());
  return kExitUsage;
}

// The parser's message, except where no command was recognized: for "glassbox frobnicate" it would only say
// that a command is required, so name the word it did not know instead.
std::string usage_message(const CLI::App& app, const CLI::ParseError& e) {
  const std::vector<std::string> unknown = app.remaining();
  if (!app.get_subcommands().empty() || unknown.empty()) return e.what();
  const std::string& word = unknown.front();
  return word.rfind('-', 0) == 0 ? "unknown flag " + word : "unknown command '" + word + "'";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Runs small language models and shows what they do inside.", "glassbox");
  app.set_version_flag("--version", glassbox::build_description(), "print the version and exit");
  app.require_subcommand(1);
  const Command commands[] = {
      add_generate_command(app), add_tokenize_command(app),  add_inspect_command(app),
      add_bench_command(app),    add_convert_command(app),   add_check_command(app),
      add_embed_command(app),    add_fill_mask_command(app), add_score_command(app),
      add_patch_command(app),    add_train_command(app),     add_synthetic_command(app)};
  app.footer("Run 'glassbox COMMAND --help' for a command's flags.");  // after the commands, which copy it
  if (argc < 2) {
    std::fputs(app.help().c_str(), stderr);
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help or --version: printed to stdout
  } catch (const CLI::ParseError& e) {
    return usage_error(app, usage_message(app, e));
  }
  for (const Command& command : commands) {
    if (!command.app->parsed()) continue;
    const glassbox::Result<void> done = command.run();
    if (!done) {
      std::fprintf(stderr, "glassbox %s: %s\n", command.app->get_name().c_str(),
                   done.error().message.c_str());
      return kExitFailure;
    }
    return kExitOk;
  }
  return kExitUsage;  // unreachable: require_subcommand(1) makes the parser insist on one
}
