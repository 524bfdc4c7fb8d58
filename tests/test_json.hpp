// JSON that tests read (golden data, NumPy fixtures, the CLI's output), parsed by the library's own reader
// (RapidJSON). The accessors fail the test instead of crashing when a field is missing or of another type.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "formats/json_reader.hpp"

namespace glassbox::test {

// Parses `text`; a syntax error fails the test (naming `what`) and leaves the document null.
json::Document parse_json(std::string_view text, const std::string& what);

// object[key], or a null value when it is absent.
const json::Value& member(const json::Value& object, std::string_view key);
// A string's text; "" (and a failure) for anything else.
std::string text(const json::Value& v);
// A number; 0 (and a failure) for anything else.
double number(const json::Value& v);
// An array's items; empty (and a failure) for anything else.
json::Value::ConstArray items(const json::Value& v);
// An array of numbers, as ints (token ids) or floats (logits).
std::vector<int> ints(const json::Value& array);
std::vector<float> floats(const json::Value& array);

}  // namespace glassbox::test
