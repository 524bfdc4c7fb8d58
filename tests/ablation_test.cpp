// Head ablation: the spec parser, the scale table, the distribution comparison, and the forward pass with
// heads scaled. The NumPy reference checks the ablated logits themselves (reference_fixtures_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "glassbox/glassbox.hpp"
#include "random_models.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

std::vector<float> logits_of(const Model& model, std::span<const int> tokens, std::span<const float> scales,
                             int threads = 1) {
  auto session = Session::create(std::make_shared<const Model>(model), {.threads = threads});
  EXPECT_TRUE(session.ok());
  EXPECT_TRUE(session->set_head_scales(scales).ok());
  auto logits = session->prefill(tokens);
  EXPECT_TRUE(logits.ok());
  return logits.ok() ? std::vector<float>(logits->begin(), logits->end()) : std::vector<float>{};
}

TEST(HeadScales, ParsesHeadsAndScales) {
  auto parsed = parse_head_scales("0.3,1.0=0.5,12.11=-2");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0].layer, 0);
  EXPECT_EQ((*parsed)[0].head, 3);
  EXPECT_EQ((*parsed)[0].scale, 0.0f);
  EXPECT_EQ((*parsed)[1].layer, 1);
  EXPECT_EQ((*parsed)[1].scale, 0.5f);
  EXPECT_EQ((*parsed)[2].layer, 12);
  EXPECT_EQ((*parsed)[2].head, 11);
  EXPECT_EQ((*parsed)[2].scale, -2.0f);
  EXPECT_TRUE(parse_head_scales("")->empty());
}

TEST(HeadScales, RejectsMalformedItemsByName) {
  for (const char* bad : {"1", "1.", ".2", "a.b", "1.2=", "1.2=x", "1.2=nan", "1.2=inf", "-1.2", "1.2,,0.1",
                          "1.2.3", "1.2=0.5junk"}) {
    test::expect_error(parse_head_scales(bad), ErrorCode::BadArgument, "LAYER.HEAD");
  }
}

TEST(HeadScales, TableChecksTheModelsShape) {
  const ModelConfig c = test::base_config();  // 2 layers x 4 heads
  const HeadScale ok[] = {{1, 3, 0.0f}, {0, 0, 0.5f}};
  auto table = head_scale_table(c, ok);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(*table, (std::vector<float>{0.5f, 1, 1, 1, 1, 1, 1, 0.0f}));
  const HeadScale no_layer[] = {{2, 0, 0.0f}};
  test::expect_error(head_scale_table(c, no_layer), ErrorCode::BadArgument,
                     "head 2.0 is not in the model (layers 0..1, heads 0..3)");
  const HeadScale no_head[] = {{0, 4, 0.0f}};
  test::expect_error(head_scale_table(c, no_head), ErrorCode::BadArgument);
  const HeadScale infinite[] = {{0, 1, std::numeric_limits<float>::infinity()}};
  test::expect_error(head_scale_table(c, infinite), ErrorCode::BadArgument);
}

TEST(HeadScales, TableCheckWantsEveryHeadAndFiniteScales) {
  const ModelConfig c = test::base_config();  // 2 layers x 4 heads
  EXPECT_TRUE(check_head_scale_table(c, std::vector<float>(8, 1.0f)).ok());
  for (std::size_t size : {0u, 7u, 9u}) {
    const auto wrong = check_head_scale_table(c, std::vector<float>(size, 1.0f));
    ASSERT_FALSE(wrong.ok()) << size;
    EXPECT_EQ(wrong.error().code, ErrorCode::BadArgument);
    EXPECT_EQ(wrong.error().message,
              cat("head scales: ", size, " values for a model of 2 layers x 4 heads (8)"));
  }
  for (float bad : {std::nanf(""), std::numeric_limits<float>::infinity()}) {
    std::vector<float> table(8, 1.0f);
    table[5] = bad;
    const auto refused = check_head_scale_table(c, table);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().code, ErrorCode::BadArgument);
    EXPECT_EQ(refused.error().message, "head scales: the scale of head 1.1 is not a finite number");
  }
}

