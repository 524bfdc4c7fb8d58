// GPT-2's bytes_to_unicode: byte-level BPE vocabularies spell every byte as one printable character, so
// pieces and merges are readable text ("Ġ" is the space byte 0x20). Bytes that are printable Latin-1
// characters ('!'..'~', '¡'..'¬', '®'..'ÿ') stand for themselves; the other 68 become U+0100 onwards, in
// byte order.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "glassbox/utf8.hpp"

namespace glassbox {

class ByteMapping {
 public:
  static const ByteMapping& get() {
    static const ByteMapping mapping;
    return mapping;
  }

  // The UTF-8 spelling of a byte's character.
  const std::string& spelling(uint8_t byte) const { return spelling_[byte]; }
  // The byte a character stands for, or -1 for a character outside the mapping.
  int byte_of(char32_t c) const { return c < byte_of_.size() ? byte_of_[c] : -1; }

 private:
  ByteMapping() {
    byte_of_.fill(-1);
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const char32_t c = printable ? static_cast<char32_t>(b) : next++;
      byte_of_[c] = static_cast<int16_t>(b);
      append_utf8(spelling_[b], c);
    }
  }

  std::array<std::string, 256> spelling_;
  std::array<int16_t, 0x100 + 68> byte_of_;
};

}  // namespace glassbox
