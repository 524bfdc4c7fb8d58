// What each fuzz harness does with one input, shared by the libFuzzer harnesses (fuzz/*_fuzzer.cpp) and the
// regression test (tests/fuzz_regressions_test.cpp), so a saved input is replayed through exactly the calls
// that found it. Header-only: the test binary (g++) and the harnesses (clang with libFuzzer) each compile it.
//
// Every entry point returns an Outcome: whether the reader accepted the input, and a problem when a result
// breaks a promise the API makes (an encoded id outside the vocabulary, a span outside the text). A crash,
// leak or sanitizer report is the other kind of failure; the harness turns a problem into a crash too.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/safetensors.hpp"
#include "glassbox/bytes.hpp"
#include "glassbox/encoder.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/session.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox::fuzz {

struct Outcome {
  bool loaded =
      false;  // the reader accepted the input (a fuzzed input usually is refused, with an error value)
  std::string problem;  // empty unless a result broke a promise of the API
};

// A harness's way to fail on a broken promise: libFuzzer saves the input that aborted.
[[noreturn]] inline void report_problem(const std::string& problem) {
  std::fprintf(stderr, "glassbox fuzz: %s\n", problem.c_str());
  std::abort();
}

inline std::shared_ptr<const Bytes> input_bytes(const uint8_t* data, std::size_t size) {
  std::vector<std::byte> buffer(size);
  if (size > 0) std::memcpy(buffer.data(), data, size);
  return bytes_from_buffer(std::move(buffer), "fuzz-input");
}

// Encodes `text` (as text, and reading special tokens' spellings) and decodes the ids again; checks the
// promises encode makes about ids and byte spans.
inline std::string exercise_tokenizer(const Tokenizer& tokenizer, std::string_view text) {
  for (const auto [bos, special] :
       {std::pair{false, SpecialTokens::AsText}, std::pair{true, SpecialTokens::AsText},
        std::pair{false, SpecialTokens::Parse}, std::pair{true, SpecialTokens::Parse}}) {
    const std::vector<EncodedToken> tokens = tokenizer.encode(text, bos, special);
    std::vector<int> ids;
    for (const EncodedToken& t : tokens) {
      if (!tokenizer.valid_id(t.id))
        return "encode gave id " + std::to_string(t.id) + " outside the vocabulary";
      if (t.byte_begin < 0 || t.byte_begin > t.byte_end || static_cast<std::size_t>(t.byte_end) > text.size())
        return "encode gave a byte span outside the text";
      ids.push_back(t.id);
    }
    (void)tokenizer.decode(ids);
  }
  return {};
}

// Ids taken straight from the input (any int32, valid or not): decode must skip what is not a token.
inline void decode_raw_ids(const Tokenizer& tokenizer, const uint8_t* data, std::size_t size) {
  std::vector<int> ids(size / 4);
  if (!ids.empty()) std::memcpy(ids.data(), data, ids.size() * 4);
  (void)tokenizer.decode(ids);
  int previous = -1;
  for (int id : ids) {
    (void)tokenizer.token_text(previous, id);
    previous = id;
  }
}

constexpr std::string_view kSampleText = "Once upon a time, a caf\xc3\xa9 <s> \xe2\x96\x81 \xff\xfe 123!\n";

// llama2.c: the same bytes as a checkpoint and as a tokenizer.bin.
inline Outcome llama2c(const uint8_t* data, std::size_t size) {
  Outcome out;
  const auto bytes = input_bytes(data, size);
  auto model = read_llama2c_checkpoint(bytes);
  auto tokenizer = read_llama2c_tokenizer(*bytes);
  out.loaded = model.ok() || tokenizer.ok();
  if (tokenizer) out.problem = exercise_tokenizer(*tokenizer, kSampleText);
  return out;
}

// GGUF: the model and the tokenizer its metadata describes.
inline Outcome gguf(const uint8_t* data, std::size_t size) {
  Outcome out;
  const auto bytes = input_bytes(data, size);
  auto model = read_gguf_model(bytes);
  auto tokenizer = read_gguf_tokenizer(bytes);
  out.loaded = model.ok() || tokenizer.ok();
  if (tokenizer) out.problem = exercise_tokenizer(*tokenizer, kSampleText);
  return out;
}

