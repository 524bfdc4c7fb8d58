// glassbox convert: write a model as GGUF, optionally quantized. Reads anything glassbox can load (a llama2.c
// checkpoint with its tokenizer.bin, GGUF, a Hugging Face folder), so it converts llama2.c files for
// llama.cpp and quantizes F32 GGUF files to Q8_0 or Q4_0.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "model_flags.hpp"

namespace glassbox::cli {
namespace {

// The --type names, in the order --help lists them.
const std::pair<const char*, ExportType> kTypes[] = {{"f32", ExportType::F32},
                                                     {"f16", ExportType::F16},
                                                     {"q8_0", ExportType::Q8_0},
                                                     {"q4_0", ExportType::Q4_0}};

struct Options {
  ModelFlags model;
  std::string output;
  std::string type = kTypes[0].first;
  std::string name;  // empty: the input file's name
};

ExportType export_type(const std::string& name) {
  for (const auto& [type_name, type] : kTypes)
    if (name == type_name) return type;
  return ExportType::F32;  // unreachable: the parser only lets the names above through
}

Result<void> convert(const Options& o) {
  GLASSBOX_ASSIGN(const LoadedModel loaded, open_model_from_flags(o.model));
  const std::string name =
      o.name.empty() ? o.model.model.substr(o.model.model.find_last_of('/') + 1) : o.name;
  GLASSBOX_ASSIGN(const ExportSummary summary,
                  export_gguf(*loaded.model, *loaded.tokenizer, export_type(o.type), name, o.output));
  std::fprintf(stderr, "wrote %s: architecture %s, %s weights", o.output.c_str(),
               summary.architecture.c_str(), o.type.c_str());
  if (summary.f16_fallbacks > 0)
    std::fprintf(stderr, " (%d matrices with rows that are not whole blocks kept as f16)",
                 summary.f16_fallbacks);
  std::fprintf(stderr, "\n");
  return ok();
}

}  // namespace

Command add_convert_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "convert", "Writes the model as GGUF (readable by llama.cpp for Llama-family models)");
  auto options = std::make_shared<Options>();
  add_model_flags(*app, options->model);
  app->add_option("--output", options->output, "the GGUF file to write")->type_name("FILE")->required();
  std::vector<std::string> type_names;
  for (const auto& entry : kTypes)
    type_names.push_back(entry.first);
  app->add_option("--type", options->type, "weight encoding")
      ->type_name("TYPE")
      ->check(CLI::IsMember(type_names))
      ->capture_default_str();
  app->add_option("--name", options->name, "general.name of the output (default: the input file's name)")
      ->type_name("TEXT");
  return {app, [options] { return convert(*options); }};
}

}  // namespace glassbox::cli
