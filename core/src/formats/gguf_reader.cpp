// Parsing and validating a GGUF file. Nothing is trusted: counts are checked against the bytes left before
// anything is reserved, dimension products are checked for overflow, and every tensor's data must lie
// inside the file at an aligned offset. Arrays of fixed-size values are views of the file (GgufArray), and
// names are indexed as they are read, so neither a huge array nor a huge number of keys costs more than
// linear time and memory.
#include "formats/byte_reader.hpp"
#include "formats/gguf.hpp"
#include "formats/gguf_names.hpp"
#include "glassbox/formats.hpp"
#include "kernels/element_types.hpp"

namespace glassbox {
namespace {

constexpr int kMaxArrayDepth = 8;
constexpr uint32_t kMaxDims = 4;

class GgufParser {
 public:
  explicit GgufParser(std::shared_ptr<const Bytes> bytes) : in_(*bytes), bytes_(std::move(bytes)) {}

  Result<std::string> string(std::string_view field) {
    auto length = in_.read<uint64_t>(field);
    if (!length) return length.error();
    auto text = in_.read_bytes(*length, field);
    if (!text) return text.error();
    return std::string(*text);
  }

  // Reads one value of `type` for the metadata key `key` (named in errors). Fixed-size values are decoded
  // by the same code that decodes the elements of array views (gguf_scalar).
  Result<GgufValue> value(GgufType type, const std::string& key, int depth) {
    if (const std::size_t size = gguf_element_size(type)) {
      auto raw = in_.read_bytes(size, key);
      if (!raw) return raw.error();
      const auto* at = reinterpret_cast<const std::byte*>(raw->data());
      if (type == GgufType::Bool && static_cast<uint8_t>(*at) > 1)
        return error(ErrorCode::Malformed, source(), ": metadata ", key, ": a bool must be 0 or 1, found ",
                     int{static_cast<uint8_t>(*at)});
      // A uint64 above INT64_MAX is valid and keeps its bits (GgufValue::integer); the lookups that need a
      // smaller type reject it by key.
      return gguf_scalar(type, at);
    }
    GgufValue v;
    v.type = type;
    switch (type) {
      case GgufType::String: {
        auto s = string(key);
        if (!s) return s.error();
        v.text = std::move(*s);
        return v;
      }
      case GgufType::Array:
        return array(v, key, depth);
      default:
        break;
    }
    return error(ErrorCode::Malformed, source(), ": metadata ", key, ": unknown value type ",
                 static_cast<uint32_t>(type));
  }

  Result<GgufType> type(const std::string& what) {
    auto raw = in_.read<uint32_t>(what + " type");
    if (!raw) return raw.error();
    if (*raw > static_cast<uint32_t>(GgufType::Float64))
      return error(ErrorCode::Malformed, source(), ": ", what, ": unknown value type ", *raw, " at offset ",
                   in_.offset() - 4);
    return static_cast<GgufType>(*raw);
  }

  ByteReader& in() { return in_; }
  const std::string& source() const { return in_.source(); }

