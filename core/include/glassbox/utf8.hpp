// UTF-8, stated once: how the tokenizers split text into characters, how JSON strings are decoded and written,
// and how bytes that are not UTF-8 are shown. Well-formed means RFC 3629: shortest form, no surrogates,
// nothing above U+10FFFF. Anything else is one invalid byte at a time, so every byte of any input belongs to
// exactly one "character" and nothing is ever read past the end.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace glassbox {

// One decoded character: its code point and its length in bytes. A byte that does not start a well-formed
// character decodes as a one-byte character with code point kInvalidCodePoint, so classifiers can treat it as
// a symbol of its own.
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

// Length in bytes of the character starting at text[i]: 1..4 for a well-formed one, 1 for an invalid byte.
inline std::size_t utf8_char_length(std::string_view text, std::size_t i) {
  return decode_utf8(text, i).length;
}

// Appends the UTF-8 spelling of a code point (at most U+10FFFF; surrogates are the caller's business).
inline void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// The text with every invalid byte replaced by U+FFFD (how text that must be UTF-8, JSON output say, shows
// a lone byte token's piece).
inline std::string to_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Char c = decode_utf8(text, i);
    if (c.code_point == kInvalidCodePoint) {
      out += "\xEF\xBF\xBD";
    } else {
      out.append(text.substr(i, c.length));
    }
    i += c.length;
  }
  return out;
}

}  // namespace glassbox
