// Readers for model and tokenizer files. Every reader validates before it trusts: sizes against the file
// length, dimensions against sane bounds, and names the file, the field and the expected versus found value
// in its error.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "glassbox/bytes.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox {

// llama2.c checkpoint ("version 0"): a header of 7 int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads,
// vocab_size, seq_len; a negative vocab_size means the classifier is stored separately), then float32
// weights. The model's tensors view `bytes`, which the model keeps alive.
Result<Model> read_llama2c_checkpoint(std::shared_ptr<const Bytes> bytes);
Result<Model> load_llama2c_checkpoint(const std::string& path);

// llama2.c tokenizer.bin: int32 max_token_length, then per token float32 score, int32 length, bytes.
Result<Tokenizer> read_llama2c_tokenizer(const Bytes& bytes);
Result<Tokenizer> load_llama2c_tokenizer(const std::string& path);

// GGUF (versions 2 and 3): architectures llama, qwen2, qwen3, gemma3, phi3, bert, nomic-bert, gpt2 and
// glassbox; weights stay in `bytes`.
Result<Model> read_gguf_model(std::shared_ptr<const Bytes> bytes);

// The tokenizer a GGUF file carries in its tokenizer.ggml.* metadata (model files and vocabulary-only files).
Result<Tokenizer> read_gguf_tokenizer(std::shared_ptr<const Bytes> bytes);

// A Hugging Face tokenizer.json (byte-level BPE like GPT-2, or SentencePiece-style BPE with byte fallback).
Result<Tokenizer> read_tokenizer_json(const Bytes& bytes);

// A Hugging Face folder: config.json + model.safetensors (or sharded with model.safetensors.index.json), for
// GPT2LMHeadModel, LlamaForCausalLM and Qwen2ForCausalLM. Native builds only (it reads several files).
Result<Model> load_hf_folder(const std::string& folder);

// Any model file, recognized by its content: GGUF or llama2.c checkpoint (weights only, no tokenizer).
Result<Model> read_model(std::shared_ptr<const Bytes> bytes);
Result<Model> load_model(const std::string& path);

// Any tokenizer file, recognized by its content: GGUF, tokenizer.json or llama2.c tokenizer.bin.
Result<Tokenizer> load_tokenizer(const std::string& path);

// Bytes that are plainly no binary model or tokenizer at all: an empty file, a web page that a server sent
// where a file was expected (a wrong address, a sign-in or error page), a Git LFS pointer standing in for the
// real file, or (where a model was expected) any other text. Read as a llama2.c header, such bytes give
// nonsense like "dim must be in 1..65536, found 1868833084"; named for what they are, a person knows what to
// fix. open_model applies this rule; the page's worker asks it of a download's first kForeignBytesHead bytes
// to stop early. A tokenizer may be text (tokenizer.json), so text in general only rules out a model.
enum class Expected { Model, Tokenizer };
inline constexpr std::size_t kForeignBytesHead = 64;  // how many leading bytes the rule reads
struct ForeignBytes {
  const char* kind;         // stable name: "empty", "web-page", "git-lfs-pointer", "text"
  std::string description;  // "it is a web page (HTML): the address may be wrong, ..."
};
// `bytes`: the file, or at least its first kForeignBytesHead bytes (an empty span is an empty file).
std::optional<ForeignBytes> foreign_bytes(std::span<const std::byte> bytes, Expected expected);
// True when the bytes start with GGUF's magic "GGUF".
bool is_gguf(std::span<const std::byte> bytes);

// A model and the tokenizer that goes with it.
struct LoadedModel {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const Tokenizer> tokenizer;
};

// Opens any supported model from its bytes: GGUF (whose own tokenizer is used unless `tokenizer` is given) or
// a llama2.c checkpoint (which needs `tokenizer`). A tokenizer may be a llama2.c tokenizer.bin, a GGUF file
// or a tokenizer.json. Errors say plainly when a file is not a model at all.
Result<LoadedModel> open_model(std::shared_ptr<const Bytes> model, std::shared_ptr<const Bytes> tokenizer);
// The same from paths (memory-mapped); an empty tokenizer path means "none given".
Result<LoadedModel> open_model_files(const std::string& model_path, const std::string& tokenizer_path);

// Writing GGUF (glassbox convert): the weight matrices re-encoded as `type`; vectors stay float32.
enum class ExportType { F32, F16, Q8_0, Q4_0 };
struct ExportSummary {
  std::string architecture;  // "llama", "qwen2", "gpt2" (llama.cpp's names) or "glassbox"
  int f16_fallbacks = 0;     // matrices whose rows are not whole quantization blocks, written as F16 instead
};
Result<ExportSummary> export_gguf(const Model& model, const Tokenizer& tokenizer, ExportType type,
                                  const std::string& name, const std::string& path);
// The same file's bytes, in memory (the page has no file system).
Result<std::vector<std::byte>> export_gguf_bytes(const Model& model, const Tokenizer& tokenizer,
                                                 ExportType type, const std::string& name);

// Fails unless the tokenizer fits the model: the same number of tokens, or for GGUF and Hugging Face files
// (whose embedding matrices are often padded) no more tokens than the model has rows.
Result<void> check_tokenizer_matches(const Tokenizer& tokenizer, const Model& model,
                                     const std::string& source);

}  // namespace glassbox