TEST(HeadScales, ScaledHeadsIsTheTablesInverse) {
  const ModelConfig c = test::base_config();  // 2 layers x 4 heads
  const HeadScale heads[] = {{0, 2, 0.0f}, {1, 3, 0.5f}, {1, 0, -2.0f}};
  auto table = head_scale_table(c, heads);
  ASSERT_TRUE(table.ok());
  auto back = scaled_heads(c, *table);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), 3u);  // layer-major: 0.2, 1.0, 1.3
  const int expected[][2] = {{0, 2}, {1, 0}, {1, 3}};
  const float scales[] = {0.0f, -2.0f, 0.5f};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*back)[i].layer, expected[i][0]);
    EXPECT_EQ((*back)[i].head, expected[i][1]);
    EXPECT_EQ((*back)[i].scale, scales[i]);
  }
  EXPECT_TRUE(scaled_heads(c, std::vector<float>(8, 1.0f))->empty()) << "all ones: no head is scaled";
  EXPECT_EQ(scaled_heads(c, std::vector<float>(3, 0.0f)).error().code, ErrorCode::BadArgument);
}

TEST(HeadScales, SessionRejectsAWrongSizedOrNonFiniteTable) {
  test::RandomModel random(test::base_config(), {}, 1);
  auto session = Session::create(std::make_shared<const Model>(random.model()));
  ASSERT_TRUE(session.ok());
  const std::vector<float> short_table(7, 0.0f);
  auto wrong = session->set_head_scales(short_table);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, ErrorCode::BadArgument);
  std::vector<float> nan_table(8, 1.0f);
  nan_table[5] = std::nanf("");
  test::expect_error(session->set_head_scales(nan_table), ErrorCode::BadArgument);
  EXPECT_TRUE(session->head_scales().empty()) << "a rejected table changes nothing";
  const std::vector<float> ones(8, 1.0f);
  ASSERT_TRUE(session->set_head_scales(ones).ok());
  EXPECT_TRUE(session->head_scales().empty()) << "all ones is no ablation";
  std::vector<float> one_off(8, 1.0f);
  one_off[2] = 0.0f;
  ASSERT_TRUE(session->set_head_scales(one_off).ok());
  EXPECT_EQ(session->head_scales().size(), 8u);
}

// A head whose value rows are all zero outputs zero, so switching it off must change no bit.
TEST(HeadAblation, AHeadWithZeroOutputChangesNothing) {
  for (const test::Case& c : test::architecture_cases()) {
    test::RandomModel random(c.config, c.biases, 7);
    Model model = random.model();
    // kv head 0 serves query heads 0 .. heads_per_kv - 1: zero its value rows (and bias) for all layers.
    const auto head_dim = static_cast<std::size_t>(c.config.head_dim);
    const auto dim = static_cast<std::size_t>(c.config.dim);
    for (LayerWeights& layer : model.weights.layers) {
      auto zeroed =
          std::make_shared<std::vector<float>>(layer.wv.f32(), layer.wv.f32() + layer.wv.elements());
      std::fill(zeroed->begin(), zeroed->begin() + static_cast<std::ptrdiff_t>(head_dim * dim), 0.0f);
      model.storage.push_back(zeroed);
      layer.wv.data = reinterpret_cast<const std::byte*>(zeroed->data());
      if (layer.bv.present()) {
        auto bias =
            std::make_shared<std::vector<float>>(layer.bv.f32(), layer.bv.f32() + layer.bv.elements());
        std::fill(bias->begin(), bias->begin() + static_cast<std::ptrdiff_t>(head_dim), 0.0f);
        model.storage.push_back(bias);
        layer.bv.data = reinterpret_cast<const std::byte*>(bias->data());
      }
    }
    std::vector<float> scales(static_cast<std::size_t>(c.config.n_layers * c.config.n_heads), 1.0f);
    scales[0] = 0.0f;                                           // layer 0, head 0
    scales[static_cast<std::size_t>(c.config.n_heads)] = 0.0f;  // layer 1, head 0
    const int tokens[] = {1, 5, 2, 9, 3, 3};
    EXPECT_EQ(logits_of(model, tokens, {}), logits_of(model, tokens, scales)) << c.label;
    // ...while switching off a head that does output something (the last reads the last kv head) changes them.
    // With one kv head (MQA) every head read the zeroed values: there is no such head.
    if (c.config.n_kv_heads == 1) continue;
    scales[static_cast<std::size_t>(c.config.n_heads - 1)] = 0.0f;
    EXPECT_NE(logits_of(model, tokens, {}), logits_of(model, tokens, scales)) << c.label;
  }
}

