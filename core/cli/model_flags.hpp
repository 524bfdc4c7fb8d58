// The flags every command that runs a model shares: which model, which tokenizer, how many threads.
#pragma once

#include "args.hpp"
#include "glassbox/formats.hpp"

namespace glassbox::cli {

inline constexpr Flag kModelFlag = {
    "model", "FILE", "model: GGUF file, or llama2.c checkpoint (.bin) with --tokenizer (required)"};
inline constexpr Flag kTokenizerFlag = {
    "tokenizer", "FILE", "tokenizer: llama2.c tokenizer.bin, GGUF or tokenizer.json (GGUF: optional)"};

// Opens --model with --tokenizer (if given).
inline Result<LoadedModel> open_model_from_flags(const Args& args) {
  GLASSBOX_ASSIGN(const std::string model_path, args.required("model"));
  return open_model_files(model_path, args.text("tokenizer"));
}

}  // namespace glassbox::cli
