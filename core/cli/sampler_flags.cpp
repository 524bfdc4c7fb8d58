#include "sampler_flags.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace glassbox::cli {
namespace {

// A check for one field: the value goes into otherwise default settings and the core's validate() judges
// it, so the CLI holds no copy of the ranges. CLI11 puts the flag's name in front of the message.
template <class Field>
CLI::Validator checked_by_core(Field SamplerSettings::*field) {
  return CLI::Validator(
      [field](std::string& text) -> std::string {
        SamplerSettings settings;
        if (!CLI::detail::lexical_cast(text, settings.*field)) return "'" + text + "' is not a number";
        const Result<void> valid = validate(settings);
        return valid ? std::string() : valid.error().message;
      },
      "");
}

// The seed is unsigned, and reading "-1" as one would wrap it around to 2^64 - 1 without a word.
CLI::Validator not_negative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.rfind('-', 0) == 0 ? "must be a whole number >= 0, found " + text : std::string();
      },
      "");
}

}  // namespace

void add_sampler_flags(CLI::App& app, SamplerSettings& settings) {
  app.add_option("--temperature", settings.temperature, "0: greedy; higher: more random")
      ->type_name("T")
      ->check(checked_by_core(&SamplerSettings::temperature))
      ->capture_default_str();
  app.add_option("--top-k", settings.top_k, "sample only from the K most likely tokens; 0: off")
      ->type_name("K")
      ->check(checked_by_core(&SamplerSettings::top_k))
      ->capture_default_str();
  app.add_option("--top-p", settings.top_p,
                 "sample from the smallest set of most likely tokens holding P of the probability; 1: off")
      ->type_name("P")
      ->check(checked_by_core(&SamplerSettings::top_p))
      ->capture_default_str();
  app.add_option("--seed", settings.seed, "random seed: the same seed gives the same text")
      ->type_name("S")
      ->check(not_negative())
      ->capture_default_str();
}

}  // namespace glassbox::cli
