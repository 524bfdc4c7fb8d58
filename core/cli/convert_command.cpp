// glassbox convert: write a model as GGUF, optionally quantized. Reads anything glassbox can load (a llama2.c
// checkpoint with its tokenizer.bin, GGUF, a Hugging Face folder), so it converts llama2.c files for
// llama.cpp and quantizes F32 GGUF files to Q8_0 or Q4_0.
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

constexpr CommandSpec kSpec = {
    "convert", "convert --model FILE [--tokenizer FILE] --output FILE [--type f32|f16|q8_0|q4_0]",
    "Writes the model as GGUF (readable by llama.cpp for Llama-family models).", kFlags};

struct Options {
  ExportType type;
  std::string output;
  std::string name;
};

Result<ExportType> parse_type(const std::string& text) {
  if (text == "f32") return ExportType::F32;
  if (text == "f16") return ExportType::F16;
  if (text == "q8_0") return ExportType::Q8_0;
  if (text == "q4_0") return ExportType::Q4_0;
  return error(ErrorCode::BadArgument, "--type must be one of f32, f16, q8_0, q4_0, found '", text, "'");
}

Result<Options> read_options(const Args& args) {
  Options o;
  GLASSBOX_ASSIGN(o.type, parse_type(args.text("type", "f32")));
  GLASSBOX_ASSIGN(o.output, args.required("output"));
  GLASSBOX_ASSIGN(const std::string model, args.required("model"));
  o.name = args.text("name", model.substr(model.find_last_of('/') + 1));
  return o;
}

Result<void> convert(const Args& args, const Options& o) {
  GLASSBOX_ASSIGN(const LoadedModel loaded, open_model_from_flags(args));
  GLASSBOX_ASSIGN(const ExportSummary summary,
                  export_gguf(*loaded.model, *loaded.tokenizer, o.type, o.name, o.output));
  std::fprintf(stderr, "wrote %s: architecture %s, %s weights", o.output.c_str(),
               summary.architecture.c_str(), args.text("type", "f32").c_str());
  if (summary.f16_fallbacks > 0)
    std::fprintf(stderr, " (%d matrices with rows that are not whole blocks kept as f16)",
                 summary.f16_fallbacks);
  std::fprintf(stderr, "\n");
  return ok();
}

}  // namespace

int run_convert(int argc, char** argv) {
  return run_command<Options>(kSpec, argc, argv, read_options, convert);
}

}  // namespace glassbox::cli
