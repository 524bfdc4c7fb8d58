// A weight matrix or vector: a typed view over bytes that someone else owns (the memory-mapped file, or the
// single copy of a model in the WASM heap). Views never copy.
#pragma once

#include <cstddef>
#include <cstdint>

namespace glassbox {

// Element encodings glassbox computes with. F32 is plain float32; the others (read from GGUF and safetensors
// files) are decoded on the fly by the kernels that read them. Everything else about a type (its name, ggml
// id, block size, decoder) is its row in the element table, core/src/kernels/element_types.hpp, which lists
// these in this order.
// New types are appended, so the numbers of the older ones never change.
enum class DType : uint8_t {
  F32,
  F16,
  BF16,
  Q8_0,
  Q4_0,
  Q4_K,
  Q6_K,
  Q4_1,
  Q5_0,
  Q5_1,
  Q2_K,
  Q3_K,
  Q5_K,
  IQ4_NL,
  IQ4_XS
};

// ggml's name of the type: "F32", "Q4_K".
const char* to_string(DType type);

struct Tensor {
  DType type = DType::F32;
  const std::byte* data = nullptr;  // null: the tensor is absent (an optional bias, say)
  int64_t rows = 0;                 // a vector has one row
  int64_t cols = 0;

  bool present() const { return data != nullptr; }
  int64_t elements() const { return rows * cols; }
  const float* f32() const { return reinterpret_cast<const float*>(data); }  // only for type F32
};

}  // namespace glassbox
