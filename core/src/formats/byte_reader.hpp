// Bounds-checked little-endian reading of a file's bytes. Every read names the field it is for, so a
// truncated file reports "<file>: truncated at offset N reading <field>: needs 4 bytes, 2 left".
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "glassbox/bytes.hpp"
#include "glassbox/error.hpp"

namespace glassbox {

class ByteReader {
 public:
  explicit ByteReader(const Bytes& bytes) : bytes_(bytes) {}

  std::size_t offset() const { return offset_; }
  std::size_t remaining() const { return bytes_.size() - offset_; }
  const std::string& source() const { return bytes_.name(); }

  template <class T>
  Result<T> read(std::string_view field) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (remaining() < sizeof(T)) return truncated(field, sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + offset_,
                sizeof(T));  // the formats are little-endian, like every target
    offset_ += sizeof(T);
    return value;
  }

  // A view of the next n bytes.
  Result<std::string_view> read_bytes(uint64_t n, std::string_view field) {
    if (remaining() < n) return truncated(field, n);
    std::string_view view(reinterpret_cast<const char*>(bytes_.data() + offset_),
                          static_cast<std::size_t>(n));
    offset_ += static_cast<std::size_t>(n);
    return view;
  }

  Error truncated(std::string_view field, uint64_t needed) const {
    return error(ErrorCode::Truncated, source(), ": truncated at offset ", offset_, " reading ", field,
                 ": needs ", needed, " bytes, ", remaining(), " left");
  }

 private:
  const Bytes& bytes_;
  std::size_t offset_ = 0;
};

}  // namespace glassbox
