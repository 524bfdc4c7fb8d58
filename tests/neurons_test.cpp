// glassbox::top_neurons on stories260K (a SwiGLU feed-forward): each neuron's activation is silu(gate) × up of
// the values recorded beside it; the list is ordered by magnitude; each neuron's peaks are its largest
// activations over the text; a position's neurons depend only on the tokens up to it (the same bits when the
// text ends there) and not on the thread count; bad requests are refused in words.
#include <gtest/gtest.h>

#include <cmath>

#include "glassbox/glassbox.hpp"
#include "stories_model.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

TEST(Neurons, TheTopNeuronsAreTheFeedForwardsOwnHiddenUnits) {
  REQUIRE_STORIES();
  const std::vector<int> ids = stories.tokenizer->encode_prompt(test::kStoriesText);
  const int position = 12, layer = 3;
  auto r = top_neurons(stories.model, ids, layer, position, 10, 4);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->gated);
  ASSERT_EQ(r->top.size(), 10u);
  ASSERT_EQ(r->peaks.size(), 10u);
  for (std::size_t i = 0; i < r->top.size(); ++i) {
    const NeuronActivation& a = r->top[i];
    const double silu = a.pre / (1.0 + std::exp(-static_cast<double>(a.pre)));
    EXPECT_NEAR(a.activation, silu * a.up, 1e-5 * (1 + std::abs(a.activation))) << "neuron " << a.neuron;
    if (i > 0) EXPECT_GE(std::abs(r->top[i - 1].activation), std::abs(a.activation));
    ASSERT_EQ(r->peaks[i].size(), 4u);
    for (std::size_t j = 1; j < 4; ++j)
      EXPECT_GE(r->peaks[i][j - 1].activation, r->peaks[i][j].activation);
    // The neuron's activation here is one of the text's: no peak is below it unless the list is full of higher ones.
    EXPECT_GE(r->peaks[i].front().activation, a.activation);
  }
  // Causal: the text cut after the position gives the same neurons, to the bit; so do three threads.
  auto cut =
      top_neurons(stories.model, std::span<const int>(ids).first(position + 1), layer, position, 10, 1);
  auto threaded = top_neurons(stories.model, ids, layer, position, 10, 4, 3);
  ASSERT_TRUE(cut.ok() && threaded.ok());
  for (std::size_t i = 0; i < r->top.size(); ++i) {
    EXPECT_EQ(cut->top[i].neuron, r->top[i].neuron);
    EXPECT_EQ(cut->top[i].activation, r->top[i].activation);
    EXPECT_EQ(threaded->top[i].activation, r->top[i].activation);
  }
}

TEST(Neurons, BadRequestsAreRefusedInWords) {
  REQUIRE_STORIES();
  const std::vector<int> ids = stories.tokenizer->encode_prompt(test::kStoriesText);
  test::expect_error(top_neurons(stories.model, ids, 5, 0, 3), ErrorCode::BadArgument, "layer 5 is outside");
  test::expect_error(top_neurons(stories.model, ids, 0, 99, 3), ErrorCode::BadArgument,
                     "position 99 is outside");
  test::expect_error(top_neurons(stories.model, ids, 0, 0, 0), ErrorCode::BadArgument, "at least 1");
  test::expect_error(top_neurons(stories.model, std::vector<int>{}, 0, 0, 3), ErrorCode::BadArgument,
                     "no tokens");
  test::expect_error(top_neurons(stories.model, std::vector<int>{1, 9999}, 0, 0, 3), ErrorCode::BadArgument,
                     "9999");
}

}  // namespace
}  // namespace glassbox
