// One entry point for every model format: sniff the bytes, pick the reader, pair the model with its
// tokenizer, and check that the two belong together.
#include <filesystem>
#include <optional>

#include "formats/gguf.hpp"
#include "formats/gguf_names.hpp"
#include "glassbox/error.hpp"
#include "glassbox/formats.hpp"

namespace glassbox {
namespace {

std::span<const std::byte> all_of(const Bytes& bytes) {
  return {bytes.data(), bytes.size()};
}

bool looks_like_json(const Bytes& bytes) {
  for (std::byte b : all_of(bytes)) {
    const char c = static_cast<char>(b);
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{';
  }
  return false;
}

Result<Tokenizer> read_tokenizer(const std::shared_ptr<const Bytes>& bytes) {
  if (auto foreign = foreign_bytes(all_of(*bytes), Expected::Tokenizer))
    return error(ErrorCode::NotATokenizer, bytes->name(),
                 ": not a tokenizer file glassbox can read: ", foreign->description);
  if (is_gguf(*bytes)) return read_gguf_tokenizer(bytes);
  if (looks_like_json(*bytes)) return read_tokenizer_json(*bytes);
  return read_llama2c_tokenizer(*bytes);
}

}  // namespace

Result<Model> read_model(std::shared_ptr<const Bytes> bytes) {
  if (is_gguf(*bytes)) return read_gguf_model(std::move(bytes));
  const std::string name = bytes->name();
  if (auto foreign = foreign_bytes(all_of(*bytes), Expected::Model))
    return error(ErrorCode::NotAModel, name, ": not a model file glassbox can read: ", foreign->description);
  auto model = read_llama2c_checkpoint(std::move(bytes));
  if (!model)
    return error(
        ErrorCode::NotAModel, name,
        ": not a model file glassbox can read. It is not GGUF (no \"GGUF\" magic), and as a llama2.c "
        "checkpoint: ",
        model.error().message);
  return model;
}

Result<Model> load_model(const std::string& path) {
  if (std::filesystem::is_directory(path)) return load_hf_folder(path);
  auto bytes = map_file(path);
  if (!bytes) return bytes.error();
  return read_model(std::move(*bytes));
}

Result<LoadedModel> open_model(std::shared_ptr<const Bytes> model_bytes,
                               std::shared_ptr<const Bytes> tokenizer_bytes) {
  const std::string model_source = model_bytes->name();
  std::optional<Model> model;
  std::optional<Tokenizer> tokenizer;
  if (is_gguf(*model_bytes)) {
    // Parsed once: the model and (unless one is given) the tokenizer come from the same GgufFile.
    GLASSBOX_ASSIGN(const GgufFile file, read_gguf(model_bytes));
    GLASSBOX_ASSIGN(model, model_from_gguf(file));
    if (!tokenizer_bytes) {
      if (!file.find(gguf::kTokenizerModelKey))
        return error(ErrorCode::TokenizerNeeded, model_source,
                     ": the GGUF file has no tokenizer (tokenizer.ggml.*); give one separately");
      GLASSBOX_ASSIGN(tokenizer, tokenizer_from_gguf(file));
    }
  } else {
    // The model first: bytes that are no model at all (an image, a page, a tokenizer.bin) are called that,
    // and only a real llama2.c checkpoint is told that it needs its tokenizer.
    GLASSBOX_ASSIGN(model, read_model(model_bytes));
    if (!tokenizer_bytes)
      return error(ErrorCode::TokenizerNeeded, model_source,
                   ": a llama2.c checkpoint needs its tokenizer file (tokenizer.bin)");
  }
  if (tokenizer_bytes) {
    auto read = read_tokenizer(tokenizer_bytes);
    // Whatever made the bytes unreadable (a model given as the tokenizer, a page, a broken file), the caller
    // learns that this file is no tokenizer; an unsupported tokenizer kind keeps saying so.
    if (!read)
      return read.error().code == ErrorCode::UnsupportedArchitecture
                 ? read.error()
                 : recode(read.error(), ErrorCode::NotATokenizer);
    tokenizer = std::move(*read);
  }
  const std::string tokenizer_source = tokenizer_bytes ? tokenizer_bytes->name() : model_source;
  GLASSBOX_TRY(check_tokenizer_matches(*tokenizer, *model, tokenizer_source));
  return LoadedModel{std::make_shared<const Model>(std::move(*model)),
                     std::make_shared<const Tokenizer>(std::move(*tokenizer))};
}

Result<Tokenizer> load_tokenizer(const std::string& path) {
  auto bytes = map_file(path);
  if (!bytes) return bytes.error();
  return read_tokenizer(*bytes);
}

Result<LoadedModel> open_model_files(const std::string& model_path, const std::string& tokenizer_path) {
  if (std::filesystem::is_directory(model_path)) {
    // A Hugging Face folder: its tokenizer.json unless a tokenizer is given.
    const std::string tokenizer_file = tokenizer_path.empty()
                                           ? (std::filesystem::path(model_path) / "tokenizer.json").string()
                                           : tokenizer_path;
    GLASSBOX_ASSIGN(Model model, load_hf_folder(model_path));
    GLASSBOX_ASSIGN(Tokenizer tokenizer, load_tokenizer(tokenizer_file));
    GLASSBOX_TRY(check_tokenizer_matches(tokenizer, model, tokenizer_file));
    return LoadedModel{std::make_shared<const Model>(std::move(model)),
                       std::make_shared<const Tokenizer>(std::move(tokenizer))};
  }
  auto model_bytes = map_file(model_path);
  if (!model_bytes) return model_bytes.error();
  std::shared_ptr<const Bytes> tokenizer_bytes;
  if (!tokenizer_path.empty()) {
    auto t = map_file(tokenizer_path);
    if (!t) return t.error();
    tokenizer_bytes = std::move(*t);
  }
  return open_model(std::move(*model_bytes), std::move(tokenizer_bytes));
}

}  // namespace glassbox
