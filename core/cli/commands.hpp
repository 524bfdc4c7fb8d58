// The subcommands of the `glassbox` tool. Each one declares its flags on the parser (CLI11, which also writes
// the usage text from them) and hands back the work to do once the flags are read; main() runs that work.
#pragma once

#include <functional>

#include "glassbox/result.hpp"

namespace CLI {
class App;
}

namespace glassbox::cli {

// Exit status of the process.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the work failed (a bad model file, say)
inline constexpr int kExitUsage = 2;    // wrong arguments (the message and a pointer to --help)

struct Command {
  CLI::App* app;                      // the subcommand, owned by the parser it was added to
  std::function<Result<void>()> run;  // reads the values the parser stored; a failure is exit status 1
};

Command add_generate_command(CLI::App& parent);
Command add_tokenize_command(CLI::App& parent);
Command add_bench_command(CLI::App& parent);
Command add_convert_command(CLI::App& parent);
Command add_inspect_command(CLI::App& parent);
Command add_check_command(CLI::App& parent);
Command add_embed_command(CLI::App& parent);
Command add_fill_mask_command(CLI::App& parent);
Command add_score_command(CLI::App& parent);
Command add_patch_command(CLI::App& parent);
Command add_train_command(CLI::App& parent);
Command add_synthetic_command(CLI::App& parent);

}  // namespace glassbox::cli
