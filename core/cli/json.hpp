// Writing JSON strings: quotes, backslashes and control characters escaped; bytes that are not valid UTF-8
// (a lone byte token's piece, say) become U+FFFD so the output always parses.
#pragma once

#include <string>
#include <string_view>

namespace glassbox::cli {

std::string json_string(std::string_view text);

}  // namespace glassbox::cli
