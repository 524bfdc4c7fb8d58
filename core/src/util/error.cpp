#include "glassbox/error.hpp"

namespace glassbox {

const char* to_string(ErrorCode code) {
  switch (code) {
#define GLASSBOX_ERROR_NAME(name, text) \
  case ErrorCode::name:                 \
    return text;
    GLASSBOX_ERROR_CODES(GLASSBOX_ERROR_NAME)
#undef GLASSBOX_ERROR_NAME
  }
  return "unknown";
}

bool error_code_from_string(std::string_view name, ErrorCode* out) {
#define GLASSBOX_ERROR_PARSE(code_name, text) \
  if (name == text) {                         \
    *out = ErrorCode::code_name;              \
    return true;                              \
  }
  GLASSBOX_ERROR_CODES(GLASSBOX_ERROR_PARSE)
#undef GLASSBOX_ERROR_PARSE
  return false;
}

}  // namespace glassbox
