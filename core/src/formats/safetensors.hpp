// safetensors (Hugging Face): an 8-byte little-endian header length N, N bytes of JSON describing each tensor
// ({"name": {"dtype": "F32", "shape": [rows, cols], "data_offsets": [begin, end]}, "__metadata__": {...}}),
// then the data; offsets count from the end of the header. Shapes list the outermost dimension first.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glassbox/bytes.hpp"
#include "glassbox/result.hpp"
#include "glassbox/tensor.hpp"

namespace glassbox {

struct SafetensorsTensor {
  std::string dtype;            // as written: "F32", "F16", "BF16", "I64", ...
  std::optional<DType> type;    // the DType glassbox computes with, if supported
  std::vector<uint64_t> shape;  // outermost first
  const std::byte* data = nullptr;
  uint64_t bytes = 0;
};

struct SafetensorsFile {
  std::shared_ptr<const Bytes> bytes;
  std::map<std::string, SafetensorsTensor> tensors;
};

Result<SafetensorsFile> read_safetensors(std::shared_ptr<const Bytes> bytes);

}  // namespace glassbox
