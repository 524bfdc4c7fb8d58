// Building error messages: cat("file.bin: ", "dim", " is ", 0) without iostream boilerplate at every site.
#pragma once

#include <sstream>
#include <string>

#include "glassbox/result.hpp"

namespace glassbox {

template <class... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

template <class... Parts>
Error error(const Parts&... parts) {
  return Error{cat(parts...)};
}

}  // namespace glassbox
