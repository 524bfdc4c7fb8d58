#include "json.hpp"

#include <cstdio>

namespace glassbox::cli {
namespace {

// Length of the valid UTF-8 sequence at text[i], or 0 if it is not one.
std::size_t valid_utf8_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t n = lead < 0x80                      ? 1
                  : (lead >= 0xC2 && lead <= 0xDF) ? 2
                  : (lead & 0xF0) == 0xE0          ? 3
                  : (lead >= 0xF0 && lead <= 0xF4) ? 4
                                                   : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t n = valid_utf8_length(text, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(text.substr(i, n));
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
    i += n;
  }
  return out + "\"";
}

}  // namespace glassbox::cli
