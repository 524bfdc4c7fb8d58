#include "glassbox/json_writer.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "glassbox/utf8.hpp"

namespace glassbox {

struct JsonWriter::Impl {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer{buffer};
};

JsonWriter::JsonWriter() : impl_(std::make_unique<Impl>()) {}
JsonWriter::~JsonWriter() = default;

JsonWriter& JsonWriter::begin_object() {
  impl_->writer.StartObject();
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  impl_->writer.EndObject();
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  impl_->writer.StartArray();
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  impl_->writer.EndArray();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  const std::string valid = to_valid_utf8(name);
  impl_->writer.Key(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
  const std::string valid = to_valid_utf8(text);
  impl_->writer.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
  return *this;
}

JsonWriter& JsonWriter::integer(int64_t value) {
  impl_->writer.Int64(value);
  return *this;
}

JsonWriter& JsonWriter::integers(std::span<const int> values) {
  impl_->writer.StartArray();
  for (int value : values)
    impl_->writer.Int(value);
  impl_->writer.EndArray();
  return *this;
}

JsonWriter& JsonWriter::number(double value) {
  // RapidJSON writes nothing for NaN or infinity (it would leave the document broken), so say null.
  if (std::isfinite(value)) {
    impl_->writer.Double(value);
  } else {
    impl_->writer.Null();
  }
  return *this;
}

JsonWriter& JsonWriter::number(float value) {
  if (!std::isfinite(value)) return null();
  if (value == 0.0f) {
    impl_->writer.RawValue("0", 1, rapidjson::kNumberType);
    return *this;
  }
  // The shortest of 6..9 significant digits that reads back as this float (9 always does). std::to_chars
  // would do it in one step, but Emscripten 3.1.6's libc++ lacks it for floating point.
  char text[32];
  int length = 0;
  for (int digits = 6; digits <= 9; ++digits) {
    length = std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  impl_->writer.RawValue(text, static_cast<std::size_t>(length), rapidjson::kNumberType);
  return *this;
}

JsonWriter& JsonWriter::numbers(std::span<const float> values) {
  begin_array();
  for (float value : values)
    number(value);
  return end_array();
}

JsonWriter& JsonWriter::boolean(bool value) {
  impl_->writer.Bool(value);
  return *this;
}

JsonWriter& JsonWriter::null() {
  impl_->writer.Null();
  return *this;
}

std::string_view JsonWriter::text() const {
  return {impl_->buffer.GetString(), impl_->buffer.GetSize()};
}

std::string json_quoted(std::string_view text) {
  JsonWriter writer;
  writer.string(text);
  return std::string(writer.text());
}

}  // namespace glassbox
