// The ggml element types GGUF files use: id, name, and storage per block (from ggml's type traits).
#include "formats/gguf.hpp"

namespace glassbox {
namespace {

constexpr GgmlTypeInfo kTypes[] = {
    {0, "F32", 1, 4},       {1, "F16", 1, 2},       {2, "Q4_0", 32, 18},    {3, "Q4_1", 32, 20},
    {6, "Q5_0", 32, 22},    {7, "Q5_1", 32, 24},    {8, "Q8_0", 32, 34},    {9, "Q8_1", 32, 36},
    {10, "Q2_K", 256, 84},  {11, "Q3_K", 256, 110}, {12, "Q4_K", 256, 144}, {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210}, {15, "Q8_K", 256, 292}, {24, "I8", 1, 1},       {25, "I16", 1, 2},
    {26, "I32", 1, 4},      {27, "I64", 1, 8},      {28, "F64", 1, 8},      {30, "BF16", 1, 2},
};

constexpr std::pair<uint32_t, DType> kSupported[] = {
    {0, DType::F32},  {1, DType::F16},   {30, DType::BF16}, {8, DType::Q8_0},
    {2, DType::Q4_0}, {12, DType::Q4_K}, {14, DType::Q6_K},
};

}  // namespace

const GgmlTypeInfo* ggml_type_info(uint32_t id) {
  for (const GgmlTypeInfo& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

bool dtype_for_ggml_type(uint32_t id, DType* out) {
  for (const auto& [ggml, dtype] : kSupported) {
    if (ggml == id) {
      *out = dtype;
      return true;
    }
  }
  return false;
}

uint32_t ggml_type_for_dtype(DType type) {
  for (const auto& [ggml, dtype] : kSupported)
    if (dtype == type) return ggml;
  return 0;
}

const char* to_string(GgufType type) {
  switch (type) {
    case GgufType::Uint8:
      return "uint8";
    case GgufType::Int8:
      return "int8";
    case GgufType::Uint16:
      return "uint16";
    case GgufType::Int16:
      return "int16";
    case GgufType::Uint32:
      return "uint32";
    case GgufType::Int32:
      return "int32";
    case GgufType::Float32:
      return "float32";
    case GgufType::Bool:
      return "bool";
    case GgufType::String:
      return "string";
    case GgufType::Array:
      return "array";
    case GgufType::Uint64:
      return "uint64";
    case GgufType::Int64:
      return "int64";
    case GgufType::Float64:
      return "float64";
  }
  return "unknown";
}

bool GgufValue::is_integer() const {
  switch (type) {
    case GgufType::Uint8:
    case GgufType::Int8:
    case GgufType::Uint16:
    case GgufType::Int16:
    case GgufType::Uint32:
    case GgufType::Int32:
    case GgufType::Uint64:
    case GgufType::Int64:
      return true;
    default:
      return false;
  }
}

}  // namespace glassbox