TEST(HeadAblation, TheSameBitsWithAnyThreadCountAndChunking) {
  test::RandomModel random(test::base_config(), {}, 11);
  std::vector<float> scales(8, 1.0f);
  scales[1] = 0.0f;
  scales[6] = 0.25f;
  const int tokens[] = {4, 1, 7, 7, 2, 10, 0, 3};
  const std::vector<float> one = logits_of(random.model(), tokens, scales, 1);
  EXPECT_EQ(one, logits_of(random.model(), tokens, scales, 2));
  auto session = Session::create(std::make_shared<const Model>(random.model()), {.threads = 2});
  ASSERT_TRUE(session->set_head_scales(scales).ok());
  std::span<const float> stepped;
  for (int token : tokens)
    stepped = *session->step(token);
  EXPECT_EQ(one, std::vector<float>(stepped.begin(), stepped.end()));
}

TEST(DistributionChange, EqualDistributionsDifferByNothing) {
  const float logits[] = {1.0f, 2.0f, -3.0f, 0.5f};
  auto change = compare_distributions(logits, logits);
  ASSERT_TRUE(change.ok());
  EXPECT_EQ(change->kl_bits, 0.0);
  EXPECT_EQ(change->top_before, 1);
  EXPECT_EQ(change->top_after, 1);
  EXPECT_DOUBLE_EQ(change->p_top_before, change->q_top_before);
}

TEST(DistributionChange, MeasuresKlInBitsAndTheTopTokensMove) {
  // p = (1/2, 1/2) from equal logits, q = (1/5, 4/5) from logits 0 and log 4:
  // KL = 1/2 log2(5/2) + 1/2 log2(5/8).
  const float before[] = {0.0f, 0.0f};
  const float after[] = {0.0f, static_cast<float>(std::log(4.0))};
  auto change = compare_distributions(before, after);
  ASSERT_TRUE(change.ok());
  EXPECT_NEAR(change->kl_bits, 0.5 * std::log2(2.5) + 0.5 * std::log2(0.625), 1e-7);
  EXPECT_EQ(change->top_before, 0);  // ties go to the lower id
  EXPECT_NEAR(change->p_top_before, 0.5, 1e-12);
  EXPECT_NEAR(change->q_top_before, 0.2, 1e-7);
  EXPECT_EQ(change->top_after, 1);
  EXPECT_NEAR(change->q_top_after, 0.8, 1e-7);
  // Far apart logits: a probability below what a double holds still gives a finite divergence.
  const float sure[] = {0.0f, 2000.0f}, other[] = {2000.0f, 0.0f};
  auto extreme = compare_distributions(sure, other);
  ASSERT_TRUE(extreme.ok());
  EXPECT_TRUE(std::isfinite(extreme->kl_bits));
  EXPECT_NEAR(extreme->kl_bits, 2000.0 / std::log(2.0), 1e-6);
}

TEST(DistributionChange, RejectsDifferentLengths) {
  const float a[] = {1.0f, 2.0f}, b[] = {1.0f};
  test::expect_error(compare_distributions(a, b), ErrorCode::BadArgument);
  test::expect_error(compare_distributions({}, {}), ErrorCode::BadArgument);
}

void expect_same_change(const DistributionChange& a, const DistributionChange& b) {
  EXPECT_EQ(a.kl_bits, b.kl_bits);
  EXPECT_EQ(a.top_before, b.top_before);
  EXPECT_EQ(a.p_top_before, b.p_top_before);
  EXPECT_EQ(a.q_top_before, b.q_top_before);
  EXPECT_EQ(a.top_after, b.top_after);
  EXPECT_EQ(a.q_top_after, b.q_top_after);
}

