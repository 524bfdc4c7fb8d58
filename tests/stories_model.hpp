// stories260K with its tokenizer, loaded once per test, for the suites that score and compare whole runs
// (score_test.cpp, attention_variant_test.cpp). REQUIRE_STORIES() skips (fails in CI) without the files.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "glassbox/formats.hpp"
#include "glassbox/model.hpp"
#include "glassbox/tokenizer.hpp"
#include "test_support.hpp"

namespace glassbox::test {

struct Stories {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const Tokenizer> tokenizer;
};

// Both null when a file cannot be read (the test's ASSERT says so).
inline Stories load_stories() {
  Stories s;
  auto model = load_model(model_path("stories260K.bin"));
  EXPECT_TRUE(model.ok()) << model.error().message;
  auto tokenizer = load_tokenizer(model_path("tok512.bin"));
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.error().message;
  if (!model.ok() || !tokenizer.ok()) return s;
  s.model = std::make_shared<const Model>(std::move(*model));
  s.tokenizer = std::make_shared<const Tokenizer>(std::move(*tokenizer));
  return s;
}

// The text these suites score: 31 predicted tokens, some of them repeating earlier ones.
inline constexpr const char* kStoriesText =
    "Once upon a time, there was a little girl named Lily. She loved to play outside.";

}  // namespace glassbox::test

#define REQUIRE_STORIES()                                     \
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin")); \
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));      \
  const test::Stories stories = test::load_stories();         \
  ASSERT_TRUE(stories.model&& stories.tokenizer)
