// Every input the fuzzers found that crashed a reader (fuzz/regressions/<harness>-<what>), replayed through
// the same entry points as the harness that found it (fuzz/entry_points.hpp): it must now be refused with an
// error value, and nothing may crash (this suite runs under ASan and UBSan in scripts/test.sh too).
// A file whose name ends in ".accepted" is a valid input that once crashed a later step: it must load.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "../fuzz/entry_points.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

namespace fs = std::filesystem;
using EntryPoint = fuzz::Outcome (*)(const uint8_t*, std::size_t);

const std::map<std::string, EntryPoint>& entry_points() {
  static const std::map<std::string, EntryPoint> points = {
      {"llama2c", fuzz::llama2c},
      {"gguf", fuzz::gguf},
      {"safetensors", fuzz::safetensors},
      {"hf_folder", fuzz::hf_folder},
      {"tokenizer_json", fuzz::tokenizer_json},
      {"tokenize", fuzz::tokenize},
      {"open_model", fuzz::open_model_and_step},
  };
  return points;
}

std::vector<fs::path> regression_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(GLASSBOX_SOURCE_DIR) / "fuzz" / "regressions"))
    if (entry.is_regular_file() && entry.path().filename() != "README.md") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// "gguf-huge-count" -> "gguf"; the longest harness name that prefixes the file name, then '-'.
std::string harness_of(const std::string& file) {
  std::string best;
  for (const auto& [name, point] : entry_points())
    if (file.rfind(name + "-", 0) == 0 && name.size() > best.size()) best = name;
  return best;
}

TEST(FuzzRegressions, EveryFileNamesItsHarness) {
  const auto files = regression_files();
  EXPECT_FALSE(files.empty());
  for (const fs::path& file : files)
    EXPECT_FALSE(harness_of(file.filename().string()).empty())
        << file << " does not start with a harness name and '-' (fuzz/README.md)";
}

TEST(FuzzRegressions, EveryFileIsRefusedWithoutCrashing) {
  bool needs_tokenizers = false;
  for (const fs::path& file : regression_files())
    needs_tokenizers |= harness_of(file.filename().string()) == "tokenize";
  if (needs_tokenizers) {
    const std::string tok512 = test::model_path("tok512.bin");
    GLASSBOX_REQUIRE_FILE(tok512);
    std::string list = tok512;
    if (test::have_file(test::vectors_path("ggml-vocab-gpt-2.gguf")))
      list += ":" + test::vectors_path("ggml-vocab-gpt-2.gguf");
    setenv("GLASSBOX_FUZZ_TOKENIZERS", list.c_str(), 0);
    setenv("GLASSBOX_FUZZ_LLAMA2C_TOKENIZER", tok512.c_str(), 0);
  }
  for (const fs::path& file : regression_files()) {
    const std::string name = file.filename().string();
    const std::string harness = harness_of(name);
    if (harness.empty()) continue;
    SCOPED_TRACE(name);
    std::ifstream in(file, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const fuzz::Outcome outcome =
        entry_points().at(harness)(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    EXPECT_EQ(outcome.problem, "");
    // The tokenize harness has no reader to refuse anything: its inputs are text.
    if (harness != "tokenize") {
      EXPECT_EQ(outcome.loaded, name.ends_with(".accepted"));
    }
  }
  std::error_code ignored;
  fs::remove_all(fuzz::hf_scratch_folder(), ignored);
}

}  // namespace
}  // namespace glassbox
