// Every fact glassbox keeps about an element encoding, in one table: its name, its ggml/GGUF type id, how
// many values a block packs into how many bytes, and (for the types glassbox computes with) the DType and the
// functions that decode, encode and multiply its rows. The GGUF reader and writer, the safetensors reader,
// the model's tensor sizes and the kernels' block loops all read this table, and the kernels find a type's
// entry points (block_kernels.hpp: decoder, encoder, products) in it. A new type is one row here (and the declaration of
// its BlockKernels above the table), its file blocks/<type>.cpp and its DType in glassbox/tensor.hpp.
//
// It lives among the kernels, next to the decoders it points to, because the kernels are the lowest layer:
// formats and model already depend on them, so everyone can read it without the kernels reaching upward. It
// is constexpr so the decoders' loops take their block sizes from it at no cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "glassbox/tensor.hpp"
#include "kernels/block_kernels.hpp"
#include "kernels/quantized.hpp"

namespace glassbox {

struct ElementType {
  const char* name;       // ggml's spelling ("Q4_K"); also to_string(DType) and safetensors' plain dtypes
  uint32_t ggml_id;       // the type in a GGUF tensor info (ggml_type)
  uint32_t block_values;  // values per block; 1 for plain types
  uint32_t block_bytes;   // bytes per block
  std::optional<DType> dtype = std::nullopt;  // set for the types glassbox computes with
  // Set with dtype: the type's decoder, encoder and kernels (block_kernels.hpp).
  const kernels::BlockKernels* block_kernels = nullptr;
};

// Each computable type's decoder, encoder and kernels, defined in its file kernels/blocks/<type>.cpp.
namespace kernels::blocks {
extern const BlockKernels kF32, kF16, kBF16, kQ8_0, kQ4_0, kQ4_K, kQ6_K, kQ4_1, kQ5_0, kQ5_1, kQ2_K, kQ3_K,
    kQ5_K, kIQ4_NL, kIQ4_XS;
}  // namespace kernels::blocks

// Block layouts and ids as ggml defines them (ggml-common.h / ggml.h). The types glassbox computes with come
// first, in DType order, so a DType indexes its row; the rest are known by size only, so the GGUF reader can
// walk past them and name them in its "unsupported type" error.
inline constexpr ElementType kElementTypes[] = {
    {"F32", 0, 1, 4, DType::F32, &kernels::blocks::kF32},
    {"F16", 1, 1, 2, DType::F16, &kernels::blocks::kF16},
    {"BF16", 30, 1, 2, DType::BF16, &kernels::blocks::kBF16},
    // f16 scale + 32 int8
    {"Q8_0", 8, 32, 34, DType::Q8_0, &kernels::blocks::kQ8_0},
    // f16 scale + 32 4-bit values
    {"Q4_0", 2, 32, 18, DType::Q4_0, &kernels::blocks::kQ4_0},
    // super-block: 2 f16 + 12 bytes of 6-bit scales and mins + 128 bytes of nibbles
    {"Q4_K", 12, 256, 144, DType::Q4_K, &kernels::blocks::kQ4_K},
    // 128 bytes of low nibbles + 64 of high bits + 16 int8 scales + f16
    {"Q6_K", 14, 256, 210, DType::Q6_K, &kernels::blocks::kQ6_K},
    // f16 scale + f16 min + 16 bytes of nibbles
    {"Q4_1", 3, 32, 20, DType::Q4_1, &kernels::blocks::kQ4_1},
    // f16 scale + 4 bytes of fifth bits + 16 bytes of nibbles
    {"Q5_0", 6, 32, 22, DType::Q5_0, &kernels::blocks::kQ5_0},
    // f16 scale + f16 min + 4 bytes of fifth bits + 16 bytes of nibbles
    {"Q5_1", 7, 32, 24, DType::Q5_1, &kernels::blocks::kQ5_1},
    // super-block: 16 bytes of 4-bit (scale, min) pairs + 64 bytes of 2-bit values + f16 d + f16 dmin
    {"Q2_K", 10, 256, 84, DType::Q2_K, &kernels::blocks::kQ2_K},
    // 32 bytes of third bits + 64 bytes of 2-bit values + 12 bytes of 6-bit scales + f16 d
    {"Q3_K", 11, 256, 110, DType::Q3_K, &kernels::blocks::kQ3_K},
    // Q4_K's layout with 32 bytes of fifth bits between the scales and the nibbles
    {"Q5_K", 13, 256, 176, DType::Q5_K, &kernels::blocks::kQ5_K},
    // f16 scale + 16 bytes of nibbles, each an index into the 16 non-linear values kIq4NlValues
    {"IQ4_NL", 20, 32, 18, DType::IQ4_NL, &kernels::blocks::kIQ4_NL},
    // super-block: f16 d + 16 bits of high scale bits + 4 bytes of low scale nibbles + 128 bytes of indices
    {"IQ4_XS", 23, 256, 136, DType::IQ4_XS, &kernels::blocks::kIQ4_XS},
    {"Q8_1", 9, 32, 36},
    {"Q8_K", 15, 256, 292},
    {"I8", 24, 1, 1},
    {"I16", 25, 1, 2},
    {"I32", 26, 1, 4},
    {"I64", 27, 1, 8},
    {"F64", 28, 1, 8},
    // The i-quants, ternary and microscaling types: known by size, so a file in them gets an error that
    // names its type rather than an unknown number.
    {"IQ2_XXS", 16, 256, 66},
    {"IQ2_XS", 17, 256, 74},
    {"IQ3_XXS", 18, 256, 98},
    {"IQ1_S", 19, 256, 50},
    {"IQ3_S", 21, 256, 110},
    {"IQ2_S", 22, 256, 82},
    {"IQ1_M", 29, 256, 56},
    {"TQ1_0", 34, 256, 54},
    {"TQ2_0", 35, 256, 66},
    {"MXFP4", 39, 32, 17},
};

namespace element_types_detail {
// Rows 0..k-1 are DType 0..k-1, and no later row has a DType. (That each of them has its kernels is checked
// at run time, in tests/element_types_test.cpp: sanitizer builds cannot compare function addresses in a
// constant expression.)
constexpr bool computable_rows_lead_in_dtype_order() {
  bool in_prefix = true;
  std::size_t i = 0;
  for (const ElementType& e : kElementTypes) {
    if (e.dtype) {
      if (!in_prefix || static_cast<std::size_t>(*e.dtype) != i) return false;
    } else {
      in_prefix = false;
    }
    ++i;
  }
  return true;
}
constexpr bool ids_and_names_are_unique() {
  for (std::size_t i = 0; i < std::size(kElementTypes); ++i)
    for (std::size_t j = i + 1; j < std::size(kElementTypes); ++j)
      if (kElementTypes[i].ggml_id == kElementTypes[j].ggml_id ||
          std::string_view(kElementTypes[i].name) == kElementTypes[j].name)
        return false;
  return true;
}
static_assert(computable_rows_lead_in_dtype_order());
static_assert(ids_and_names_are_unique());
}  // namespace element_types_detail

constexpr const ElementType& element_type(DType type) {
  return kElementTypes[static_cast<std::size_t>(type)];
}

// The decoder, encoder and kernels of a computable `type`.
inline const kernels::BlockKernels* block_kernels(DType type) {
  return element_type(type).block_kernels;
}

// The row of a ggml type id; null for an id glassbox does not know.
constexpr const ElementType* ggml_element_type(uint32_t id) {
  for (const ElementType& e : kElementTypes)
    if (e.ggml_id == id) return &e;
  return nullptr;
}

// "F32, F16, BF16, Q8_0, ..., IQ4_NL and IQ4_XS": the types glassbox computes with, for messages.
std::string computable_type_names();

}  // namespace glassbox
