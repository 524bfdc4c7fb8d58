// One entry point for every model format: sniff the bytes, pick the reader, pair the model with its
// tokenizer, and check that the two belong together.
#include <filesystem>
#include <optional>

#include "formats/gguf.hpp"
#include "glassbox/formats.hpp"
#include "util/text.hpp"

namespace glassbox {
namespace {

bool looks_like_json(const Bytes& bytes) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const char c = static_cast<char>(bytes.data()[i]);
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{';
  }
  return false;
}

Result<Tokenizer> read_tokenizer(const std::shared_ptr<const Bytes>& bytes) {
  if (is_gguf(*bytes)) return read_gguf_tokenizer(bytes);
  if (looks_like_json(*bytes)) return read_tokenizer_json(*bytes);
  return read_llama2c_tokenizer(*bytes);
}

}  // namespace

Result<Model> read_model(std::shared_ptr<const Bytes> bytes) {
  if (is_gguf(*bytes)) return read_gguf_model(std::move(bytes));
  const std::string name = bytes->name();
  auto model = read_llama2c_checkpoint(std::move(bytes));
  if (!model)
    return error(
        name,
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
  std::optional<Tokenizer> tokenizer;
  if (tokenizer_bytes) {
    auto t = read_tokenizer(tokenizer_bytes);
    if (!t) return t.error();
    tokenizer.emplace(std::move(*t));
  } else if (is_gguf(*model_bytes)) {
    // The tokenizer travels in the model file's metadata.
    auto file = read_gguf(model_bytes);
    if (!file) return file.error();
    if (!file->find("tokenizer.ggml.model"))
      return error(model_bytes->name(),
                   ": the GGUF file has no tokenizer (tokenizer.ggml.*); give one separately");
    auto t = tokenizer_from_gguf(*file);
    if (!t) return t.error();
    tokenizer.emplace(std::move(*t));
  } else {
    return error(model_bytes->name(), ": a llama2.c checkpoint needs its tokenizer file (tokenizer.bin)");
  }
  const std::string tokenizer_source = tokenizer_bytes ? tokenizer_bytes->name() : model_bytes->name();
  auto model = read_model(std::move(model_bytes));
  if (!model) return model.error();
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