// A safetensors file's header (read in memory; the data stays where it is).
inline Outcome safetensors(const uint8_t* data, std::size_t size) {
  Outcome out;
  auto file = read_safetensors(input_bytes(data, size));
  out.loaded = file.ok();
  if (file) {
    for (const auto& [name, t] : file->tensors) {
      const auto* begin = file->bytes->data();
      if (t.bytes > 0 && (t.data < begin || t.data + t.bytes > begin + file->bytes->size()))
        return {true, "tensor " + name + " lies outside the file"};
    }
  }
  return out;
}

// A Hugging Face folder: config.json, then this separator, then model.safetensors (no separator: the whole
// input is config.json and the folder has no weights). The reader wants a folder, so the two files are
// written to one temporary folder per process and overwritten on each input.
constexpr std::string_view kHfSeparator = "\n--model.safetensors--\n";

inline const std::filesystem::path& hf_scratch_folder() {
  static const std::filesystem::path folder = [] {
    auto path = std::filesystem::temp_directory_path() / ("glassbox-fuzz-hf-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return path;
  }();
  return folder;
}

inline Outcome hf_folder(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find(kHfSeparator);
  const std::filesystem::path& folder = hf_scratch_folder();
  std::filesystem::remove(folder / "model.safetensors");
  {
    std::ofstream config(folder / "config.json", std::ios::binary | std::ios::trunc);
    config.write(input.data(), static_cast<std::streamsize>(std::min(split, input.size())));
  }
  if (split != std::string_view::npos) {
    const std::string_view weights = input.substr(split + kHfSeparator.size());
    std::ofstream file(folder / "model.safetensors", std::ios::binary | std::ios::trunc);
    file.write(weights.data(), static_cast<std::streamsize>(weights.size()));
  }
  return {load_hf_folder(folder.string()).ok(), {}};
}

// tokenizer.json.
inline Outcome tokenizer_json(const uint8_t* data, std::size_t size) {
  Outcome out;
  auto tokenizer = read_tokenizer_json(*input_bytes(data, size));
  out.loaded = tokenizer.ok();
  if (tokenizer) out.problem = exercise_tokenizer(*tokenizer, kSampleText);
  return out;
}

// Real tokenizers, loaded once: GLASSBOX_FUZZ_TOKENIZERS (paths separated by ':'), or else the repository's
// models/tok512.bin (SentencePiece-style, stories260K) and ../shared's GPT-2 vocabulary (byte-level BPE),
// whichever exist.
inline const std::vector<Tokenizer>& real_tokenizers() {
  static const std::vector<Tokenizer> tokenizers = [] {
    std::vector<std::string> paths;
    if (const char* list = std::getenv("GLASSBOX_FUZZ_TOKENIZERS"); list && *list) {
      std::string_view rest(list);
      while (!rest.empty()) {
        const std::size_t colon = rest.find(':');
        if (colon != 0) paths.emplace_back(rest.substr(0, colon));
        rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
      }
    } else {
      paths = {std::string(GLASSBOX_SOURCE_DIR) + "/models/tok512.bin",
               std::string(GLASSBOX_SOURCE_DIR) + "/../shared/tokenizer-vectors/ggml-vocab-gpt-2.gguf"};
    }
    std::vector<Tokenizer> out;
    for (const std::string& path : paths) {
      if (!std::filesystem::exists(path)) continue;
      auto tokenizer = load_tokenizer(path);
      if (tokenizer) out.push_back(std::move(*tokenizer));
    }
    return out;
  }();
  return tokenizers;
}

// Arbitrary bytes as text to encode, and as ids to decode, with every real tokenizer.
inline Outcome tokenize(const uint8_t* data, std::size_t size) {
  Outcome out;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const Tokenizer& tokenizer : real_tokenizers()) {
    out.loaded = true;
    out.problem = exercise_tokenizer(tokenizer, text);
    if (!out.problem.empty()) return out;
    decode_raw_ids(tokenizer, data, size);
  }
  return out;
}

