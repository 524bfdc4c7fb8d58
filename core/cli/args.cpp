#include "args.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "glassbox/error.hpp"

namespace glassbox::cli {

Result<Args> Args::parse(int argc, char** argv, int first, std::span<const Flag> flags) {
  Args args;
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      args.help_ = true;
      return args;
    }
    if (arg.rfind("--", 0) != 0) return error(ErrorCode::BadArgument, "unexpected argument '", arg, "' (flags start with --)");
    const std::string name = arg.substr(2);
    const Flag* flag = nullptr;
    for (const Flag& f : flags)
      if (name == f.name) flag = &f;
    if (!flag) return error(ErrorCode::BadArgument, "unknown flag --", name);
    if (args.values_.count(name)) return error(ErrorCode::BadArgument, "--", name, " is given twice");
    if (!flag->value) {
      args.values_[name] = "";
      continue;
    }
    if (i + 1 >= argc) return error(ErrorCode::BadArgument, "--", name, " needs a value (", flag->value, ")");
    args.values_[name] = argv[++i];
  }
  return args;
}

std::string Args::text(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

Result<std::string> Args::required(const std::string& name) const {
  if (!has(name)) return error(ErrorCode::BadArgument, "--", name, " is required");
  return text(name);
}

Result<int64_t> Args::integer(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
  if (!has(name)) return fallback;
  const std::string value = text(name);
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE)
    return error(ErrorCode::BadArgument, "--", name, " must be a whole number, found '", value, "'");
  if (parsed < min || parsed > max)
    return error(ErrorCode::BadArgument, "--", name, " must be in ", min, "..", max, ", found ", parsed);
  return static_cast<int64_t>(parsed);
}

Result<double> Args::number(const std::string& name, double fallback, double min, double max) const {
  if (!has(name)) return fallback;
  const std::string value = text(name);
  char* end = nullptr;
  const double parsed = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(parsed))
    return error(ErrorCode::BadArgument, "--", name, " must be a number, found '", value, "'");
  if (parsed < min || parsed > max)
    return error(ErrorCode::BadArgument, "--", name, " must be in ", min, "..", max, ", found ", parsed);
  return parsed;
}

std::string usage(const char* command_line, const char* summary, std::span<const Flag> flags) {
  std::string out = cat("Usage: glassbox ", command_line, "\n", summary, "\n\nFlags:\n");
  for (const Flag& f : flags) {
    std::string left = cat("  --", f.name, f.value ? cat(" ", f.value) : "");
    if (left.size() < 24) left.resize(24, ' ');
    out += cat(left, " ", f.help, "\n");
  }
  out += "  --help                 show this help\n";
  return out;
}

}  // namespace glassbox::cli
