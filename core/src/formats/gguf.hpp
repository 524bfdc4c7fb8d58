// GGUF, the self-describing model format of the llama.cpp ecosystem (versions 2 and 3):
//   magic "GGUF", uint32 version, uint64 tensor_count, uint64 metadata_kv_count,
//   metadata: (string key, uint32 value type, value)*, tensor infos: (string name, uint32 n_dims,
//   uint64 dims[n_dims] (innermost first), uint32 ggml type, uint64 offset)*, padding to general.alignment
//   (default 32), then the tensor data, each tensor at its offset from the data start.
// Strings are uint64 length + UTF-8 bytes; arrays are uint32 element type + uint64 count + elements.
// The reader checks every length and offset against the file before it trusts it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
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
// Bytes per element of a fixed-size type; 0 for string and array.
std::size_t gguf_element_size(GgufType type);

struct GgufValue;
// The value of fixed-size `type` stored little-endian at `at` (gguf_element_size(type) bytes, checked by the
// caller): one decoder for single metadata values and the elements of array views alike.
GgufValue gguf_scalar(GgufType type, const std::byte* at);

// The elements of a metadata array, immutable once built. Arrays of fixed-size numbers and bools are a typed
// view of their little-endian bytes in the file (a 30 MB uint8 array costs nothing beyond the file, not 30
// million value objects); strings are kept as strings and nested arrays as values. Copies share the
// elements. Indexing builds a GgufValue, so code written for a vector of values (`items[i].integer`,
// `for (const GgufValue& v : items)`) keeps working; the typed accessors skip building one.
class GgufArray {
 public:
  GgufArray() = default;
  GgufArray(std::vector<GgufValue> values);  // NOLINT(google-explicit-constructor): `v.items = {...}`
  // `count` elements of the fixed-size `type` at `raw` (checked by the caller), kept alive by `owner`.
  static GgufArray view(GgufType type, const std::byte* raw, std::size_t count,
                        std::shared_ptr<const void> owner);
  static GgufArray of_strings(std::vector<std::string> strings);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Out of range gives a default GgufValue (callers check size() first; this only keeps a slip harmless).
  GgufValue operator[](std::size_t i) const;
  GgufValue front() const;

  // Typed element access (0, 0.0, false or "" when the element is not of that kind or out of range).
  int64_t integer(std::size_t i) const;  // a uint64 above INT64_MAX keeps its bits, as GgufValue::integer
  double real(std::size_t i) const;
  bool boolean(std::size_t i) const;
  const std::string& text(std::size_t i) const;

  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = GgufValue;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = GgufValue;
    const_iterator(const GgufArray* array, std::size_t i) : array_(array), i_(i) {}
    GgufValue operator*() const;
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& other) const { return i_ == other.i_; }

   private:
    const GgufArray* array_;
    std::size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  struct Storage;
  std::shared_ptr<const Storage> storage_;
  std::size_t size_ = 0;
};

struct GgufValue {
  GgufType type = GgufType::Uint8;
  GgufType element_type = GgufType::Uint8;  // arrays only
  // Every integer type. A uint64 above INT64_MAX keeps its 64 bits here, where it reads negative: see
  // exceeds_int64() and unsigned_integer().
  int64_t integer = 0;
  double real = 0.0;  // float32 / float64
  bool boolean = false;
  std::string text;
  GgufArray items;  // arrays

  bool is_integer() const;
  bool is_real() const { return type == GgufType::Float32 || type == GgufType::Float64; }
  bool exceeds_int64() const { return type == GgufType::Uint64 && integer < 0; }
  uint64_t unsigned_integer() const { return static_cast<uint64_t>(integer); }
  // The exact integer in decimal, for messages.
  std::string integer_text() const {
    return exceeds_int64() ? std::to_string(unsigned_integer()) : std::to_string(integer);
  }
};

inline GgufValue GgufArray::const_iterator::operator*() const {
  return (*array_)[i_];
}

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ne0 (the innermost, contiguous dimension) first
  uint32_t ggml_type = 0;      // a row of the element table (kernels/element_types.hpp)
  uint64_t offset = 0;         // from the start of the tensor data
  uint64_t bytes = 0;
  const std::byte* data = nullptr;
};

class GgufFile {
 public:
  // Read these freely; add entries with add_metadata / add_tensor, which keep the lookup index (entries
  // pushed directly are still found, by a scan).
  uint32_t version = 0;
  uint64_t alignment = 32;
  uint64_t data_offset = 0;
  std::vector<std::pair<std::string, GgufValue>> metadata;
  std::vector<GgufTensorInfo> tensors;
  std::shared_ptr<const Bytes> bytes;

  const std::string& source() const { return bytes->name(); }
  const GgufValue* find(std::string_view key) const;
  const GgufTensorInfo* tensor(std::string_view name) const;

  // False (and nothing added) when the key or tensor name is already there.
  bool add_metadata(std::string key, GgufValue value);
  bool add_tensor(GgufTensorInfo info);

  // Typed lookups; errors name the key and the type found. The fallback is returned when the key is absent.
  // integer() fails for a uint64 above INT64_MAX; integer_in() also checks the range, naming key and value.
  Result<int64_t> integer(std::string_view key) const;
  Result<int64_t> integer(std::string_view key, int64_t fallback) const;
  Result<int64_t> integer_in(std::string_view key, int64_t min, int64_t max) const;
  Result<int64_t> integer_in(std::string_view key, int64_t min, int64_t max, int64_t fallback) const;
  Result<double> real(std::string_view key, double fallback) const;  // accepts integers too
  Result<std::string> string(std::string_view key) const;
  Result<std::string> string(std::string_view key, const std::string& fallback) const;
  Result<bool> boolean(std::string_view key, bool fallback) const;

 private:
  // Name -> position in metadata / tensors: lookups and the reader's duplicate checks in constant time.
  std::unordered_map<std::string, std::size_t> metadata_index_;
  std::unordered_map<std::string, std::size_t> tensor_index_;
};

bool is_gguf(const Bytes& bytes);

// Parses and validates the header, metadata and tensor infos; tensor data stays in `bytes`.
Result<GgufFile> read_gguf(std::shared_ptr<const Bytes> bytes);

Result<Model> model_from_gguf(const GgufFile& file);
Result<Tokenizer> tokenizer_from_gguf(const GgufFile& file);

}  // namespace glassbox
