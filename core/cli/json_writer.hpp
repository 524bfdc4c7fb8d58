// The one way the CLI writes JSON (generate, tokenize and bench --json, and the pieces in tokenize's table):
// RapidJSON's writer, with every string first made valid UTF-8 (glassbox/utf8.hpp). A token's piece or text
// can be a lone byte of a multi-byte character, and a JSON reader would reject the whole document for it.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace glassbox::cli {

// One compact JSON value, built in order: begin_object(), key("ids"), integers({...}), ..., end_object().
class JsonWriter {
 public:
  JsonWriter() : writer_(buffer_) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& string(std::string_view text);  // invalid bytes become U+FFFD
  JsonWriter& integer(int64_t value);
  JsonWriter& integers(std::span<const int> values);  // an array of them
  JsonWriter& number(double value);                   // null when not finite (JSON has no NaN or infinity)

  std::string_view text() const { return {buffer_.GetString(), buffer_.GetSize()}; }

 private:
  rapidjson::StringBuffer buffer_;
  rapidjson::Writer<rapidjson::StringBuffer> writer_;
};

// `text` as one JSON string literal, quotes included: how tokenize's table shows a piece, so its spaces and
// control characters are visible.
std::string json_quoted(std::string_view text);

}  // namespace glassbox::cli
