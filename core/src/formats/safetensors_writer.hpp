// Writing F32 tensors as a safetensors file (the layout safetensors.hpp reads): `glassbox train
// --save-gradients` writes a step's gradients this way, for other tools (NumPy, PyTorch) to compare with.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "glassbox/result.hpp"

namespace glassbox {

struct SafetensorsF32 {
  std::string name;
  std::vector<uint64_t> shape;  // outermost first; its product must be values.size()
  std::span<const float> values;
};

// The file's bytes: the header (padded with spaces to a multiple of 8 bytes, as the format recommends), then
// each tensor's little-endian floats in the order given.
std::vector<std::byte> safetensors_bytes(const std::vector<SafetensorsF32>& tensors);
Result<void> write_safetensors(const std::string& path, const std::vector<SafetensorsF32>& tensors);

}  // namespace glassbox
