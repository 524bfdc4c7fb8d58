#include "test_json.hpp"

namespace glassbox::test {
namespace {

const json::Value& null_value() {
  static const json::Value null;
  return null;
}

const json::Value& empty_array() {
  static const json::Value empty(rapidjson::kArrayType);
  return empty;
}

}  // namespace

json::Document parse_json(std::string_view text, const std::string& what) {
  json::Document doc;
  const Result<void> parsed = json::parse(text, what, doc);
  EXPECT_TRUE(parsed.ok()) << parsed.error().message;
  return doc;
}

const json::Value& member(const json::Value& object, std::string_view key) {
  EXPECT_TRUE(object.IsObject()) << "looking up \"" << key << "\" in a value that is no object";
  if (object.IsObject()) {
    for (const auto& m : object.GetObject())
      if (std::string_view(m.name.GetString(), m.name.GetStringLength()) == key) return m.value;
  }
  return null_value();
}

std::string text(const json::Value& v) {
  EXPECT_TRUE(v.IsString()) << "expected a string";
  return v.IsString() ? std::string(v.GetString(), v.GetStringLength()) : std::string();
}

double number(const json::Value& v) {
  EXPECT_TRUE(v.IsNumber()) << "expected a number";
  return v.IsNumber() ? v.GetDouble() : 0.0;
}

json::Value::ConstArray items(const json::Value& v) {
  EXPECT_TRUE(v.IsArray()) << "expected an array";
  return v.IsArray() ? v.GetArray() : empty_array().GetArray();
}

std::vector<int> ints(const json::Value& array) {
  std::vector<int> out;
  for (const json::Value& v : items(array))
    out.push_back(static_cast<int>(number(v)));
  return out;
}

std::vector<float> floats(const json::Value& array) {
  std::vector<float> out;
  for (const json::Value& v : items(array))
    out.push_back(static_cast<float>(number(v)));
  return out;
}

}  // namespace glassbox::test
