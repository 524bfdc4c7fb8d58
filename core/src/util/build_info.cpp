#include "glassbox/build.hpp"

#include <string>

#include "kernels/kernels.hpp"

namespace glassbox {

const char* version() {
  return GLASSBOX_VERSION;  // defined by CMakeLists.txt from project(... VERSION ...)
}

const char* build_description() {
  static const std::string description =
      std::string("glassbox ") + version() + ", " + kernels::simd_instruction_set() + " kernels";
  return description.c_str();
}

}  // namespace glassbox
