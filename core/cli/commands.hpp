// The subcommands of the `glassbox` tool. Each returns the process exit code: 0 on success, 1 when the work
// failed (a bad model file, say), 2 for wrong arguments (after printing usage).
#pragma once

#include "args.hpp"

namespace glassbox::cli {

int run_generate(int argc, char** argv);
int run_tokenize(int argc, char** argv);
int run_bench(int argc, char** argv);
int run_convert(int argc, char** argv);

}  // namespace glassbox::cli
