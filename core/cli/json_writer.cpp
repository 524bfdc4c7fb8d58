#include "json_writer.hpp"

#include <cmath>

#include "glassbox/utf8.hpp"

namespace glassbox::cli {

JsonWriter& JsonWriter::begin_object() {
  writer_.StartObject();
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  writer_.EndObject();
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  writer_.StartArray();
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  writer_.EndArray();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  const std::string valid = to_valid_utf8(name);
  writer_.Key(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
  const std::string valid = to_valid_utf8(text);
  writer_.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
  return *this;
}

JsonWriter& JsonWriter::integer(int64_t value) {
  writer_.Int64(value);
  return *this;
}

JsonWriter& JsonWriter::integers(std::span<const int> values) {
  writer_.StartArray();
  for (int value : values)
    writer_.Int(value);
  writer_.EndArray();
  return *this;
}

JsonWriter& JsonWriter::number(double value) {
  // RapidJSON writes nothing for NaN or infinity (it would leave the document broken), so say null.
  if (std::isfinite(value)) {
    writer_.Double(value);
  } else {
    writer_.Null();
  }
  return *this;
}

std::string json_quoted(std::string_view text) {
  JsonWriter writer;
  writer.string(text);
  return std::string(writer.text());
}

}  // namespace glassbox::cli