// ablate_session: the page's ablation in its generation's session, against the model as trained.
TEST(HeadAblation, InASessionComparesWithTheModelAsTrainedAndKeepsTheAblatedRun) {
  test::RandomModel random(test::base_config(), {}, 11);
  const auto model = std::make_shared<const Model>(random.model());
  const std::vector<int> tokens = {4, 1, 7, 7, 2, 10};
  std::vector<float> table(8, 1.0f);
  table[0] = 0.0f;
  table[5] = 0.5f;
  const std::vector<float> trained = logits_of(*model, tokens, {}),
                           ablated = logits_of(*model, tokens, table);
  auto expected = compare_distributions(trained, ablated);
  ASSERT_TRUE(expected.ok());
  ASSERT_GT(expected->kl_bits, 0.0);

  auto session = Session::create(model);
  ASSERT_TRUE(session->prefill(tokens).ok());
  auto change = ablate_session(*session, tokens, table);
  ASSERT_TRUE(change.ok()) << change.error().message;
  expect_same_change(change->change, *expected);
  EXPECT_EQ(session->position(), 6);
  EXPECT_EQ(std::vector<float>(session->head_scales().begin(), session->head_scales().end()), table);
  EXPECT_EQ(std::vector<float>(session->logits().begin(), session->logits().end()), ablated);

  // Again, with the ablation already on: the baseline is still the model as trained.
  auto again = ablate_session(*session, tokens, table);
  ASSERT_TRUE(again.ok()) << again.error().message;
  expect_same_change(again->change, *expected);
}

// The page's current step: the ablation measured at an earlier position compares the distributions after
// that token, as a run of only the tokens up to it would (the trace's logits agree with that run's).
TEST(HeadAblation, InASessionMeasuresAtTheNamedPosition) {
  test::RandomModel random(test::base_config(), {}, 11);
  const auto model = std::make_shared<const Model>(random.model());
  const std::vector<int> tokens = {4, 1, 7, 7, 2, 10};
  std::vector<float> table(8, 1.0f);
  table[0] = 0.0f;
  table[6] = 0.25f;
  const std::span<const int> prefix(tokens.data(), 3);  // position 2 is the last of these
  auto expected = compare_distributions(logits_of(*model, prefix, {}), logits_of(*model, prefix, table));
  ASSERT_TRUE(expected.ok());
  auto at_last = compare_distributions(logits_of(*model, tokens, {}), logits_of(*model, tokens, table));
  ASSERT_TRUE(at_last.ok());
  ASSERT_GT(std::abs(expected->kl_bits - at_last->kl_bits), 1e-6);  // the positions are told apart

  auto session = Session::create(model, {.trace_residuals = true});  // as the page's session
  ASSERT_TRUE(session->prefill(tokens).ok());
  auto effect = ablate_session(*session, tokens, table, 2);
  ASSERT_TRUE(effect.ok()) << effect.error().message;
  const DistributionChange& change = effect->change;
  EXPECT_NEAR(change.kl_bits, expected->kl_bits, 1e-5);
  EXPECT_EQ(change.top_before, expected->top_before);
  EXPECT_EQ(change.top_after, expected->top_after);
  EXPECT_NEAR(change.p_top_before, expected->p_top_before, 1e-5);
  EXPECT_NEAR(change.q_top_after, expected->q_top_after, 1e-5);
  EXPECT_EQ(session->position(), 6);  // the whole text, read with the ablation
  // The last position named explicitly is the default, bit for bit.
  auto named_last = ablate_session(*session, tokens, table, 5);
  ASSERT_TRUE(named_last.ok());
  expect_same_change(named_last->change, *at_last);
}

TEST(HeadAblation, InASessionRefusesAWrongTableOrPositionAndChangesNothing) {
  test::RandomModel random(test::base_config(), {}, 11);
  auto session = Session::create(std::make_shared<const Model>(random.model()));
  const std::vector<int> tokens = {4, 1, 7};
  ASSERT_TRUE(session->prefill(tokens).ok());
  const std::vector<float> logits(session->logits().begin(), session->logits().end());

  const auto short_table = ablate_session(*session, tokens, std::vector<float>(7, 0.0f));
  ASSERT_FALSE(short_table.ok());
  EXPECT_EQ(short_table.error().code, ErrorCode::BadArgument);
  std::vector<float> infinite(8, 1.0f);
  infinite[3] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ablate_session(*session, tokens, infinite).error().code, ErrorCode::BadArgument);

  const std::vector<float> table(8, 0.0f);
  const std::vector<int> other_length = {4, 1};
  EXPECT_EQ(ablate_session(*session, other_length, table).error().code, ErrorCode::InvalidState);
  EXPECT_EQ(ablate_session(*session, std::vector<int>{}, table).error().code, ErrorCode::InvalidState);
  EXPECT_EQ(ablate_session(*session, tokens, table, 3).error().code, ErrorCode::BadArgument);
  EXPECT_EQ(ablate_session(*session, tokens, table, -2).error().code, ErrorCode::BadArgument);

  EXPECT_TRUE(session->head_scales().empty());
  EXPECT_EQ(session->position(), 3);
  EXPECT_EQ(std::vector<float>(session->logits().begin(), session->logits().end()), logits);
}

