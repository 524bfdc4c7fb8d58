// The element table (kernels/element_types.hpp) against ggml's own definitions, written out here
// independently: each type's id and block layout as ggml.h / ggml-common.h give them, and the sizes that
// follow for tensors and names for messages.
#include <gtest/gtest.h>

#include <string>

#include "kernels/element_types.hpp"
#include "model/dtype.hpp"

namespace glassbox {
namespace {

struct Expected {
  const char* name;
  uint32_t id;
  uint32_t block_values;
  uint32_t block_bytes;
};

// ggml_type ids and sizeof(block_*) for QK4_0 = QK8_0 = 32, QK_K = 256.
constexpr Expected kGgml[] = {
    {"F32", 0, 1, 4},
    {"F16", 1, 1, 2},
    {"Q4_0", 2, 32, 18},
    {"Q4_1", 3, 32, 20},
    {"Q5_0", 6, 32, 22},
    {"Q5_1", 7, 32, 24},
    {"Q8_0", 8, 32, 34},
    {"Q8_1", 9, 32, 36},
    {"Q2_K", 10, 256, 84},
    {"Q3_K", 11, 256, 110},
    {"Q4_K", 12, 256, 144},
    {"Q5_K", 13, 256, 176},
    {"Q6_K", 14, 256, 210},
    {"Q8_K", 15, 256, 292},
    {"I8", 24, 1, 1},
    {"I16", 25, 1, 2},
    {"I32", 26, 1, 4},
    {"I64", 27, 1, 8},
    {"F64", 28, 1, 8},
    {"BF16", 30, 1, 2},
    // sizeof(block_iq*) / block_tq* / block_mxfp4 (QK4_NL = QK_MXFP4 = 32)
    {"IQ2_XXS", 16, 256, 2 + 64},
    {"IQ2_XS", 17, 256, 2 + 64 + 8},
    {"IQ3_XXS", 18, 256, 2 + 96},
    {"IQ1_S", 19, 256, 2 + 32 + 16},
    {"IQ4_NL", 20, 32, 2 + 16},
    {"IQ3_S", 21, 256, 2 + 64 + 8 + 32 + 4},
    {"IQ2_S", 22, 256, 2 + 64 + 8 + 8},
    {"IQ4_XS", 23, 256, 2 + 2 + 4 + 128},
    {"IQ1_M", 29, 256, 32 + 16 + 8},
    {"TQ1_0", 34, 256, 48 + 4 + 2},
    {"TQ2_0", 35, 256, 64 + 2},
    {"MXFP4", 39, 32, 1 + 16},
};

TEST(ElementTypes, EveryRowIsGgmlsDefinition) {
  EXPECT_EQ(std::size(kElementTypes), std::size(kGgml));
  for (const Expected& want : kGgml) {
    const ElementType* got = ggml_element_type(want.id);
    ASSERT_NE(got, nullptr) << want.name;
    EXPECT_STREQ(got->name, want.name);
    EXPECT_EQ(got->block_values, want.block_values) << want.name;
    EXPECT_EQ(got->block_bytes, want.block_bytes) << want.name;
  }
  EXPECT_EQ(ggml_element_type(4), nullptr);   // Q4_2, removed from ggml
  EXPECT_EQ(ggml_element_type(31), nullptr);  // Q4_0_4_4, no longer in GGUF files
  EXPECT_EQ(ggml_element_type(99), nullptr);
}

TEST(ElementTypes, EveryDTypeHasItsRowWithADecoder) {
  for (DType type :
       {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K, DType::Q4_1,
        DType::Q5_0, DType::Q5_1, DType::Q2_K, DType::Q3_K, DType::Q5_K, DType::IQ4_NL, DType::IQ4_XS}) {
    const ElementType& row = element_type(type);
    ASSERT_TRUE(row.dtype.has_value()) << to_string(type);
    EXPECT_EQ(*row.dtype, type);
    ASSERT_NE(row.block_kernels, nullptr) << row.name;
    EXPECT_NE(row.block_kernels->decode, nullptr) << row.name;
    EXPECT_EQ(ggml_element_type(row.ggml_id), &row) << row.name;
    EXPECT_STREQ(to_string(type), row.name);
  }
  // `convert` writes these.
  for (DType type : {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0})
    EXPECT_NE(block_kernels(type)->encode, nullptr) << to_string(type);
  EXPECT_EQ(computable_type_names(),
            "F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q5_K, IQ4_NL and IQ4_XS");
}

// The kernels' entry points (kernels/block_kernels.hpp) come with the row: every computable type has a
// decoder, every one but F32 a fused dot,
// the integer types all of their integer entry points, and the others none of them.
TEST(ElementTypes, EveryComputableTypeHasItsKernelEntryPoints) {
  std::string integer_types;
  for (const ElementType& row : kElementTypes) {
    if (!row.dtype) {
      EXPECT_EQ(row.block_kernels, nullptr) << row.name;
      continue;
    }
    ASSERT_NE(row.block_kernels, nullptr) << row.name;
    const kernels::BlockKernels& k = *row.block_kernels;
    EXPECT_NE(k.decode, nullptr) << row.name;
    EXPECT_EQ(k.fused_matvec == nullptr, *row.dtype == DType::F32) << row.name;
    const bool integer = k.int_matvec != nullptr;
    EXPECT_EQ(k.decode_integer_row != nullptr, integer) << row.name;
    if (!integer) {
      EXPECT_FALSE(k.int_offsets) << row.name;
      EXPECT_FALSE(k.int_group_scales) << row.name;
    }
    EXPECT_FALSE(k.int_offsets && k.int_group_scales) << row.name;  // no prompt kernel handles both
#if defined(__AVX2__)
    EXPECT_EQ(k.int_matmul_avx2 != nullptr, integer) << row.name;
#else
    EXPECT_EQ(k.int_matmul_avx2, nullptr) << row.name;
#endif
    if (integer) integer_types += std::string(integer_types.empty() ? "" : " ") + row.name;
  }
  EXPECT_EQ(integer_types, "Q8_0 Q4_0 Q4_K Q6_K Q5_K IQ4_NL IQ4_XS");
}

TEST(ElementTypes, TensorBytesFollowTheBlocks) {
  EXPECT_EQ(tensor_bytes(DType::F32, 3, 5), 60);
  EXPECT_EQ(tensor_bytes(DType::BF16, 3, 5), 30);
  EXPECT_EQ(tensor_bytes(DType::Q8_0, 2, 64), 2 * 2 * 34);
  EXPECT_EQ(tensor_bytes(DType::Q4_0, 1, 96), 3 * 18);
  EXPECT_EQ(tensor_bytes(DType::Q4_K, 2, 512), 2 * 2 * 144);
  EXPECT_EQ(tensor_bytes(DType::Q6_K, 1, 256), 210);
  EXPECT_EQ(tensor_bytes(DType::Q5_1, 2, 64), 2 * 2 * 24);
  EXPECT_EQ(tensor_bytes(DType::Q3_K, 1, 512), 2 * 110);
  EXPECT_EQ(tensor_bytes(DType::Q8_0, 1, 48), -1);  // not a whole number of blocks
  EXPECT_EQ(tensor_bytes(DType::Q4_K, 1, 128), -1);
}

}  // namespace
}  // namespace glassbox
