// The generation rules, all in Generator: llama2.c's step convention, what a prompt may be, and each way a
// generation ends, with the reason it reports.
#include <gtest/gtest.h>

#include "glassbox/formats.hpp"
#include "glassbox/glassbox.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

struct Fixture {
  std::shared_ptr<const Model> model;
  Tokenizer tokenizer;
};

// A random 32-token model (context 16) and a 32-piece vocabulary with BOS 1 and EOS `eos`.
Fixture make(uint32_t seed = 2, int eos = 2) {
  auto model = read_llama2c_checkpoint(bytes_from_buffer(test::make_llama2c_checkpoint({}, seed), "r.bin"));
  EXPECT_TRUE(model.ok()) << model.error().message;
  Vocabulary v;
  for (int i = 0; i < 32; ++i) {
    v.pieces.push_back(i == 1 ? "<s>" : i == eos ? "</s>" : std::string(1, static_cast<char>('a' + i % 26)));
    v.scores.push_back(0.0f);
    v.types.push_back(i == 1 || i == eos ? TokenType::Control : TokenType::Normal);
  }
  v.bos_id = 1;
  v.eos_id = eos;
  v.add_space_prefix = false;
  auto tokenizer = Tokenizer::create(std::move(v), "test");
  EXPECT_TRUE(tokenizer.ok());
  return {std::make_shared<const Model>(std::move(*model)), std::move(*tokenizer)};
}

TEST(Generator, FollowsLlama2cStepConventionAndStreams) {
  Fixture f = make();
  auto session = Session::create(f.model);
  Sampler greedy({.temperature = 0.0f});
  Generator generator(*session, greedy, f.tokenizer);
  const std::vector<int> prompt = {1, 5, 9};
  ASSERT_TRUE(generator.start(prompt).ok());
  auto first = generator.next();
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(session->position(), 3);  // the whole prompt went through; sampling began at its last token
  EXPECT_EQ(first->position, 2);
  auto second = generator.next();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(session->position(), 4);
  EXPECT_EQ(second->position, 3);

  // The same tokens come from stepping by hand.
  auto manual = Session::create(f.model);
  std::span<const float> logits;
  for (int t : prompt)
    logits = *manual->step(t);
  EXPECT_EQ(argmax(logits), first->id);
  EXPECT_EQ(argmax(*manual->step(first->id)), second->id);
  EXPECT_EQ(generator.tokens().size(), 5u);
  EXPECT_EQ(generator.prompt_length(), 3);
  EXPECT_EQ(generator.generated_count(), 2);
}

TEST(Generator, RefusesAnEmptyPromptAndOneLongerThanTheContext) {
  Fixture f = make();
  auto session = Session::create(f.model, {.context_length = 4});
  Sampler greedy({.temperature = 0.0f});
  Generator generator(*session, greedy, f.tokenizer);
  auto empty = generator.start(std::vector<int>{});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ErrorCode::PromptEmpty);

  auto too_long = generator.start(std::vector<int>{1, 3, 4, 5, 6});
  test::expect_error(too_long, ErrorCode::PromptTooLong, "5 tokens, more than the context of 4");

  auto bad_id = generator.start(std::vector<int>{1, 32});
  ASSERT_FALSE(bad_id.ok());
  EXPECT_EQ(bad_id.error().code, ErrorCode::BadArgument);

  auto short_budget = generator.start(std::vector<int>{1, 3, 4}, {.max_steps = 2});
  ASSERT_FALSE(short_budget.ok());
  EXPECT_EQ(short_budget.error().code, ErrorCode::BadArgument);

  // Nothing started: next() says so instead of running.
  auto next = generator.next();
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.error().code, ErrorCode::InvalidState);
}

TEST(Generator, APromptThatFillsTheContextYieldsOneTokenThenContextFull) {
  Fixture f = make();
  auto session = Session::create(f.model, {.context_length = 4});
  Sampler greedy({.temperature = 0.0f});
  Generator generator(*session, greedy, f.tokenizer);
  ASSERT_TRUE(generator.start(std::vector<int>{1, 3, 4, 5}).ok());
  auto token = generator.next();
  ASSERT_TRUE(token.ok()) << token.error().message;
  EXPECT_TRUE(generator.finished());
  // Unless the model happened to end the text itself, the context is why it stopped.
  if (!token->end_of_text) EXPECT_EQ(generator.stop_reason(), StopReason::ContextFull);
  auto after = generator.next();
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code, ErrorCode::InvalidState);
  EXPECT_EQ(session->position(), 4);
}

