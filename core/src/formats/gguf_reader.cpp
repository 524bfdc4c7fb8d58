// Parsing and validating a GGUF file. Nothing is trusted: counts are checked against the bytes left before
// anything is reserved, dimension products are checked for overflow, and every tensor's data must lie
// inside the file at an aligned offset.
#include <limits>

#include "formats/byte_reader.hpp"
#include "formats/gguf.hpp"

namespace glassbox {
namespace {

constexpr int kMaxArrayDepth = 8;
constexpr uint32_t kMaxDims = 4;

class GgufParser {
 public:
  explicit GgufParser(const Bytes& bytes) : in_(bytes) {}

  Result<std::string> string(std::string_view field) {
    auto length = in_.read<uint64_t>(field);
    if (!length) return length.error();
    auto text = in_.read_bytes(*length, field);
    if (!text) return text.error();
    return std::string(*text);
  }

  // Reads one value of `type` for the metadata key `key` (named in errors).
  Result<GgufValue> value(GgufType type, const std::string& key, int depth) {
    GgufValue v;
    v.type = type;
    switch (type) {
      case GgufType::Uint8:
        return integer<uint8_t>(v, key);
      case GgufType::Int8:
        return integer<int8_t>(v, key);
      case GgufType::Uint16:
        return integer<uint16_t>(v, key);
      case GgufType::Int16:
        return integer<int16_t>(v, key);
      case GgufType::Uint32:
        return integer<uint32_t>(v, key);
      case GgufType::Int32:
        return integer<int32_t>(v, key);
      case GgufType::Int64:
        return integer<int64_t>(v, key);
      case GgufType::Uint64: {
        auto x = in_.read<uint64_t>(key);
        if (!x) return x.error();
        if (*x > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          return error(source(), ": metadata ", key, ": uint64 value ", *x, " is too large");
        v.integer = static_cast<int64_t>(*x);
        return v;
      }
      case GgufType::Float32: {
        auto x = in_.read<float>(key);
        if (!x) return x.error();
        v.real = *x;
        return v;
      }
      case GgufType::Float64: {
        auto x = in_.read<double>(key);
        if (!x) return x.error();
        v.real = *x;
        return v;
      }
      case GgufType::Bool: {
        auto x = in_.read<uint8_t>(key);
        if (!x) return x.error();
        if (*x > 1) return error(source(), ": metadata ", key, ": a bool must be 0 or 1, found ", int{*x});
        v.boolean = *x == 1;
        return v;
      }
      case GgufType::String: {
        auto s = string(key);
        if (!s) return s.error();
        v.text = std::move(*s);
        return v;
      }
      case GgufType::Array:
        return array(v, key, depth);
    }
    return error(source(), ": metadata ", key, ": unknown value type ", static_cast<uint32_t>(type));
  }

  Result<GgufType> type(const std::string& what) {
    auto raw = in_.read<uint32_t>(what + " type");
    if (!raw) return raw.error();
    if (*raw > static_cast<uint32_t>(GgufType::Float64))
      return error(source(), ": ", what, ": unknown value type ", *raw, " at offset ", in_.offset() - 4);
    return static_cast<GgufType>(*raw);
  }

  ByteReader& in() { return in_; }
  const std::string& source() const { return in_.source(); }

 private:
  template <class T>
  Result<GgufValue> integer(GgufValue& v, const std::string& key) {
    auto x = in_.read<T>(key);
    if (!x) return x.error();
    v.integer = static_cast<int64_t>(*x);
    return v;
  }

  Result<GgufValue> array(GgufValue& v, const std::string& key, int depth) {
    if (depth >= kMaxArrayDepth)
      return error(source(), ": metadata ", key, ": arrays nested deeper than ", kMaxArrayDepth);
    auto element = type("metadata " + key + " element");
    if (!element) return element.error();
    auto count = in_.read<uint64_t>(key + " count");
    if (!count) return count.error();
    // Every element takes at least one byte: a count beyond the bytes left is corrupt, not big.
    if (*count > in_.remaining())
      return error(source(), ": metadata ", key, ": array of ", *count, " elements cannot fit in the ",
                   in_.remaining(), " bytes left");
    v.element_type = *element;
    v.items.reserve(static_cast<std::size_t>(*count));
    for (uint64_t i = 0; i < *count; ++i) {
      auto item = value(*element, key, depth + 1);
      if (!item) return item.error();
      v.items.push_back(std::move(*item));
    }
    return v;
  }

  ByteReader in_;
};

uint64_t align_up(uint64_t offset, uint64_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

}  // namespace

bool is_gguf(const Bytes& bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "GGUF", 4) == 0;
}

Result<GgufFile> read_gguf(std::shared_ptr<const Bytes> bytes) {
  GgufFile file;
  file.bytes = bytes;
  const std::string& source = bytes->name();
  GgufParser parser(*bytes);
  ByteReader& in = parser.in();

  auto magic = in.read_bytes(4, "magic");
  if (!magic) return magic.error();
  if (*magic != "GGUF") return error(source, ": not a GGUF file: the magic bytes are not \"GGUF\"");
  auto version = in.read<uint32_t>("version");
  if (!version) return version.error();
  if (*version != 2 && *version != 3)
    return error(source, ": unsupported GGUF version ", *version, " (glassbox reads versions 2 and 3)");
  file.version = *version;
  auto tensor_count = in.read<uint64_t>("tensor_count");
  if (!tensor_count) return tensor_count.error();
  auto kv_count = in.read<uint64_t>("metadata_kv_count");
  if (!kv_count) return kv_count.error();
  // The smallest key/value is 13 bytes and the smallest tensor info 24: larger counts cannot be real.
  if (*kv_count > in.remaining() / 13)
    return error(source, ": metadata_kv_count ", *kv_count, " is impossible for a file of ", bytes->size(),
                 " bytes");
  if (*tensor_count > in.remaining() / 24)
    return error(source, ": tensor_count ", *tensor_count, " is impossible for a file of ", bytes->size(),
                 " bytes");

  for (uint64_t i = 0; i < *kv_count; ++i) {
    auto key = parser.string(cat("metadata key ", i));
    if (!key) return key.error();
    auto type = parser.type("metadata " + *key);
    if (!type) return type.error();
    auto value = parser.value(*type, *key, 0);
    if (!value) return value.error();
    if (file.find(*key)) return error(source, ": metadata key ", *key, " appears twice");
    file.metadata.emplace_back(std::move(*key), std::move(*value));
  }

  if (const GgufValue* alignment = file.find("general.alignment")) {
    if (!alignment->is_integer() || alignment->integer <= 0 ||
        (alignment->integer & (alignment->integer - 1)) != 0)
      return error(source, ": general.alignment must be a positive power of two, found ",
                   alignment->is_integer() ? std::to_string(alignment->integer) : to_string(alignment->type));
    file.alignment = static_cast<uint64_t>(alignment->integer);
  }

  for (uint64_t i = 0; i < *tensor_count; ++i) {
    GgufTensorInfo t;
    auto name = parser.string(cat("tensor ", i, " name"));
    if (!name) return name.error();
    t.name = std::move(*name);
    auto n_dims = in.read<uint32_t>("tensor " + t.name + " n_dims");
    if (!n_dims) return n_dims.error();
    if (*n_dims == 0 || *n_dims > kMaxDims)
      return error(source, ": tensor ", t.name, ": n_dims must be in 1..", kMaxDims, ", found ", *n_dims);
    uint64_t elements = 1;
    for (uint32_t d = 0; d < *n_dims; ++d) {
      auto dim = in.read<uint64_t>("tensor " + t.name + " dims");
      if (!dim) return dim.error();
      if (*dim == 0) return error(source, ": tensor ", t.name, ": dimension ", d, " is 0");
      if (__builtin_mul_overflow(elements, *dim, &elements) || elements > (uint64_t{1} << 40))
        return error(source, ": tensor ", t.name,
                     ": dimensions overflow (the product exceeds 2^40 elements)");
      t.dims.push_back(*dim);
    }
    auto ggml_type = in.read<uint32_t>("tensor " + t.name + " type");
    if (!ggml_type) return ggml_type.error();
    const GgmlTypeInfo* info = ggml_type_info(*ggml_type);
    if (!info) return error(source, ": tensor ", t.name, ": unknown ggml type ", *ggml_type);
    t.ggml_type = *ggml_type;
    if (t.dims[0] % info->block_values != 0)
      return error(source, ": tensor ", t.name, ": its row length ", t.dims[0], " is not a multiple of the ",
                   info->name, " block size ", info->block_values);
    t.bytes = elements / info->block_values * info->block_bytes;
    auto offset = in.read<uint64_t>("tensor " + t.name + " offset");
    if (!offset) return offset.error();
    t.offset = *offset;
    if (t.offset % file.alignment != 0)
      return error(source, ": tensor ", t.name, ": offset ", t.offset, " is not a multiple of the alignment ",
                   file.alignment);
    if (file.tensor(t.name)) return error(source, ": tensor ", t.name, " appears twice");
    file.tensors.push_back(std::move(t));
  }

  file.data_offset = align_up(in.offset(), file.alignment);
  if (file.data_offset > bytes->size() && !file.tensors.empty())
    return error(source, ": the tensor data would start at offset ", file.data_offset,
                 ", past the end of the file (", bytes->size(), " bytes)");
  const uint64_t data_size = file.tensors.empty() ? 0 : bytes->size() - file.data_offset;
  for (GgufTensorInfo& t : file.tensors) {
    if (t.offset > data_size || t.bytes > data_size - t.offset)
      return error(source, ": tensor ", t.name, ": its data (", t.bytes, " bytes at offset ", t.offset,
                   ") runs past the end of the file (", data_size, " bytes of tensor data)");
    t.data = bytes->data() + file.data_offset + t.offset;
  }
  return file;
}

// --- lookups ----------------------------------------------------------------------------------------------

const GgufValue* GgufFile::find(std::string_view key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

const GgufTensorInfo* GgufFile::tensor(std::string_view name) const {
  for (const GgufTensorInfo& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

Result<int64_t> GgufFile::integer(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return error(source(), ": metadata ", key, " is missing");
  if (!v->is_integer())
    return error(source(), ": metadata ", key, " must be an integer, found ", to_string(v->type));
  return v->integer;
}

Result<int64_t> GgufFile::integer(std::string_view key, int64_t fallback) const {
  return find(key) ? integer(key) : Result<int64_t>(fallback);
}

Result<double> GgufFile::real(std::string_view key, double fallback) const {
  const GgufValue* v = find(key);
  if (!v) return fallback;
  if (v->is_real()) return v->real;
  if (v->is_integer()) return static_cast<double>(v->integer);
  return error(source(), ": metadata ", key, " must be a number, found ", to_string(v->type));
}

Result<std::string> GgufFile::string(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return error(source(), ": metadata ", key, " is missing");
  if (v->type != GgufType::String)
    return error(source(), ": metadata ", key, " must be a string, found ", to_string(v->type));
  return v->text;
}

Result<std::string> GgufFile::string(std::string_view key, const std::string& fallback) const {
  return find(key) ? string(key) : Result<std::string>(fallback);
}

Result<bool> GgufFile::boolean(std::string_view key, bool fallback) const {
  const GgufValue* v = find(key);
  if (!v) return fallback;
  if (v->type != GgufType::Bool)
    return error(source(), ": metadata ", key, " must be a bool, found ", to_string(v->type));
  return v->boolean;
}

}  // namespace glassbox
