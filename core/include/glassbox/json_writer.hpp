// The one way glassbox writes JSON (the CLI's --json outputs, the inspection document the CLI prints and the
// page exports): RapidJSON's writer behind a small interface, with every string first made valid UTF-8
// (glassbox/utf8.hpp). A token's piece or text can be a lone byte of a multi-byte character, and a JSON reader
// would reject the whole document for it. RapidJSON stays out of this header, so users of the library need
// not have it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace glassbox {

// One compact JSON value, built in order: begin_object(), key("ids"), integers({...}), ..., end_object().
class JsonWriter {
 public:
  JsonWriter();
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& string(std::string_view text);  // invalid bytes become U+FFFD
  JsonWriter& integer(int64_t value);
  JsonWriter& integers(std::span<const int> values);  // an array of them
  JsonWriter& number(double value);                   // null when not finite (JSON has no NaN or infinity)
  // A float in the fewest digits that read back as the same float (0.1f is 0.1, not 0.100000001), so that
  // documents of many probabilities stay small and exact; null when not finite.
  JsonWriter& number(float value);
  JsonWriter& numbers(std::span<const float> values);  // an array of them
  JsonWriter& boolean(bool value);
  JsonWriter& null();

  std::string_view text() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// `text` as one JSON string literal, quotes included: how tokenize's table shows a piece, so its spaces and
// control characters are visible.
std::string json_quoted(std::string_view text);

}  // namespace glassbox
