#include "glassbox/build.hpp"

#include <string>

#include "kernels/kernels.hpp"

namespace glassbox {

const char* build_description() {
  static const std::string description =
      std::string("glassbox 0.1.0, ") + kernels::simd_instruction_set() + " kernels";
  return description.c_str();
}

}  // namespace glassbox