 private:
  Result<GgufValue> array(GgufValue& v, const std::string& key, int depth) {
    if (depth >= kMaxArrayDepth)
      return error(ErrorCode::Malformed, source(), ": metadata ", key, ": arrays nested deeper than ",
                   kMaxArrayDepth);
    auto element = type("metadata " + key + " element");
    if (!element) return element.error();
    auto count = in_.read<uint64_t>(key + " count");
    if (!count) return count.error();
    v.element_type = *element;
    // The smallest element: a fixed-size value's size, a string's 8-byte length, an array's type and count.
    const std::size_t fixed = gguf_element_size(*element);
    const uint64_t min_bytes = fixed ? fixed : (*element == GgufType::String ? 8 : 12);
    // A count beyond the bytes left is checked before anything is reserved. It is what a file cut short
    // looks like (a corrupt count too, which the bytes cannot tell apart): truncated, as a read past the end
    // is, so a file cut anywhere gets the same words.
    if (*count > in_.remaining() / min_bytes)
      return error(ErrorCode::Truncated, source(), ": metadata ", key, ": array of ", *count,
                   " elements cannot fit in the ", in_.remaining(), " bytes left");
    const auto n = static_cast<std::size_t>(*count);
    if (fixed) {
      const std::size_t at = in_.offset();
      auto raw = in_.read_bytes(*count * fixed, key);
      if (!raw) return raw.error();
      if (*element == GgufType::Bool) {
        for (std::size_t i = 0; i < n; ++i)
          if (static_cast<uint8_t>((*raw)[i]) > 1)
            return error(ErrorCode::Malformed, source(), ": metadata ", key, "[", i,
                         "]: a bool must be 0 or 1, found ", int{static_cast<uint8_t>((*raw)[i])});
      }
      v.items = GgufArray::view(*element, bytes_->data() + at, n, bytes_);
      return v;
    }
    if (*element == GgufType::String) {
      std::vector<std::string> strings;
      strings.reserve(n);
      for (std::size_t i = 0; i < n; ++i) {
        auto s = string(key);
        if (!s) return s.error();
        strings.push_back(std::move(*s));
      }
      v.items = GgufArray::of_strings(std::move(strings));
      return v;
    }
    std::vector<GgufValue> values;
    values.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      auto item = value(*element, key, depth + 1);
      if (!item) return item.error();
      values.push_back(std::move(*item));
    }
    v.items = GgufArray(std::move(values));
    return v;
  }

