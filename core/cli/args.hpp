// Command-line flags of the form --name VALUE or --switch. Each command declares the flags it takes;
// anything else is an error that names the flag, so a typo never silently falls back to a default.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <span>
#include <string>

#include "glassbox/result.hpp"

namespace glassbox::cli {

struct Flag {
  const char* name;   // without the leading "--"
  const char* value;  // the value's placeholder ("FILE", "N"), or nullptr for a switch
  const char* help;
};

class Args {
 public:
  // Parses argv[first..argc). "--help" / "-h" sets help() and stops checking.
  static Result<Args> parse(int argc, char** argv, int first, std::span<const Flag> flags);

  bool help() const { return help_; }
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string text(const std::string& name, const std::string& fallback = "") const;

  // Numbers, range-checked; the error names the flag and the value found.
  Result<int64_t> integer(const std::string& name, int64_t fallback, int64_t min, int64_t max) const;
  Result<double> number(const std::string& name, double fallback, double min, double max) const;
  // A flag that must be given.
  Result<std::string> required(const std::string& name) const;

 private:
  std::map<std::string, std::string> values_;
  bool help_ = false;
};

// "Usage: glassbox <command> ..." followed by one line per flag.
std::string usage(const char* command_line, const char* summary, std::span<const Flag> flags);

struct CommandSpec {
  const char* name;      // "generate"
  const char* synopsis;  // what follows "glassbox " in the usage line
  const char* summary;
  std::span<const Flag> flags;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the work failed (a bad model file, say)
inline constexpr int kExitUsage = 2;    // wrong arguments (after printing usage)

// The shape of every command: parse the flags (--help prints the usage), read and check the options (a
// problem prints the usage, exit 2), then do the work (a failure prints the core's message, exit 1).
template <class Options, class Read, class Execute>
int run_command(const CommandSpec& spec, int argc, char** argv, Read read_options, Execute execute) {
  const std::string help = usage(spec.synopsis, spec.summary, spec.flags);
  auto args = Args::parse(argc, argv, 2, spec.flags);
  if (args && args->help()) {
    std::fputs(help.c_str(), stdout);
    return kExitOk;
  }
  Result<Options> options = args ? read_options(*args) : Result<Options>(args.error());
  if (!options) {
    std::fprintf(stderr, "glassbox %s: %s\n\n%s", spec.name, options.error().message.c_str(), help.c_str());
    return kExitUsage;
  }
  Result<void> done = execute(*args, *options);
  if (!done) {
    std::fprintf(stderr, "glassbox %s: %s\n", spec.name, done.error().message.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace glassbox::cli
