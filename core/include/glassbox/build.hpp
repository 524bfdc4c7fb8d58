// What this build of the engine is: version, instruction set of the kernels, build type.
#pragma once

namespace glassbox {

// For example "glassbox 0.1.0, fma3<avx2> kernels".
const char* build_description();

}  // namespace glassbox