TEST(Generator, StopsAtTheBudgetAndWhenAsked) {
  Fixture f = make();
  auto session = Session::create(f.model);
  // A high temperature and a fixed seed: the tokens differ, the count must not.
  Sampler sampler({.temperature = 1.0f, .top_p = 1.0f, .seed = 7});
  Generator generator(*session, sampler, f.tokenizer);
  ASSERT_TRUE(generator.start(std::vector<int>{1, 3}, {.max_new_tokens = 3}).ok());
  int produced = 0;
  while (!generator.finished()) {
    auto token = generator.next();
    ASSERT_TRUE(token.ok());
    ++produced;
  }
  if (generator.stop_reason() == StopReason::Length) EXPECT_EQ(produced, 3);
  EXPECT_LE(produced, 3);

  ASSERT_TRUE(generator.start(std::vector<int>{1, 3}, {.max_steps = 5}).ok());
  while (!generator.finished())
    ASSERT_TRUE(generator.next().ok());
  if (generator.stop_reason() == StopReason::Length) EXPECT_EQ(session->position(), 5);

  ASSERT_TRUE(generator.start(std::vector<int>{1, 3}).ok());
  ASSERT_TRUE(generator.next().ok());
  generator.stop();
  EXPECT_EQ(generator.stop_reason(), StopReason::Stopped);
  test::expect_error(generator.next(), ErrorCode::InvalidState);
}

TEST(Generator, EndsOnEosOrBosAndLeavesItOutOfTheText) {
  // Find the token greedy decoding picks first, then declare it EOS (or BOS): the generation must end on it.
  Fixture plain = make();
  auto probe_session = Session::create(plain.model);
  Sampler probe_sampler({.temperature = 0.0f});
  Generator probe(*probe_session, probe_sampler, plain.tokenizer);
  ASSERT_TRUE(probe.start(std::vector<int>{1, 3}).ok());
  auto first = probe.next();
  ASSERT_TRUE(first.ok());
  ASSERT_FALSE(first->end_of_text);
  ASSERT_NE(first->id, 1) << "pick another seed: greedy's first token is BOS";

  Fixture f = make(2, first->id);
  EXPECT_TRUE(f.tokenizer.ends_text(first->id));
  EXPECT_TRUE(f.tokenizer.ends_text(1));
  EXPECT_FALSE(f.tokenizer.ends_text(-1));
  auto session = Session::create(f.model);
  Sampler greedy({.temperature = 0.0f});
  Generator generator(*session, greedy, f.tokenizer);
  ASSERT_TRUE(generator.start(std::vector<int>{1, 3}).ok());
  auto token = generator.next();
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(token->id, first->id);
  EXPECT_TRUE(token->end_of_text);
  EXPECT_TRUE(token->text.empty());
  EXPECT_TRUE(generator.finished());
  EXPECT_EQ(generator.stop_reason(), StopReason::EndOfText);
  EXPECT_EQ(generator.tokens().back(), first->id);  // the end token is in the sequence, not in the text
}

TEST(Generator, StopReasonsHaveStableNames) {
  EXPECT_STREQ(to_string(StopReason::EndOfText), "end-of-text");
  EXPECT_STREQ(to_string(StopReason::ContextFull), "context-full");
  EXPECT_STREQ(to_string(StopReason::Length), "length");
  EXPECT_STREQ(to_string(StopReason::Stopped), "stopped");
}

// The policy for prompts that are not valid UTF-8: they are accepted as bytes, never rejected or repaired.
// Each invalid byte is a character of its own (glassbox/utf8.hpp) that the tokenizer spells with its byte
// tokens, so the prompt's tokens decode to exactly the bytes given and generation goes on from them.
TEST(Generator, APromptOfInvalidUtf8IsReadAsBytesAndGenerationGoesOn) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  auto loaded = open_model_files(test::model_path("stories260K.bin"), test::model_path("tok512.bin"));
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto session = Session::create(loaded->model);
  Sampler greedy({.temperature = 0.0f});
  Generator generator(*session, greedy, *loaded->tokenizer);
  // A stray byte, a lone continuation byte, an overlong encoding, a surrogate, a truncated character.
  const std::string prompt = "Once \xff upon \x80 a \xc0\xaf time \xed\xa0\x80 there \xe4\xb8";
  ASSERT_TRUE(generator.start_text(prompt, {.max_new_tokens = 8}).ok());
  const std::span<const int> ids = generator.tokens();
  const std::string decoded = loaded->tokenizer->decode(ids);
  EXPECT_NE(decoded.find(prompt), std::string::npos) << "the prompt's bytes come back from its tokens";
  int generated = 0;
  while (!generator.finished()) {
    auto token = generator.next();
    ASSERT_TRUE(token.ok()) << token.error().message;
    ++generated;
  }
  EXPECT_GE(generated, 1);
}

}  // namespace
}  // namespace glassbox
