// Shared helpers for the test suite: where the model files and reference data are, and building small
// models and files in memory.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "glassbox/bytes.hpp"

namespace glassbox::test {

// models/ of the checkout (or $GLASSBOX_MODELS_DIR): filled by scripts/fetch-models.sh.
std::string model_path(const std::string& file);
// The golden reference outputs: $GLASSBOX_GOLDEN_DIR, or ../shared/golden beside the checkout.
std::string golden_path(const std::string& file);
// llama.cpp's tokenizer test vectors: $GLASSBOX_VECTORS_DIR, or ../shared/tokenizer-vectors.
std::string vectors_path(const std::string& file);
// Reads a whole file; empty if it cannot be read.
std::string read_file(const std::string& path);

// True when the file exists. Otherwise the test is skipped with a message saying how to get the file, or
// fails when GLASSBOX_REQUIRE_MODELS is set (CI sets it: there, every model-dependent test must run).
bool have_file(const std::string& path);

#define GLASSBOX_REQUIRE_FILE(path)                                                          \
  do {                                                                                       \
    if (!::glassbox::test::have_file(path)) {                                                \
      if (::glassbox::test::files_required()) FAIL() << "required file missing: " << (path); \
      GTEST_SKIP() << "skipped: " << (path) << " is absent (run scripts/fetch-models.sh)";   \
    }                                                                                        \
  } while (0)
bool files_required();

// Little-endian byte building for synthetic files.
class ByteWriter {
 public:
  void i32(int32_t v) { raw(&v, 4); }
  void f32(float v) { raw(&v, 4); }
  void text(const std::string& s) { raw(s.data(), s.size()); }
  void floats(const std::vector<float>& v) { raw(v.data(), v.size() * 4); }
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  std::vector<std::byte>& bytes() { return bytes_; }
  std::shared_ptr<const Bytes> finish(const std::string& name) { return bytes_from_buffer(bytes_, name); }

 private:
  std::vector<std::byte> bytes_;
};

// Header fields of a llama2.c checkpoint, in file order.
struct Llama2cHeader {
  int32_t dim = 16, hidden_dim = 24, n_layers = 2, n_heads = 4, n_kv_heads = 2, vocab_size = 32, seq_len = 16;
};

// A llama2.c checkpoint with random weights (seeded) and the exact size its header implies; a negative
// vocab_size appends a separate classifier.
std::vector<std::byte> make_llama2c_checkpoint(const Llama2cHeader& h, uint32_t seed = 1);

// One tokenizer test vector: a text and the ids the reference tokenizer gives it (no BOS/EOS).
struct TokenizerVector {
  std::string text;
  std::vector<int> ids;
};
// Reads a .inp file (texts, each followed by "\n__ggml_vocab_test__\n") and its .out (one line of ids each).
std::vector<TokenizerVector> read_tokenizer_vectors(const std::string& inp_path, const std::string& out_path);

// Runs a program with arguments (no shell) and captures its output.
struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace glassbox::test
