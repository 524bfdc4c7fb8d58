// The JSON writer every --json output and the inspection document go through.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "glassbox/json_writer.hpp"

namespace glassbox {
namespace {

std::string float_text(float value) {
  JsonWriter json;
  json.number(value);
  return std::string(json.text());
}

TEST(JsonWriter, FloatsInTheFewestDigitsThatReadBackExactly) {
  EXPECT_EQ(float_text(0.1f), "0.1");
  EXPECT_EQ(float_text(1.0f), "1");
  EXPECT_EQ(float_text(0.0f), "0");
  EXPECT_EQ(float_text(-0.0f), "0");
  EXPECT_EQ(float_text(1.0f / 3.0f),
            "0.33333334");  // eight digits; 0.3333333 would read back as another float
  EXPECT_EQ(float_text(NAN), "null");
  EXPECT_EQ(float_text(INFINITY), "null");
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> exponent(-40.0f, 38.0f);
  for (int i = 0; i < 10000; ++i) {
    const float value = std::pow(10.0f, exponent(rng)) * (i % 2 ? 1.0f : -1.0f);
    if (!std::isfinite(value)) continue;
    const std::string text = float_text(value);
    EXPECT_EQ(std::strtof(text.c_str(), nullptr), value) << text;
    EXPECT_LE(text.size(), 16u) << text;
  }
}

TEST(JsonWriter, WritesADocumentWithValidUtf8) {
  JsonWriter json;
  const float values[] = {0.5f, 0.25f};
  json.begin_object().key("piece").string("\xE2\x96").key("p").numbers(values).key("ok").boolean(true);
  json.key("none").null().end_object();
  EXPECT_EQ(json.text(),
            "{\"piece\":\"\xEF\xBF\xBD\xEF\xBF\xBD\",\"p\":[0.5,0.25],\"ok\":true,\"none\":null}");
}

}  // namespace
}  // namespace glassbox
