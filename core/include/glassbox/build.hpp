// What this build of the engine is: version, instruction set of the kernels, build type.
#pragma once

namespace glassbox {

// The release, from the project() line of CMakeLists.txt (the one place it is written), e.g. "0.1.0".
const char* version();

// For example "glassbox 0.1.0, fma3<avx2> kernels".
const char* build_description();

}  // namespace glassbox