// KL at every position: each position's change is what runs of the text up to that position alone give (the
// trace's logits agree with those runs'), and the last one is the measured change itself, bit for bit.
TEST(HeadAblation, InASessionComparesEveryPositionTheTraceKeeps) {
  test::RandomModel random(test::base_config(), {}, 11);
  const auto model = std::make_shared<const Model>(random.model());
  const std::vector<int> tokens = {4, 1, 7, 7, 2, 10};
  std::vector<float> table(8, 1.0f);
  table[1] = 0.0f;
  table[6] = 0.25f;
  auto session = Session::create(model, {.trace_residuals = true});
  ASSERT_TRUE(session->prefill(tokens).ok());
  auto effect = ablate_session(*session, tokens, table);
  ASSERT_TRUE(effect.ok()) << effect.error().message;
  EXPECT_EQ(effect->first_position, 0);
  ASSERT_EQ(effect->by_position.size(), tokens.size());
  expect_same_change(effect->by_position.back(), effect->change);
  for (std::size_t p = 0; p < tokens.size(); ++p) {
    const std::span<const int> prefix(tokens.data(), p + 1);
    auto expected = compare_distributions(logits_of(*model, prefix, {}), logits_of(*model, prefix, table));
    ASSERT_TRUE(expected.ok());
    EXPECT_NEAR(effect->by_position[p].kl_bits, expected->kl_bits, 1e-5) << "position " << p;
    EXPECT_EQ(effect->by_position[p].top_before, expected->top_before) << "position " << p;
    EXPECT_EQ(effect->by_position[p].top_after, expected->top_after) << "position " << p;
  }
  EXPECT_GT(effect->by_position[2].kl_bits, 0.0);

  // Without a residual trace there are no positions to compare, only the measured one.
  auto untraced = Session::create(model);
  ASSERT_TRUE(untraced->prefill(tokens).ok());
  auto only_last = ablate_session(*untraced, tokens, table);
  ASSERT_TRUE(only_last.ok());
  EXPECT_TRUE(only_last->by_position.empty());
  expect_same_change(only_last->change, effect->change);
}

// Mean ablation: the head writes its mean output over the text, taken from the model as trained, at every
// position; the other heads keep their own. The means are checked against the head's outputs the attention
// detail recomputes from the trained run's trace.
TEST(MeanAblation, TheHeadWritesItsMeanOverTheTextAtEveryPosition) {
  test::RandomModel random(test::base_config(), {}, 11);  // 2 layers x 4 heads
  const auto model = std::make_shared<const Model>(random.model());
  const std::vector<int> tokens = {4, 1, 7, 7, 2, 10, 3};
  const int layer = 1, head = 2, n = static_cast<int>(tokens.size());
  auto session = Session::create(model, {.threads = 2, .trace_residuals = true});
  ASSERT_TRUE(session->prefill(tokens).ok());
  std::vector<double> sum(static_cast<std::size_t>(model->config.head_dim), 0.0);
  std::vector<std::vector<float>> trained_other;  // head 0 of the layer, which stays as trained
  for (int q = 0; q < n; ++q) {
    auto d = session->attention_detail(layer, head, q);
    ASSERT_TRUE(d.ok()) << d.error().message;
    for (std::size_t i = 0; i < sum.size(); ++i)
      sum[i] += d->output[i];
    trained_other.push_back(session->attention_detail(layer, 0, q)->output);
  }
  const std::vector<float> table(8, 1.0f);
  const int mean_heads[] = {layer * 4 + head};
  auto effect = ablate_session(*session, tokens, table, -1, mean_heads);
  ASSERT_TRUE(effect.ok()) << effect.error().message;
  EXPECT_GT(effect->change.kl_bits, 0.0);
  EXPECT_EQ(session->head_scales()[static_cast<std::size_t>(mean_heads[0])], 0.0f);
  for (int q = 0; q < n; ++q) {
    auto d = session->attention_detail(layer, head, q);
    ASSERT_TRUE(d.ok());
    EXPECT_TRUE(d->mean_ablated);
    for (std::size_t i = 0; i < sum.size(); ++i)
      EXPECT_NEAR(d->output[i], sum[i] / n, 1e-6) << "query " << q << " value " << i;
    auto other = session->attention_detail(layer, 0, q);
    EXPECT_FALSE(other->mean_ablated);
    EXPECT_EQ(other->output,
              trained_other[static_cast<std::size_t>(q)]);  // layer 0 is unchanged, so is head 0
  }
  // A plain ablation after it measures against the model as trained again and drops the means.
  std::vector<float> off(8, 1.0f);
  off[0] = 0.0f;
  auto plain = ablate_session(*session, tokens, off);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(session->head_offsets().empty());
  EXPECT_FALSE(session->attention_detail(layer, head, 0)->mean_ablated);
}

