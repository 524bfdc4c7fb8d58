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

namespace glassbox {

// One decoded character: its code point and its length in bytes. Anything that is not well-formed UTF-8
// (a stray byte, a truncated or overlong sequence, a surrogate, a value above U+10FFFF) decodes as a one-byte
// character with code point kInvalidCodePoint, so classifiers can treat it as a symbol of its own.
constexpr char32_t kInvalidCodePoint = 0x110000;
struct Utf8Char {
  char32_t code_point;
  std::size_t length;
};

inline Utf8Char decode_utf8(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned lead = byte(0);
  if (lead < 0x80) return {lead, 1};
  const Utf8Char invalid{kInvalidCodePoint, 1};
  std::size_t length;
  char32_t cp;
  char32_t min;
  if ((lead >> 5) == 0x6) {
    length = 2, cp = lead & 0x1F, min = 0x80;
  } else if ((lead >> 4) == 0xE) {
    length = 3, cp = lead & 0x0F, min = 0x800;
  } else if ((lead >> 3) == 0x1E) {
    length = 4, cp = lead & 0x07, min = 0x10000;
  } else {
    return invalid;
  }
  if (i + length > text.size()) return invalid;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return invalid;
    cp = (cp << 6) | (byte(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return invalid;
  return {cp, length};
}

}  // namespace glassbox
