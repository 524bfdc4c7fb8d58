// GGUF, the self-describing model format of the llama.cpp ecosystem (versions 2 and 3):
//   magic "GGUF", uint32 version, uint64 tensor_count, uint64 metadata_kv_count,
//   metadata: (string key, uint32 value type, value)*, tensor infos: (string name, uint32 n_dims,
//   uint64 dims[n_dims] (innermost first), uint32 ggml type, uint64 offset)*, padding to general.alignment
//   (default 32), then the tensor data, each tensor at its offset from the data start.
// Strings are uint64 length + UTF-8 bytes; arrays are uint32 element type + uint64 count + elements.
// The reader checks every length and offset against the file before it trusts it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/bytes.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/tensor.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox {

enum class GgufType : uint32_t {
  Uint8 = 0,
  Int8 = 1,
  Uint16 = 2,
  Int16 = 3,
  Uint32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  Uint64 = 10,
  Int64 = 11,
  Float64 = 12,
};
const char* to_string(GgufType type);

struct GgufValue {
  GgufType type = GgufType::Uint8;
  GgufType element_type = GgufType::Uint8;  // arrays only
  int64_t integer = 0;                      // every integer type (uint64 above INT64_MAX is rejected)
  double real = 0.0;                        // float32 / float64
  bool boolean = false;
  std::string text;
  std::vector<GgufValue> items;  // arrays

  bool is_integer() const;
  bool is_real() const { return type == GgufType::Float32 || type == GgufType::Float64; }
};

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ne0 (the innermost, contiguous dimension) first
  uint32_t ggml_type = 0;
  uint64_t offset = 0;  // from the start of the tensor data
  uint64_t bytes = 0;
  const std::byte* data = nullptr;
};

// Element encodings glassbox knows the storage size of (all of llama.cpp's classic and k-quant types).
struct GgmlTypeInfo {
  uint32_t id;
  const char* name;
  uint32_t block_values;
  uint32_t block_bytes;
};
const GgmlTypeInfo* ggml_type_info(uint32_t id);
// The DType glassbox computes with for a ggml type id, if it supports it.
bool dtype_for_ggml_type(uint32_t id, DType* out);
uint32_t ggml_type_for_dtype(DType type);

class GgufFile {
 public:
  uint32_t version = 0;
  uint64_t alignment = 32;
  uint64_t data_offset = 0;
  std::vector<std::pair<std::string, GgufValue>> metadata;
  std::vector<GgufTensorInfo> tensors;
  std::shared_ptr<const Bytes> bytes;

  const std::string& source() const { return bytes->name(); }
  const GgufValue* find(std::string_view key) const;
  const GgufTensorInfo* tensor(std::string_view name) const;

  // Typed lookups; errors name the key and the type found. The fallback is returned when the key is absent.
  Result<int64_t> integer(std::string_view key) const;
  Result<int64_t> integer(std::string_view key, int64_t fallback) const;
  Result<double> real(std::string_view key, double fallback) const;  // accepts integers too
  Result<std::string> string(std::string_view key) const;
  Result<std::string> string(std::string_view key, const std::string& fallback) const;
  Result<bool> boolean(std::string_view key, bool fallback) const;
};

bool is_gguf(const Bytes& bytes);

// Parses and validates the header, metadata and tensor infos; tensor data stays in `bytes`.
Result<GgufFile> read_gguf(std::shared_ptr<const Bytes> bytes);

Result<Model> model_from_gguf(const GgufFile& file);
Result<Tokenizer> tokenizer_from_gguf(const GgufFile& file);

}  // namespace glassbox
