#include "formats/safetensors.hpp"

#include <cstring>

#include "formats/json.hpp"
#include "glassbox/error.hpp"

namespace glassbox {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // the format's own limit

struct DtypeInfo {
  const char* name;
  uint64_t size;
  std::optional<DType> type;
};

constexpr DtypeInfo kDtypes[] = {
    {"F32", 4, DType::F32},    {"F16", 2, DType::F16},       {"BF16", 2, DType::BF16},
    {"F64", 8, std::nullopt},  {"I64", 8, std::nullopt},     {"I32", 4, std::nullopt},
    {"I16", 2, std::nullopt},  {"I8", 1, std::nullopt},      {"U8", 1, std::nullopt},
    {"BOOL", 1, std::nullopt}, {"F8_E4M3", 1, std::nullopt}, {"F8_E5M2", 1, std::nullopt},
};

Result<uint64_t> whole_number(const Json& v, const std::string& what, const std::string& source) {
  if (!v.is_number() || v.number() < 0 ||
      v.number() != static_cast<double>(static_cast<uint64_t>(v.number())) || v.number() > 9.0e15)
    return error(ErrorCode::Malformed, source, ": ", what, " must be a non-negative whole number");
  return static_cast<uint64_t>(v.number());
}

}  // namespace

Result<SafetensorsFile> read_safetensors(std::shared_ptr<const Bytes> bytes) {
  const std::string& source = bytes->name();
  if (bytes->size() < 8)
    return error(ErrorCode::NotAModel, source, ": not a safetensors file: shorter than its 8-byte header length");
  uint64_t header_length;
  std::memcpy(&header_length, bytes->data(), 8);
  if (header_length > kMaxHeaderBytes || header_length > bytes->size() - 8)
    return error(ErrorCode::Truncated, source, ": header length ", header_length, " does not fit the file (", bytes->size(),
                 " bytes)");
  const std::string_view header(reinterpret_cast<const char*>(bytes->data()) + 8,
                                static_cast<std::size_t>(header_length));
  auto json = parse_json(header, source + " header");
  if (!json) return json.error();
  if (!json->is_object()) return error(ErrorCode::Malformed, source, ": the header must be a JSON object");

  SafetensorsFile file;
  file.bytes = bytes;
  const std::byte* data = bytes->data() + 8 + header_length;
  const uint64_t data_size = bytes->size() - 8 - header_length;
  for (const auto& [name, entry] : json->members()) {
    if (name == "__metadata__") continue;
    const std::string where = "tensor " + name;
    if (!entry.is_object()) return error(ErrorCode::Malformed, source, ": ", where, " must be an object");
    const Json* dtype = entry.find("dtype");
    const Json* shape = entry.find("shape");
    const Json* offsets = entry.find("data_offsets");
    if (!dtype || !dtype->is_string()) return error(ErrorCode::Malformed, source, ": ", where, ": dtype must be a string");
    if (!shape || !shape->is_array()) return error(ErrorCode::Malformed, source, ": ", where, ": shape must be an array");
    if (!offsets || !offsets->is_array() || offsets->array().size() != 2)
      return error(ErrorCode::Malformed, source, ": ", where, ": data_offsets must be [begin, end]");
    const DtypeInfo* info = nullptr;
    for (const DtypeInfo& d : kDtypes)
      if (dtype->string() == d.name) info = &d;
    if (!info) return error(ErrorCode::UnsupportedType, source, ": ", where, ": unknown dtype \"", dtype->string(), "\"");

    SafetensorsTensor t;
    t.dtype = dtype->string();
    t.type = info->type;
    uint64_t elements = 1;
    for (const Json& d : shape->array()) {
      GLASSBOX_ASSIGN(const uint64_t n, whole_number(d, where + " shape", source));
      if (__builtin_mul_overflow(elements, n, &elements) || elements > (uint64_t{1} << 40))
        return error(ErrorCode::Malformed, source, ": ", where, ": shape overflows (more than 2^40 elements)");
      t.shape.push_back(n);
    }
    GLASSBOX_ASSIGN(const uint64_t begin, whole_number(offsets->array()[0], where + " data_offsets", source));
    GLASSBOX_ASSIGN(const uint64_t end, whole_number(offsets->array()[1], where + " data_offsets", source));
    if (begin > end || end > data_size)
      return error(ErrorCode::Truncated, source, ": ", where, ": data_offsets [", begin, ", ", end, "] lie outside the ", data_size,
                   " bytes of tensor data");
    if (end - begin != elements * info->size)
      return error(ErrorCode::Malformed, source, ": ", where, ": data_offsets hold ", end - begin, " bytes but ", t.dtype,
                   " shape needs ", elements * info->size);
    t.data = data + begin;
    t.bytes = end - begin;
    file.tensors.emplace(name, std::move(t));
  }
  return file;
}

}  // namespace glassbox
