// Writing GGUF version 3 files (for `glassbox convert` and for building test files): metadata in the order
// added, tensor infos, padding to the alignment, then the tensor data.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "formats/gguf.hpp"
#include "glassbox/result.hpp"

namespace glassbox {

class GgufWriter {
 public:
  void add(std::string key, GgufValue value) { metadata_.emplace_back(std::move(key), std::move(value)); }
  void add_string(std::string key, std::string value);
  void add_uint32(std::string key, uint32_t value);
  void add_float32(std::string key, float value);
  void add_bool(std::string key, bool value);
  void add_bool_array(std::string key, const std::vector<bool>& values);
  void add_string_array(std::string key, const std::vector<std::string>& values);
  void add_float32_array(std::string key, const std::vector<float>& values);
  void add_int32_array(std::string key, const std::vector<int32_t>& values);

  // dims innermost first; `data` must stay alive until write (pass `owner` to keep it so).
  void add_tensor(std::string name, std::vector<uint64_t> dims, uint32_t ggml_type,
                  std::span<const std::byte> data, std::shared_ptr<const void> owner = nullptr);

  std::vector<std::byte> to_bytes() const;
  Result<void> write_file(const std::string& path) const;

 private:
  struct PendingTensor {
    std::string name;
    std::vector<uint64_t> dims;
    uint32_t ggml_type;
    std::span<const std::byte> data;
    std::shared_ptr<const void> owner;
  };
  template <class Sink>
  void emit(Sink& sink) const;

  std::vector<std::pair<std::string, GgufValue>> metadata_;
  std::vector<PendingTensor> tensors_;
  uint64_t alignment_ = 32;
};

}  // namespace glassbox
