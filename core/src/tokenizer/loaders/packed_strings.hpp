// Many short strings packed end to end in one buffer, for lists streamed out of a file (tokenizer.json's
// 150k vocabulary keys and merges): about 5 bytes an entry beyond the text, where a std::string costs 32
// (and a node of a map of them 60 more).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace glassbox {

class PackedStrings {
 public:
  std::size_t size() const { return ends_.size(); }
  std::size_t text_bytes() const { return text_.size(); }

  std::string_view operator[](std::size_t i) const {
    const uint32_t begin = i ? ends_[i - 1] : 0;
    return std::string_view(text_).substr(begin, ends_[i] - begin);
  }

  // Appends the concatenation of the parts; false (and nothing appended) once the text would pass 4 GiB.
  template <class... Parts>
  bool push_back(const Parts&... parts) {
    const std::size_t size = (std::string_view(parts).size() + ... + 0);
    if (size > std::numeric_limits<uint32_t>::max() - text_.size()) return false;
    (text_.append(parts), ...);
    ends_.push_back(static_cast<uint32_t>(text_.size()));
    return true;
  }

 private:
  std::string text_;
  std::vector<uint32_t> ends_;  // where each string ends in text_
};

}  // namespace glassbox
