// The thread rule's decisions (glassbox/thread_choice.hpp) on the shapes they are made for, and the Session's
// "auto" threads: the rule's count is what each pass uses, and the bits stay those of one thread.
#include "glassbox/thread_choice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "glassbox/session.hpp"
#include "stories_model.hpp"

namespace glassbox {
namespace {

ModelConfig shape(int dim, int hidden, int layers, int heads, int kv_heads, int vocab) {
  ModelConfig c;
  c.dim = dim;
  c.hidden_dim = hidden;
  c.n_layers = layers;
  c.n_heads = heads;
  c.n_kv_heads = kv_heads;
  c.head_dim = dim / heads;
  c.vocab_size = vocab;
  c.max_seq_len = 2048;
  return c;
}
const ModelConfig kStories260K = shape(64, 172, 5, 8, 4, 512);
const ModelConfig kStories15M = shape(288, 768, 6, 6, 6, 32000);
const ModelConfig kStories110M = shape(768, 2048, 12, 12, 12, 32000);

TEST(ThreadChoice, ATinyModelDecodesOnOneThread) {
  for (int most : {2, 4, 8}) {
    const ThreadChoice choice = choose_threads(kStories260K, 1, 10, most);
    EXPECT_EQ(choice.threads, 1) << most;
    EXPECT_NE(choice.why.find("too small for threads to pay"), std::string::npos) << choice.why;
  }
}

TEST(ThreadChoice, ModelsFrom15MDecodeOnEveryThreadOfTwo) {
  for (const ModelConfig& c : {kStories15M, kStories110M}) {
    const ThreadChoice choice = choose_threads(c, 1, 0, 2);
    EXPECT_EQ(choice.threads, 2) << c.dim;
    EXPECT_NE(choice.why.find("enough work"), std::string::npos) << choice.why;
  }
}

TEST(ThreadChoice, ALongPromptOfATinyModelIsWorthTwoThreads) {
  EXPECT_EQ(threads_for_pass(kStories260K, 256, 0, 2), 2);
}

// Prompts of 8 tokens and more (where the token-by-token steps split too, so the count of hand-offs stays the
// same) take no fewer threads as they grow, and none fewer than decoding.
TEST(ThreadChoice, MoreWorkNeverTakesFewerThreads) {
  for (const ModelConfig& c : {kStories260K, kStories15M, kStories110M})
    for (int most : {2, 8}) {
      int before = threads_for_pass(c, 1, 8, most);
      for (int tokens : {8, 16, 32, 64, 128, 256}) {
        const int threads = threads_for_pass(c, tokens, 0, most);
        EXPECT_GE(threads, before) << c.dim << " " << tokens;
        EXPECT_LE(threads, most);
        before = threads;
      }
    }
}

TEST(ThreadChoice, TheSettingIsTheUpperBound) {
  EXPECT_EQ(threads_for_pass(kStories110M, 256, 0, 1), 1);
  EXPECT_EQ(threads_for_pass(kStories110M, 256, 0, 0), 1);  // below 1 counts as 1
  EXPECT_EQ(choose_threads(kStories110M, 1, 0, 1).why, "1 thread: the most this setting allows");
  EXPECT_LE(threads_for_pass(kStories110M, 256, 0, 3), 3);
}

TEST(ThreadChoice, AttentionOverALongContextCountsAsWork) {
  EXPECT_GT(pass_work(kStories260K, 1, 1000).multiply_adds, pass_work(kStories260K, 1, 0).multiply_adds);
}

// With auto threads a stories260K session steps on one thread and reads a long prompt on two, and its
// logits are the bits of a one-thread session all along.
TEST(ThreadChoice, AutoSessionUsesTheRulesCountAndKeepsTheBits) {
  REQUIRE_STORIES();
  auto automatic = Session::create(stories.model, {.threads = 2, .auto_threads = true});
  auto one = Session::create(stories.model, {.threads = 1});
  ASSERT_TRUE(automatic.ok() && one.ok());
  if (automatic->max_threads() < 2)
    GTEST_SKIP() << "this build runs one thread (the single-threaded WebAssembly build)";
  EXPECT_EQ(automatic->last_pass_threads(), 0);
  std::vector<int> prompt(200);
  for (std::size_t i = 0; i < prompt.size(); ++i)
    prompt[i] = static_cast<int>((i * 37 + 1) % 512);
  auto a = automatic->prefill(prompt);
  auto b = one->prefill(prompt);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(automatic->last_pass_threads(), threads_for_pass(stories.model->config, 200, 0, 2));
  EXPECT_TRUE(std::equal(a->begin(), a->end(), b->begin(), b->end()));
  for (int token : {5, 9, 11}) {
    a = automatic->step(token);
    b = one->step(token);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(automatic->last_pass_threads(), 1);
    EXPECT_TRUE(std::equal(a->begin(), a->end(), b->begin(), b->end()));
  }
  EXPECT_EQ(automatic->max_threads(), 2);

  // The user's override: every pass on the count asked for (within the threads started), same bits.
  automatic->use_threads(2, false);
  a = automatic->step(13);
  b = one->step(13);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(automatic->last_pass_threads(), 2);
  EXPECT_TRUE(std::equal(a->begin(), a->end(), b->begin(), b->end()));
  automatic->use_threads(1, false);  // fewer than the session started
  a = automatic->prefill(prompt);    // a prompt the rule would give two
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(automatic->last_pass_threads(), 1);
  automatic->use_threads(7, true);
  EXPECT_EQ(automatic->thread_limit(), 2);
  EXPECT_TRUE(automatic->auto_threads());
}

}  // namespace
}  // namespace glassbox