// The means are added position by position in order, on the calling thread: any thread count and any
// chunking of the prompt give the same bits.
TEST(MeanAblation, TheSameBitsWithAnyThreadCount) {
  ModelConfig config = test::base_config();
  config.max_seq_len = 48;  // a prompt long enough to be split among threads and chunks
  test::RandomModel random(config, {}, 5);
  const auto model = std::make_shared<const Model>(random.model());
  std::vector<int> tokens;
  for (int i = 0; i < 40; ++i)
    tokens.push_back((i * 7 + 3) % model->config.vocab_size);
  const std::vector<float> table(8, 1.0f);
  const int mean_heads[] = {1, 6};
  std::vector<std::vector<float>> logits;
  std::vector<std::vector<double>> kl;
  for (int threads : {1, 3}) {
    auto session = Session::create(model, {.threads = threads, .trace_residuals = true});
    ASSERT_TRUE(session->prefill(tokens).ok());
    auto effect = ablate_session(*session, tokens, table, -1, mean_heads);
    ASSERT_TRUE(effect.ok()) << effect.error().message;
    logits.emplace_back(session->logits().begin(), session->logits().end());
    kl.emplace_back();
    for (const DistributionChange& c : effect->by_position)
      kl.back().push_back(c.kl_bits);
  }
  EXPECT_EQ(logits[0], logits[1]);
  EXPECT_EQ(kl[0], kl[1]);
}

TEST(MeanAblation, RefusesAHeadOutsideTheModelAndChangesNothing) {
  test::RandomModel random(test::base_config(), {}, 11);
  auto session = Session::create(std::make_shared<const Model>(random.model()));
  const std::vector<int> tokens = {4, 1, 7};
  ASSERT_TRUE(session->prefill(tokens).ok());
  const std::vector<float> logits(session->logits().begin(), session->logits().end());
  const std::vector<float> table(8, 1.0f);
  for (int bad : {-1, 8}) {
    const int heads[] = {bad};
    test::expect_error(ablate_session(*session, tokens, table, -1, heads), ErrorCode::BadArgument,
                       "is not one of the model's 8");
  }
  EXPECT_TRUE(session->head_scales().empty());
  EXPECT_TRUE(session->head_offsets().empty());
  EXPECT_EQ(std::vector<float>(session->logits().begin(), session->logits().end()), logits);
  // The offsets' own check: length and finiteness.
  test::expect_error(session->set_head_offsets(std::vector<float>(3, 0.0f)), ErrorCode::BadArgument,
                     "head offsets");
  std::vector<float> nan(static_cast<std::size_t>(2 * random.model().config.q_dim()), 0.0f);
  nan[5] = std::numeric_limits<float>::quiet_NaN();
  test::expect_error(session->set_head_offsets(nan), ErrorCode::BadArgument,
                     "value 5 is not a finite number");
}

}  // namespace
}  // namespace glassbox
