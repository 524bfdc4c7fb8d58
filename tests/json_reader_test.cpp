// The JSON reader under the model formats (formats/json_reader.hpp, json_fields.hpp): syntax errors give the
// byte offset, nesting cannot exhaust the stack, numbers do not depend on the C locale, and typed access names
// the field.
#include <gtest/gtest.h>

#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "formats/json_fields.hpp"
#include "formats/json_reader.hpp"
#include "formats/safetensors.hpp"
#include "glassbox/formats.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

std::string parse_error(std::string_view text) {
  json::Document doc;
  const Result<void> parsed = json::parse(text, "x.json", doc);
  return parsed.ok() ? "(no error)" : parsed.error().message;
}

std::shared_ptr<const Bytes> bytes_of(const std::string& text, const std::string& name) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes_from_buffer(std::move(bytes), name);
}

TEST(JsonReader, SyntaxErrorsGiveTheByteOffset) {
  EXPECT_EQ(parse_error(R"({"a": 1})"), "(no error)");
  EXPECT_EQ(parse_error(" [1, 2] \n"), "(no error)");
  EXPECT_EQ(parse_error(R"({"a": })").find("x.json: invalid JSON at byte 6: "), 0u)
      << parse_error(R"({"a": })");
  EXPECT_NE(parse_error("[1, 2] 3").find("invalid JSON at byte 7"), std::string::npos);
  EXPECT_NE(parse_error("").find("invalid JSON at byte 0"), std::string::npos);
  EXPECT_NE(parse_error("[\"a\nb\"]").find("invalid JSON"), std::string::npos);  // a raw control character
  EXPECT_NE(parse_error("[1e400]").find("invalid JSON"), std::string::npos);     // no double holds it
}

// RapidJSON is told to parse iteratively (no recursion), and the reader stops at 256 levels, so a million
// brackets are an error message, not a stack overflow (nor a million nested values in memory).
TEST(JsonReader, DeepNestingIsAnErrorNotAStackOverflow) {
  const std::string deep(1'000'000, '[');
  EXPECT_NE(parse_error(deep).find("x.json: invalid JSON at byte 256: nesting deeper than 256 levels"),
            std::string::npos)
      << parse_error(deep);
  const std::string closed = std::string(300, '[') + std::string(300, ']');
  EXPECT_NE(parse_error(closed).find("nesting deeper than 256 levels"), std::string::npos);
  std::string objects;
  for (int i = 0; i < 100'000; ++i)
    objects += R"({"a":)";
  EXPECT_NE(parse_error(objects).find("nesting deeper than 256 levels"), std::string::npos);
  const std::string fine = std::string(256, '[') + std::string(256, ']');
  EXPECT_EQ(parse_error(fine), "(no error)");

  // The same through each reader that takes JSON from a file.
  auto tokenizer = read_tokenizer_json(*bytes_of(R"({"model": {"x": )" + deep, "tokenizer.json"));
  test::expect_error(tokenizer, ErrorCode::Malformed, "tokenizer.json: invalid JSON at byte",
                     "nesting deeper than 256 levels");
  tokenizer = read_tokenizer_json(*bytes_of(R"({"model": {"merges": )" + deep, "tokenizer.json"));
  test::expect_error(tokenizer, ErrorCode::Malformed, "tokenizer.json: model.merges[0] must be a string");
  std::string header = "{\"a\": " + deep;
  test::ByteWriter w;
  const uint64_t length = header.size();
  w.raw(&length, 8);
  w.text(header);
  test::expect_error(read_safetensors(w.finish("model.safetensors")), ErrorCode::Malformed,
                     "model.safetensors header: invalid JSON", "nesting deeper than 256 levels");
}

TEST(JsonReader, DecodesEscapesAndKeepsNulCharacters) {
  json::Document doc;
  ASSERT_TRUE(json::parse(R"(["\u00e9\ud83d\ude00", "a\u0000b", "\"\\\/\b\f\n\r\t"])", "x.json", doc).ok());
  EXPECT_EQ(json::text_of(doc[0]), "\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(json::text_of(doc[1]), std::string_view("a\0b", 3));
  EXPECT_EQ(json::text_of(doc[2]), "\"\\/\b\f\n\r\t");
}

// RapidJSON 1.1.0 read these zeros through undefined behaviour (a count of leading zeros of 0) and, on x86,
// returned garbage such as -3.99e146; the fuzzer found it (see json_reader.hpp). Numbers that are not zero
// still convert with full precision: each equals what strtod gives in the C locale.
TEST(JsonReader, ZerosWithLongFractionsOrExponentsAreZero) {
  json::Document doc;
  ASSERT_TRUE(
      json::parse("[0.000000000000000000000000, 0e100, -0.0E-400, 0.0, 0, -0, 0e-5]", "z.json", doc).ok());
  ASSERT_EQ(doc.Size(), 7u);
  for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
    ASSERT_TRUE(doc[i].IsNumber()) << i;
    EXPECT_EQ(doc[i].GetDouble(), 0.0) << i;
  }
  EXPECT_TRUE(std::signbit(doc[2].GetDouble()));
  EXPECT_TRUE(doc[4].IsUint() && doc[4].GetUint() == 0u);

  const char* numbers[] = {"1e-06",
                           "0.1",
                           "2.2250738585072011e-308",
                           "9007199254740993",
                           "-12.345678901234567890123",
                           "1.7976931348623157e308",
                           "123456789012345678901234567890",
                           "0.0000000000000000000000000000001234567890123456789",
                           "4.9406564584124654e-324"};
  std::string text = "[";
  for (const char* n : numbers)
    text += std::string(text.size() > 1 ? "," : "") + n;
  ASSERT_TRUE(json::parse(text + "]", "n.json", doc).ok());
  for (rapidjson::SizeType i = 0; i < doc.Size(); ++i)
    EXPECT_EQ(doc[i].GetDouble(), std::strtod(numbers[i], nullptr)) << numbers[i];
  ASSERT_TRUE(json::parse("[18446744073709551615, -9223372036854775808, 4294967296]", "i.json", doc).ok());
  EXPECT_EQ(doc[0].GetUint64(), 18446744073709551615ull);
  EXPECT_EQ(doc[1].GetInt64(), INT64_MIN);
  EXPECT_EQ(doc[2].GetInt64(), 4294967296ll);

  EXPECT_EQ(parse_error("[1, 1e400]"),
            "x.json: invalid JSON at byte 4: Number too big to be stored in double.")
      << "a number out of range names why";
  EXPECT_NE(parse_error("[0.]").find("invalid JSON at byte 3"), std::string::npos) << parse_error("[0.]");
}

// strtod follows LC_NUMERIC: under a German locale it reads "0.5" as 0. RapidJSON converts numbers itself.
// The test needs such a locale installed (Debian: locales-all, or localedef into $LOCPATH); Emscripten's libc
// has none, so there it is skipped.
TEST(JsonReader, NumbersDoNotDependOnTheLocale) {
  const std::string saved = std::setlocale(LC_NUMERIC, nullptr);
  const char* german = nullptr;
  for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8"}) {
    if (std::setlocale(LC_NUMERIC, name)) {
      german = name;
      break;
    }
  }
  if (!german || std::localeconv()->decimal_point[0] != ',') {
    std::setlocale(LC_NUMERIC, saved.c_str());
    GTEST_SKIP() << "no locale with a decimal comma is installed";
  }
  json::Document doc;
  const Result<void> parsed = json::parse(R"({"eps": 1e-06, "half": 0.5, "theta": 500000.0})", "c.json", doc);
  const json::Fields f("c.json");
  const auto half = f.number(doc, "", "half");
  const auto eps = f.number(doc, "", "eps");
  const auto theta = f.number(doc, "", "theta");
  std::setlocale(LC_NUMERIC, saved.c_str());
  ASSERT_TRUE(parsed.ok()) << german;
  ASSERT_TRUE(half.ok() && eps.ok() && theta.ok());
  EXPECT_EQ(**half, 0.5) << german;
  EXPECT_EQ(**eps, 1e-06) << german;
  EXPECT_EQ(**theta, 500000.0) << german;
}

