#include "formats/safetensors.hpp"

#include <cstring>

#include "formats/json_fields.hpp"
#include "glassbox/error.hpp"
#include "kernels/element_types.hpp"

namespace glassbox {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // the format's own limit

struct DtypeInfo {
  const char* name;
  uint64_t size;
  std::optional<DType> type;
};

// The types glassbox computes with share ggml's names and sizes: they come from the element table.
constexpr DtypeInfo computable(DType type) {
  return {element_type(type).name, element_type(type).block_bytes, type};
}

constexpr DtypeInfo kDtypes[] = {
    computable(DType::F32),    computable(DType::F16),       computable(DType::BF16),
    {"F64", 8, std::nullopt},  {"I64", 8, std::nullopt},     {"I32", 4, std::nullopt},
    {"I16", 2, std::nullopt},  {"I8", 1, std::nullopt},      {"U8", 1, std::nullopt},
    {"BOOL", 1, std::nullopt}, {"F8_E4M3", 1, std::nullopt}, {"F8_E5M2", 1, std::nullopt},
};

// Sizes and offsets: whole numbers that every JSON reader, JavaScript's included, holds exactly.
constexpr uint64_t kMaxNumber = uint64_t{1} << 53;

}  // namespace

Result<SafetensorsFile> read_safetensors(std::shared_ptr<const Bytes> bytes) {
  const std::string& source = bytes->name();
  if (bytes->size() < 8)
    return error(ErrorCode::NotAModel, source,
                 ": not a safetensors file: shorter than its 8-byte header length");
  uint64_t header_length;
  std::memcpy(&header_length, bytes->data(), 8);
  if (header_length > kMaxHeaderBytes || header_length > bytes->size() - 8)
    return error(ErrorCode::Truncated, source, ": header length ", header_length, " does not fit the file (",
                 bytes->size(), " bytes)");
  const std::string_view header(reinterpret_cast<const char*>(bytes->data()) + 8,
                                static_cast<std::size_t>(header_length));
  json::Document doc;
  GLASSBOX_TRY(json::parse(header, source + " header", doc));
  if (!doc.IsObject()) return error(ErrorCode::Malformed, source, ": the header must be a JSON object");
  const json::Fields f(source);

  SafetensorsFile file;
  file.bytes = bytes;
  const std::byte* data = bytes->data() + 8 + header_length;
  const uint64_t data_size = bytes->size() - 8 - header_length;
  for (const auto& member : doc.GetObject()) {
    const std::string name(json::text_of(member.name));
    const json::Value& entry = member.value;
    if (name == "__metadata__") continue;
    const std::string where = "tensor " + name;
    if (!entry.IsObject()) return f.fail(where, " must be an object");
    const json::Value* dtype = json::find(entry, "dtype");
    const json::Value* shape = json::find(entry, "shape");
    const json::Value* offsets = json::find(entry, "data_offsets");
    if (!dtype || !dtype->IsString()) return f.fail(where, ": dtype must be a string");
    if (!shape || !shape->IsArray()) return f.fail(where, ": shape must be an array");
    if (!offsets || !offsets->IsArray() || offsets->Size() != 2)
      return f.fail(where, ": data_offsets must be [begin, end]");
    const std::string_view dtype_name = json::text_of(*dtype);
    const DtypeInfo* info = nullptr;
    for (const DtypeInfo& d : kDtypes)
      if (dtype_name == d.name) info = &d;
    if (!info)
      return error(ErrorCode::UnsupportedType, source, ": ", where, ": unknown dtype \"", dtype_name, "\"");

    SafetensorsTensor t;
    t.dtype = dtype_name;
    t.type = info->type;
    uint64_t elements = 1;
    for (const json::Value& d : shape->GetArray()) {
      GLASSBOX_ASSIGN(const uint64_t n, f.whole_number(d, where + " shape", kMaxNumber));
      if (__builtin_mul_overflow(elements, n, &elements) || elements > (uint64_t{1} << 40))
        return error(ErrorCode::Malformed, source, ": ", where,
                     ": shape overflows (more than 2^40 elements)");
      t.shape.push_back(n);
    }
    GLASSBOX_ASSIGN(const uint64_t begin, f.whole_number((*offsets)[0], where + " data_offsets", kMaxNumber));
    GLASSBOX_ASSIGN(const uint64_t end, f.whole_number((*offsets)[1], where + " data_offsets", kMaxNumber));
    if (begin > end || end > data_size)
      return error(ErrorCode::Truncated, source, ": ", where, ": data_offsets [", begin, ", ", end,
                   "] lie outside the ", data_size, " bytes of tensor data");
    if (end - begin != elements * info->size)
      return error(ErrorCode::Malformed, source, ": ", where, ": data_offsets hold ", end - begin,
                   " bytes but ", t.dtype, " shape needs ", elements * info->size);
    t.data = data + begin;
    t.bytes = end - begin;
    file.tensors.emplace(name, std::move(t));
  }
  return file;
}

}  // namespace glassbox
