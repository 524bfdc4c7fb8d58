// GgufArray: metadata arrays without one value object per element. A tokenizer's 150k-entry score and
// token-type arrays, or an arbitrary blob of bytes, stay where they are in the file and are decoded on
// access.
#include <cstring>
#include <iterator>

#include "formats/gguf.hpp"

namespace glassbox {

struct GgufArray::Storage {
  // Fixed-size elements: `raw` points at count * element_size bytes that `owner` keeps alive.
  GgufType raw_type = GgufType::Uint8;
  const std::byte* raw = nullptr;
  std::shared_ptr<const void> owner;
  std::vector<std::string> strings;  // arrays of strings
  std::vector<GgufValue> values;     // nested arrays, and arrays built from values in code
  enum class Kind { Raw, Strings, Values } kind = Kind::Values;

  const std::byte* element(std::size_t i) const;
};

namespace {

template <class T>
T load(const std::byte* at) {
  T value;
  std::memcpy(&value, at, sizeof value);  // GGUF is little-endian, like every target
  return value;
}

// A fixed-size element as an integer (the integer types; a uint64 keeps its bits) or 0.
int64_t decode_integer(GgufType type, const std::byte* at) {
  switch (type) {
    case GgufType::Uint8:
      return load<uint8_t>(at);
    case GgufType::Int8:
      return load<int8_t>(at);
    case GgufType::Uint16:
      return load<uint16_t>(at);
    case GgufType::Int16:
      return load<int16_t>(at);
    case GgufType::Uint32:
      return load<uint32_t>(at);
    case GgufType::Int32:
      return load<int32_t>(at);
    case GgufType::Uint64:
      return static_cast<int64_t>(load<uint64_t>(at));  // keeps the bits; see GgufValue::integer
    case GgufType::Int64:
      return load<int64_t>(at);
    default:
      return 0;
  }
}

// A fixed-size element as a real (float32 / float64) or 0.
double decode_real(GgufType type, const std::byte* at) {
  if (type == GgufType::Float32) return load<float>(at);
  if (type == GgufType::Float64) return load<double>(at);
  return 0.0;
}

bool decode_boolean(GgufType type, const std::byte* at) {
  return type == GgufType::Bool && load<uint8_t>(at) != 0;
}

const std::string& empty_string() {
  static const std::string empty;
  return empty;
}

// The metadata value types, in GgufType order (a type indexes its row): name, and bytes per value (0 for
// strings and arrays, whose size is in the file).
struct GgufTypeRow {
  GgufType type;
  const char* name;
  std::size_t size;
  bool integer;
};
constexpr GgufTypeRow kValueTypes[] = {
    {GgufType::Uint8, "uint8", 1, true},      {GgufType::Int8, "int8", 1, true},
    {GgufType::Uint16, "uint16", 2, true},    {GgufType::Int16, "int16", 2, true},
    {GgufType::Uint32, "uint32", 4, true},    {GgufType::Int32, "int32", 4, true},
    {GgufType::Float32, "float32", 4, false}, {GgufType::Bool, "bool", 1, false},
    {GgufType::String, "string", 0, false},   {GgufType::Array, "array", 0, false},
    {GgufType::Uint64, "uint64", 8, true},    {GgufType::Int64, "int64", 8, true},
    {GgufType::Float64, "float64", 8, false},
};
constexpr bool rows_in_type_order() {
  for (std::size_t i = 0; i < std::size(kValueTypes); ++i)
    if (static_cast<std::size_t>(kValueTypes[i].type) != i) return false;
  return true;
}
static_assert(rows_in_type_order());

// Null for a number that is no GgufType (the reader checks types before building values; this keeps a
// stray one harmless).
const GgufTypeRow* row_of(GgufType type) {
  const auto i = static_cast<std::size_t>(type);
  return i < std::size(kValueTypes) ? &kValueTypes[i] : nullptr;
}

}  // namespace

std::size_t gguf_element_size(GgufType type) {
  const GgufTypeRow* row = row_of(type);
  return row ? row->size : 0;
}

const char* to_string(GgufType type) {
  const GgufTypeRow* row = row_of(type);
  return row ? row->name : "unknown";
}

bool GgufValue::is_integer() const {
  const GgufTypeRow* row = row_of(type);
  return row && row->integer;
}

GgufArray::GgufArray(std::vector<GgufValue> values) : size_(values.size()) {
  auto storage = std::make_shared<Storage>();
  storage->values = std::move(values);
  storage_ = std::move(storage);
}

GgufArray GgufArray::view(GgufType type, const std::byte* raw, std::size_t count,
                          std::shared_ptr<const void> owner) {
  GgufArray array;
  if (gguf_element_size(type) == 0) return array;  // not a fixed-size type: nothing to view
  auto storage = std::make_shared<Storage>();
  storage->kind = Storage::Kind::Raw;
  storage->raw_type = type;
  storage->raw = raw;
  storage->owner = std::move(owner);
  array.storage_ = std::move(storage);
  array.size_ = count;
  return array;
}

GgufArray GgufArray::of_strings(std::vector<std::string> strings) {
  GgufArray array;
  array.size_ = strings.size();
  auto storage = std::make_shared<Storage>();
  storage->kind = Storage::Kind::Strings;
  storage->strings = std::move(strings);
  array.storage_ = std::move(storage);
  return array;
}

const std::byte* GgufArray::Storage::element(std::size_t i) const {
  return raw + i * gguf_element_size(raw_type);
}

GgufValue gguf_scalar(GgufType type, const std::byte* at) {
  GgufValue v;
  v.type = type;
  v.integer = decode_integer(type, at);
  v.real = decode_real(type, at);
  v.boolean = decode_boolean(type, at);
  return v;
}

GgufValue GgufArray::operator[](std::size_t i) const {
  if (i >= size_) return GgufValue{};
  switch (storage_->kind) {
    case Storage::Kind::Raw:
      return gguf_scalar(storage_->raw_type, storage_->element(i));
    case Storage::Kind::Strings: {
      GgufValue v;
      v.type = GgufType::String;
      v.text = storage_->strings[i];
      return v;
    }
    case Storage::Kind::Values:
      break;
  }
  return storage_->values[i];
}

GgufValue GgufArray::front() const {
  return (*this)[0];
}

int64_t GgufArray::integer(std::size_t i) const {
  if (i < size_ && storage_->kind == Storage::Kind::Raw)
    return decode_integer(storage_->raw_type, storage_->element(i));
  if (i < size_ && storage_->kind == Storage::Kind::Values) return storage_->values[i].integer;
  return 0;
}

double GgufArray::real(std::size_t i) const {
  if (i < size_ && storage_->kind == Storage::Kind::Raw)
    return decode_real(storage_->raw_type, storage_->element(i));
  if (i < size_ && storage_->kind == Storage::Kind::Values) return storage_->values[i].real;
  return 0.0;
}

bool GgufArray::boolean(std::size_t i) const {
  if (i < size_ && storage_->kind == Storage::Kind::Raw)
    return decode_boolean(storage_->raw_type, storage_->element(i));
  if (i < size_ && storage_->kind == Storage::Kind::Values) return storage_->values[i].boolean;
  return false;
}

const std::string& GgufArray::text(std::size_t i) const {
  if (i < size_ && storage_->kind == Storage::Kind::Strings) return storage_->strings[i];
  if (i < size_ && storage_->kind == Storage::Kind::Values) return storage_->values[i].text;
  return empty_string();
}

}  // namespace glassbox