// The tokenizer a llama2.c checkpoint is opened with: GLASSBOX_FUZZ_LLAMA2C_TOKENIZER or models/tok512.bin.
inline std::shared_ptr<const Bytes> llama2c_tokenizer_bytes() {
  static const std::shared_ptr<const Bytes> bytes = []() -> std::shared_ptr<const Bytes> {
    const char* env = std::getenv("GLASSBOX_FUZZ_LLAMA2C_TOKENIZER");
    const std::string path = env && *env ? env : std::string(GLASSBOX_SOURCE_DIR) + "/models/tok512.bin";
    auto mapped = map_file(path);
    return mapped ? *mapped : nullptr;
  }();
  return bytes;
}

// The most a model may declare and still be run one step: the weights are views of the input (which
// libFuzzer keeps to a few MB), but a session's buffers follow the declared sizes, so bound those.
inline bool small_enough_to_run(const ModelConfig& c, const Model& m) {
  return m.weight_bytes() <= (16 << 20) && m.parameter_count() <= (8 << 20) && c.n_layers <= 64 &&
         c.dim <= 8192 && c.hidden_dim <= 32768 && c.vocab_size <= 262144 && c.n_heads <= 1024 &&
         c.n_kv_heads <= 1024 && c.head_dim <= 8192;
}

// Any model file (GGUF with its own tokenizer; else a llama2.c checkpoint with tok512.bin), opened and run
// for one step with a short context (an encoder: a padded batch of two short texts).
inline Outcome open_model_and_step(const uint8_t* data, std::size_t size) {
  Outcome out;
  const auto bytes = input_bytes(data, size);
  const bool gguf_magic = size >= 4 && std::memcmp(data, "GGUF", 4) == 0;
  auto loaded = open_model(bytes, gguf_magic ? nullptr : llama2c_tokenizer_bytes());
  if (!loaded) return out;
  out.loaded = true;
  const Model& model = *loaded->model;
  if (!small_enough_to_run(model.config, model)) return out;
  if (!model.config.causal) {  // an encoder: a padded batch of two short texts, and its MLM head if any
    auto encoder = Encoder::create(loaded->model);
    if (!encoder) return out;
    const int last = std::max(std::min(loaded->tokenizer->vocab_size(), model.config.vocab_size) - 1, 0);
    const int length = std::min(3, std::max(1, model.config.max_seq_len));
    const std::vector<std::vector<int>> texts = {std::vector<int>(static_cast<std::size_t>(length), last),
                                                 std::vector<int>(1, 0)};
    auto encoded = encoder->encode(texts);
    if (encoded && encoded->states.size() != static_cast<std::size_t>(2 * encoded->stride * model.config.dim))
      out.problem = "encode returned " + std::to_string(encoded->states.size()) + " state values";
    if (encoded && model.weights.masked_lm.present()) {
      auto logits = encoder->masked_lm_logits(encoded->state(0, 0));
      if (logits && static_cast<int>(logits->size()) != model.config.vocab_size)
        out.problem = "the MLM head returned " + std::to_string(logits->size()) + " logits";
    }
    return out;
  }
  SessionOptions options;
  options.context_length = std::min(4, std::max(1, model.config.max_seq_len));
  auto session = Session::create(loaded->model, options);
  if (!session) return out;
  const int bos = loaded->tokenizer->bos_id();
  const int first = loaded->tokenizer->valid_id(bos) ? bos : 0;
  auto logits = session->step(first);
  if (logits && static_cast<int>(logits->size()) != model.config.vocab_size)
    out.problem = "step returned " + std::to_string(logits->size()) + " logits for a vocabulary of " +
                  std::to_string(model.config.vocab_size);
  if (logits && session->position() < session->context_length()) {
    const int next = std::min(loaded->tokenizer->vocab_size(), model.config.vocab_size) - 1;
    (void)session->step(std::max(next, 0));
  }
  return out;
}

}  // namespace glassbox::fuzz
