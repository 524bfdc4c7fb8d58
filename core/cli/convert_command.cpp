// glassbox convert: write a model as GGUF, optionally quantized. Reads anything glassbox can load (a llama2.c
// checkpoint with its tokenizer.bin, GGUF), so it converts llama2.c files for llama.cpp and quantizes F32
// GGUF files to Q8_0 or Q4_0.
#include <cstdio>

#include "commands.hpp"
#include "model_flags.hpp"

namespace glassbox::cli {
namespace {

constexpr Flag kFlags[] = {
    kModelFlag,
    kTokenizerFlag,
    {"output", "FILE", "the GGUF file to write (required)"},
    {"type", "TYPE", "weight encoding: f32, f16, q8_0 or q4_0 (default f32)"},
    {"name", "TEXT", "general.name of the output (default: the input file name)"},
};

Result<ExportType> parse_type(const std::string& text) {
  if (text == "f32") return ExportType::F32;
  if (text == "f16") return ExportType::F16;
  if (text == "q8_0") return ExportType::Q8_0;
  if (text == "q4_0") return ExportType::Q4_0;
  return Error{"--type must be one of f32, f16, q8_0, q4_0, found '" + text + "'"};
}

}  // namespace

int run_convert(int argc, char** argv) {
  const std::string help =
      usage("convert --model FILE [--tokenizer FILE] --output FILE [--type f32|f16|q8_0|q4_0]",
            "Writes the model as GGUF (readable by llama.cpp for Llama-family models).", kFlags);
  auto args = Args::parse(argc, argv, 2, kFlags);
  if (args && args->help()) {
    std::fputs(help.c_str(), stdout);
    return 0;
  }
  Result<ExportType> type = args ? parse_type(args->text("type", "f32")) : Result<ExportType>(args.error());
  Result<std::string> output = type ? args->required("output") : Result<std::string>(type.error());
  Result<std::string> model_path = output ? args->required("model") : output;
  if (!model_path) {
    std::fprintf(stderr, "glassbox convert: %s\n\n%s", model_path.error().message.c_str(), help.c_str());
    return kExitUsage;
  }
  auto loaded = open_model_from_flags(*args);
  if (!loaded) {
    std::fprintf(stderr, "glassbox convert: %s\n", loaded.error().message.c_str());
    return kExitFailure;
  }
  const std::string base = model_path->substr(model_path->find_last_of('/') + 1);
  auto summary = export_gguf(*loaded->model, *loaded->tokenizer, *type, args->text("name", base), *output);
  if (!summary) {
    std::fprintf(stderr, "glassbox convert: %s\n", summary.error().message.c_str());
    return kExitFailure;
  }
  std::fprintf(stderr, "wrote %s: architecture %s, %s weights", output->c_str(),
               summary->architecture.c_str(), args->text("type", "f32").c_str());
  if (summary->f16_fallbacks > 0)
    std::fprintf(stderr, " (%d matrices with rows that are not whole blocks kept as f16)",
                 summary->f16_fallbacks);
  std::fprintf(stderr, "\n");
  return 0;
}

}  // namespace glassbox::cli
