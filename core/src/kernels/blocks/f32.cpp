// F32's decoder and encoder, plain copies. Its products need no decoding (matvec, dot): it has no fused or
// integer kernels.
#include <cstddef>
#include <cstring>

#include "kernels/element_types.hpp"

namespace glassbox::kernels {
namespace {

void decode_row(const std::byte* row, float* out, std::size_t n) {
  std::memcpy(out, row, n * sizeof(float));
}

void encode_row(const float* x, std::byte* out, std::size_t n) {
  std::memcpy(out, x, n * sizeof(float));
}

}  // namespace

constinit const BlockKernels blocks::kF32 = {.decode = decode_row, .encode = encode_row};

}  // namespace glassbox::kernels