TEST(JsonFields, ErrorsNameTheFileAndThePath) {
  json::Document doc;
  ASSERT_TRUE(json::parse(R"({"a": {"b": "x", "n": 1.5, "big": 1e10, "neg": -3, "ok": 7, "null": null}})",
                          "f.json", doc)
                  .ok());
  const json::Fields f("f.json");
  const json::Value& a = doc["a"];
  auto message = [](const auto& r) { return r.ok() ? std::string("(no error)") : r.error().message; };
  EXPECT_EQ(message(f.object(doc, "", "a")), "(no error)");
  EXPECT_EQ(message(f.object(a, "a", "b")), "f.json: a.b must be an object");
  EXPECT_EQ(message(f.array(a, "a", "b")), "f.json: a.b must be an array");
  EXPECT_EQ(message(f.flag(a, "a", "b", false)), "f.json: a.b must be true or false");
  EXPECT_EQ(message(f.text(a, "a", "n", "")), "f.json: a.n must be a string");
  EXPECT_EQ(message(f.number(a, "a", "b")), "f.json: a.b must be a number");
  EXPECT_EQ(message(f.whole_number(a, "a", "n", 1, 10)),
            "f.json: a.n must be a whole number in 1..10, found 1.5");
  EXPECT_EQ(message(f.whole_number(a, "a", "big", 1, 10)),
            "f.json: a.big must be a whole number in 1..10, found 1e+10");
  EXPECT_EQ(message(f.whole_number(a, "a", "gone", 1, 10)), "f.json: a.gone is missing");
  EXPECT_EQ(message(f.whole_number(a, "a", "gone", 1, 10, 20)),
            "f.json: a.gone must be a whole number in 1..10, found 20 (the default)");
  EXPECT_EQ(*f.whole_number(a, "a", "ok", 1, 10), 7);
  EXPECT_EQ(message(f.id(a["neg"], "a.neg")), "f.json: a.neg must be a non-negative integer id");
  EXPECT_EQ(message(f.id(a["big"], "a.big")), "f.json: a.big must be a non-negative integer id");
  EXPECT_EQ(*f.id(a["ok"], "a.ok"), 7);
  EXPECT_EQ(message(f.whole_number(a["neg"], "a.neg", 100)),
            "f.json: a.neg must be a non-negative whole number");
  EXPECT_EQ(*f.whole_number(a["big"], "a.big", uint64_t{1} << 40), 10'000'000'000u);
  // Null is "not given": the fallback.
  EXPECT_EQ(*f.text(a, "a", "null", "fallback"), "fallback");
  EXPECT_EQ(*f.object(a, "a", "null"), nullptr);
}

}  // namespace
}  // namespace glassbox
