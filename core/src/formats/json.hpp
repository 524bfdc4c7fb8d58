// A small, strict JSON reader for the formats that carry JSON (golden test data, Hugging Face config.json and
// tokenizer.json, safetensors headers). It rejects malformed input with the byte offset of the problem and
// limits nesting depth, so hostile files cannot exhaust the stack.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "glassbox/result.hpp"

namespace glassbox {

class Json {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  using Member = std::pair<std::string, Json>;

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_number() const { return kind_ == Kind::Number; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_object() const { return kind_ == Kind::Object; }

  bool boolean() const { return bool_; }
  double number() const { return number_; }
  const std::string& string() const { return string_; }
  const std::vector<Json>& array() const { return array_; }
  const std::vector<Member>& members() const { return members_; }  // in file order

  // The member with this key, or nullptr (also when this is not an object).
  const Json* find(std::string_view key) const;

  static Json make_null() { return Json(Kind::Null); }
  static Json make_bool(bool b);
  static Json make_number(double n);
  static Json make_string(std::string s);
  static Json make_array(std::vector<Json> items);
  static Json make_object(std::vector<Member> members);

 private:
  explicit Json(Kind kind) : kind_(kind) {}
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  double number_ = 0.0;
  std::string string_;
  std::vector<Json> array_;
  std::vector<Member> members_;
};

// Parses one JSON document (surrounding whitespace allowed). `source` names the input in errors.
Result<Json> parse_json(std::string_view text, const std::string& source);

}  // namespace glassbox