  ByteReader in_;
  std::shared_ptr<const Bytes> bytes_;  // kept alive by the arrays that view it
};

uint64_t align_up(uint64_t offset, uint64_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

}  // namespace

bool is_gguf(const Bytes& bytes) {
  return is_gguf(std::span<const std::byte>(bytes.data(), bytes.size()));
}

Result<GgufFile> read_gguf(std::shared_ptr<const Bytes> bytes) {
  GgufFile file;
  file.bytes = bytes;
  const std::string& source = bytes->name();
  GgufParser parser(bytes);
  ByteReader& in = parser.in();

  auto magic = in.read_bytes(4, "magic");
  if (!magic) return magic.error();
  if (*magic != "GGUF")
    return error(ErrorCode::NotAModel, source, ": not a GGUF file: the magic bytes are not \"GGUF\"");
  auto version = in.read<uint32_t>("version");
  if (!version) return version.error();
  if (*version != 2 && *version != 3)
    return error(ErrorCode::Malformed, source, ": unsupported GGUF version ", *version,
                 " (glassbox reads versions 2 and 3)");
  file.version = *version;
  auto tensor_count = in.read<uint64_t>("tensor_count");
  if (!tensor_count) return tensor_count.error();
  auto kv_count = in.read<uint64_t>("metadata_kv_count");
  if (!kv_count) return kv_count.error();
  // The smallest key/value is 13 bytes and the smallest tensor info 24: larger counts do not fit in what
  // follows, which is how a file cut short looks (truncated, as for an array above).
  if (*kv_count > in.remaining() / 13)
    return error(ErrorCode::Truncated, source, ": metadata_kv_count ", *kv_count,
                 " is impossible for a file of ", bytes->size(), " bytes");
  if (*tensor_count > in.remaining() / 24)
    return error(ErrorCode::Truncated, source, ": tensor_count ", *tensor_count,
                 " is impossible for a file of ", bytes->size(), " bytes");

  for (uint64_t i = 0; i < *kv_count; ++i) {
    auto key = parser.string(cat("metadata key ", i));
    if (!key) return key.error();
    auto type = parser.type("metadata " + *key);
    if (!type) return type.error();
    auto value = parser.value(*type, *key, 0);
    if (!value) return value.error();
    if (!file.add_metadata(*key, std::move(*value)))
      return error(ErrorCode::Malformed, source, ": metadata key ", *key, " appears twice");
  }

  if (const GgufValue* alignment = file.find(gguf::kAlignmentKey)) {
    // Any integer type will do, uint64 included (align_up cannot overflow: offsets are below the file size).
    const uint64_t a = alignment->unsigned_integer();
    if (!alignment->is_integer() || a == 0 || (alignment->integer < 0 && !alignment->exceeds_int64()) ||
        (a & (a - 1)) != 0)
      return error(ErrorCode::Malformed, source, ": ", gguf::kAlignmentKey,
                   " must be a positive power of two, found ",
                   alignment->is_integer() ? alignment->integer_text() : to_string(alignment->type));
    file.alignment = a;
  }

  for (uint64_t i = 0; i < *tensor_count; ++i) {
    GgufTensorInfo t;
    auto name = parser.string(cat("tensor ", i, " name"));
    if (!name) return name.error();
    t.name = std::move(*name);
    auto n_dims = in.read<uint32_t>("tensor " + t.name + " n_dims");
    if (!n_dims) return n_dims.error();
    if (*n_dims == 0 || *n_dims > kMaxDims)
      return error(ErrorCode::Malformed, source, ": tensor ", t.name, ": n_dims must be in 1..", kMaxDims,
                   ", found ", *n_dims);
    uint64_t elements = 1;
    for (uint32_t d = 0; d < *n_dims; ++d) {
      auto dim = in.read<uint64_t>("tensor " + t.name + " dims");
      if (!dim) return dim.error();
      if (*dim == 0)
        return error(ErrorCode::Malformed, source, ": tensor ", t.name, ": dimension ", d, " is 0");
      if (__builtin_mul_overflow(elements, *dim, &elements) || elements > (uint64_t{1} << 40))
        return error(ErrorCode::Malformed, source, ": tensor ", t.name,
                     ": dimensions overflow (the product exceeds 2^40 elements)");
      t.dims.push_back(*dim);
    }
    auto ggml_type = in.read<uint32_t>("tensor " + t.name + " type");
    if (!ggml_type) return ggml_type.error();
    // Every type in the element table has a known size, so even one glassbox cannot compute with is read
    // (and named by the model builder); an id outside the table cannot be measured at all.
    const ElementType* info = ggml_element_type(*ggml_type);
    if (!info)
      return error(ErrorCode::UnsupportedType, source, ": tensor ", t.name, ": unknown ggml type ",
                   *ggml_type);
    t.ggml_type = *ggml_type;
    if (t.dims[0] % info->block_values != 0)
      return error(ErrorCode::Malformed, source, ": tensor ", t.name, ": its row length ", t.dims[0],
                   " is not a multiple of the ", info->name, " block size ", info->block_values);
    t.bytes = elements / info->block_values * info->block_bytes;
    auto offset = in.read<uint64_t>("tensor " + t.name + " offset");
    if (!offset) return offset.error();
    t.offset = *offset;
    if (t.offset % file.alignment != 0)
      return error(ErrorCode::Malformed, source, ": tensor ", t.name, ": offset ", t.offset,
                   " is not a multiple of the alignment ", file.alignment);
    const std::string name_copy = t.name;
    if (!file.add_tensor(std::move(t)))
      return error(ErrorCode::Malformed, source, ": tensor ", name_copy, " appears twice");
  }

  file.data_offset = align_up(in.offset(), file.alignment);
  if (file.data_offset > bytes->size() && !file.tensors.empty())
    return error(ErrorCode::Truncated, source, ": the tensor data would start at offset ", file.data_offset,
                 ", past the end of the file (", bytes->size(), " bytes)");
  const uint64_t data_size = file.tensors.empty() ? 0 : bytes->size() - file.data_offset;
  for (GgufTensorInfo& t : file.tensors) {
    if (t.offset > data_size || t.bytes > data_size - t.offset)
      return error(ErrorCode::Truncated, source, ": tensor ", t.name, ": its data (", t.bytes,
                   " bytes at offset ", t.offset, ") runs past the end of the file (", data_size,
                   " bytes of tensor data)");
    t.data = bytes->data() + file.data_offset + t.offset;
  }
  return file;
}

// --- lookups ----------------------------------------------------------------------------------------------

// The index is trusted while it covers exactly the entries (see GgufFile); otherwise lookups scan.
bool GgufFile::add_metadata(std::string key, GgufValue value) {
  if (find(key)) return false;
  if (metadata_index_.size() == metadata.size()) metadata_index_.emplace(key, metadata.size());
  metadata.emplace_back(std::move(key), std::move(value));
  return true;
}

bool GgufFile::add_tensor(GgufTensorInfo info) {
  if (tensor(info.name)) return false;
  if (tensor_index_.size() == tensors.size()) tensor_index_.emplace(info.name, tensors.size());
  tensors.push_back(std::move(info));
  return true;
}

const GgufValue* GgufFile::find(std::string_view key) const {
  if (metadata_index_.size() == metadata.size()) {
    const auto it = metadata_index_.find(std::string(key));
    return it == metadata_index_.end() ? nullptr : &metadata[it->second].second;
  }
  for (const auto& [k, v] : metadata)  // entries were pushed past the index
    if (k == key) return &v;
  return nullptr;
}

const GgufTensorInfo* GgufFile::tensor(std::string_view name) const {
  if (tensor_index_.size() == tensors.size()) {
    const auto it = tensor_index_.find(std::string(name));
    return it == tensor_index_.end() ? nullptr : &tensors[it->second];
  }
  for (const GgufTensorInfo& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

Result<int64_t> GgufFile::integer(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return error(ErrorCode::Malformed, source(), ": metadata ", key, " is missing");
  if (!v->is_integer())
    return error(ErrorCode::Malformed, source(), ": metadata ", key, " must be an integer, found ",
                 to_string(v->type));
  if (v->exceeds_int64())
    return error(ErrorCode::Malformed, source(), ": metadata ", key, " is out of range: uint64 value ",
                 v->integer_text(), " does not fit in int64");
  return v->integer;
}

Result<int64_t> GgufFile::integer(std::string_view key, int64_t fallback) const {
  return find(key) ? integer(key) : Result<int64_t>(fallback);
}

Result<int64_t> GgufFile::integer_in(std::string_view key, int64_t min, int64_t max) const {
  const GgufValue* v = find(key);
  if (v && v->is_integer() && (v->exceeds_int64() || v->integer < min || v->integer > max))
    return error(ErrorCode::Malformed, source(), ": metadata ", key, " must be in ", min, "..", max,
                 ", found ", v->integer_text());
  return integer(key);
}

Result<int64_t> GgufFile::integer_in(std::string_view key, int64_t min, int64_t max, int64_t fallback) const {
  return find(key) ? integer_in(key, min, max) : Result<int64_t>(fallback);
}

Result<double> GgufFile::real(std::string_view key, double fallback) const {
  const GgufValue* v = find(key);
  if (!v) return fallback;
  if (v->is_real()) return v->real;
  if (v->is_integer())
    return v->exceeds_int64() ? static_cast<double>(v->unsigned_integer()) : static_cast<double>(v->integer);
  return error(ErrorCode::Malformed, source(), ": metadata ", key, " must be a number, found ",
               to_string(v->type));
}

Result<std::string> GgufFile::string(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) return error(ErrorCode::Malformed, source(), ": metadata ", key, " is missing");
  if (v->type != GgufType::String)
    return error(ErrorCode::Malformed, source(), ": metadata ", key, " must be a string, found ",
                 to_string(v->type));
  return v->text;
}

Result<std::string> GgufFile::string(std::string_view key, const std::string& fallback) const {
  return find(key) ? string(key) : Result<std::string>(fallback);
}

Result<bool> GgufFile::boolean(std::string_view key, bool fallback) const {
  const GgufValue* v = find(key);
  if (!v) return fallback;
  if (v->type != GgufType::Bool)
    return error(ErrorCode::Malformed, source(), ": metadata ", key, " must be a bool, found ",
                 to_string(v->type));
  return v->boolean;
}

}  // namespace glassbox
