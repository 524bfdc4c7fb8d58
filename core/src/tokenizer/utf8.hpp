// UTF-8 helpers for tokenizers that work on characters.
#pragma once

#include <cstddef>
#include <string_view>

namespace glassbox {

// Length in bytes of the UTF-8 character starting at text[i]: 1..4 for a well-formed character, 1 for any
// byte that does not start one (a stray continuation byte, a truncated sequence), so that every byte of any
// input belongs to exactly one "character".
inline std::size_t utf8_char_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = lead < 0x80           ? 1
                       : (lead >> 5) == 0x6  ? 2
                       : (lead >> 4) == 0xE  ? 3
                       : (lead >> 3) == 0x1E ? 4
                                             : 1;
  if (i + length > text.size()) return 1;
  for (std::size_t k = 1; k < length; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 1;
  }
  return length;
}

}  // namespace glassbox
