// AdamW, the learning-rate schedule and global-norm clipping (train/adamw.hpp, schedule.hpp, clipping.hpp)
// against their formulas, written out again here in double; and the three with the whole-model gradients
// (train/model_gradients.hpp) overfitting one sequence, as any correct trainer must.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "random_models.hpp"
#include "train/adamw.hpp"
#include "train/clipping.hpp"
#include "train/model_gradients.hpp"
#include "train/schedule.hpp"

namespace glassbox::train {
namespace {

TEST(TrainAdamW, ThreeStepsFollowTheFormula) {
  const AdamWSettings s{.beta1 = 0.8, .beta2 = 0.9, .eps = 1e-6, .weight_decay = 0.1};
  const double lr = 0.05;
  std::vector<float> w = {0.5f, -1.0f, 2.0f}, m(3, 0.0f), v(3, 0.0f);
  const std::vector<std::vector<float>> gradients = {
      {0.3f, -0.2f, 0.0f}, {0.1f, 0.4f, -1.0f}, {-0.5f, 0.0f, 2.0f}};
  std::vector<double> ew(w.begin(), w.end()), em(3, 0.0), ev(3, 0.0);
  for (int t = 1; t <= 3; ++t) {
    const std::vector<float>& g = gradients[static_cast<std::size_t>(t - 1)];
    adamw_update(w, g, m, v, t, lr, s, true);
    for (std::size_t i = 0; i < 3; ++i) {
      em[i] = 0.8 * em[i] + 0.2 * g[i];
      ev[i] = 0.9 * ev[i] + 0.1 * g[i] * g[i];
      const double m_hat = em[i] / (1 - std::pow(0.8, t)), v_hat = ev[i] / (1 - std::pow(0.9, t));
      ew[i] -= lr * (m_hat / (std::sqrt(v_hat) + 1e-6) + 0.1 * ew[i]);
      EXPECT_NEAR(w[i], ew[i], 1e-6) << "step " << t << " weight " << i;
    }
  }
}

// A tensor long enough for the SIMD batches and a tail (37 = 2 x 16 + 5): every weight and moment gets the bits
// of the formula taken one weight at a time in float, in the order train/adamw.cpp states it.
TEST(TrainAdamW, TheBatchesGiveTheOneAtATimeFormulasBits) {
  const AdamWSettings s{.beta1 = 0.85, .beta2 = 0.99, .eps = 1e-7, .weight_decay = 0.2};
  std::vector<float> w(37), g(37), m(37, 0.0f), v(37, 0.0f);
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] = std::sin(static_cast<float>(i) * 1.3f);
    g[i] = std::cos(static_cast<float>(i) * 0.7f) * 1e-2f * static_cast<float>(i % 5);
  }
  std::vector<float> ew = w, em = m, ev = v;
  for (int t = 1; t <= 3; ++t) {
    const double lr = 0.01 * t;
    adamw_update(w, g, m, v, t, lr, s, true);
    const float m_correction = static_cast<float>(1.0 - std::pow(0.85, t)),
                v_correction = static_cast<float>(1.0 - std::pow(0.99, t));
    for (std::size_t i = 0; i < w.size(); ++i) {
      em[i] = 0.85f * em[i] + static_cast<float>(1.0 - 0.85) * g[i];
      ev[i] = 0.99f * ev[i] + static_cast<float>(1.0 - 0.99) * g[i] * g[i];
      const float m_hat = em[i] / m_correction, v_hat = ev[i] / v_correction;
      ew[i] = ew[i] - static_cast<float>(lr) * (m_hat / (std::sqrt(v_hat) + 1e-7f) + 0.2f * ew[i]);
    }
    EXPECT_EQ(w, ew) << "step " << t;
    EXPECT_EQ(m, em) << "step " << t;
    EXPECT_EQ(v, ev) << "step " << t;
  }
}

TEST(TrainAdamW, FirstStepMovesByTheLearningRateAndDecayIsDecoupled) {
  const AdamWSettings s{.weight_decay = 0.5};
  std::vector<float> w = {1.0f, 1.0f}, m(2, 0.0f), v(2, 0.0f);
  const std::vector<float> g = {1e-3f, -40.0f};
  // Without decay: m^ / sqrt(v^) = g / |g| at step 1, whatever the gradient's size.
  adamw_update(w, g, m, v, 1, 0.01, s, false);
  EXPECT_NEAR(w[0], 0.99f, 1e-6);
  EXPECT_NEAR(w[1], 1.01f, 1e-6);
  // With a zero gradient the update is the decay alone, lr * wd * w, not scaled by Adam's moments.
  std::vector<float> w2 = {2.0f}, m2(1, 0.0f), v2(1, 0.0f);
  const std::vector<float> zero = {0.0f};
  adamw_update(w2, zero, m2, v2, 1, 0.1, s, true);
  EXPECT_NEAR(w2[0], 2.0f * (1 - 0.1 * 0.5), 1e-6);
}

TEST(TrainAdamW, NormsAndBiasesTakeNoWeightDecay) {
  EXPECT_TRUE(takes_weight_decay("token_embedding"));
  EXPECT_TRUE(takes_weight_decay("layers.0.wq"));
  EXPECT_TRUE(takes_weight_decay("output"));
  EXPECT_FALSE(takes_weight_decay("layers.0.attn_norm"));
  EXPECT_FALSE(takes_weight_decay("final_norm"));
  EXPECT_FALSE(takes_weight_decay("layers.0.bq_bias"));
  EXPECT_TRUE(takes_weight_decay("position_embedding"));
  // GPT-2's biases, named as glassbox::for_each_weight names them.
  for (const char* bias :
       {"layers.0.bq", "layers.0.bk", "layers.0.bv", "layers.1.bo", "layers.0.attn_norm_bias",
        "layers.0.ffn_up_bias", "layers.0.ffn_down_bias", "final_norm_bias"})
    EXPECT_FALSE(takes_weight_decay(bias)) << bias;
}

TEST(TrainSchedule, WarmupThenCosineToTheMinimum) {
  const LearningRateSchedule s{.peak = 1.0, .minimum = 0.1, .warmup = 4, .steps = 14};
  EXPECT_DOUBLE_EQ(learning_rate(s, 0), 0.25);
  EXPECT_DOUBLE_EQ(learning_rate(s, 3), 1.0);
  EXPECT_DOUBLE_EQ(learning_rate(s, 4), 1.0);  // the decay starts at the peak
  for (int step = 4; step < 14; ++step) {
    const double r = (step - 4) / 9.0;
    EXPECT_NEAR(learning_rate(s, step), 0.1 + 0.9 * 0.5 * (1 + std::cos(std::numbers::pi * r)), 1e-12)
        << step;
  }
  EXPECT_NEAR(learning_rate(s, 13), 0.1, 1e-12);  // the last step: the minimum
  EXPECT_NEAR(learning_rate(s, 20), 0.1, 1e-12);  // past the end it stays there
  const LearningRateSchedule constant{
      .peak = 0.5, .warmup = 2, .steps = 10, .shape = ScheduleShape::Constant};
  EXPECT_DOUBLE_EQ(learning_rate(constant, 0), 0.25);
  EXPECT_DOUBLE_EQ(learning_rate(constant, 9), 0.5);
}

TEST(TrainClipping, ScalesToMaxNormOnlyAboveIt) {
  std::vector<float> a = {3.0f, 0.0f}, b = {4.0f};  // together, length 5
  std::vector<std::span<float>> gradients = {a, b};
  EXPECT_DOUBLE_EQ(clip_global_norm(gradients, 10.0), 5.0);
  EXPECT_EQ(a[0], 3.0f);                                    // below the bound: untouched
  EXPECT_DOUBLE_EQ(clip_global_norm(gradients, 1.0), 5.0);  // the norm before clipping
  EXPECT_NEAR(a[0], 0.6f, 1e-7);
  EXPECT_NEAR(b[0], 0.8f, 1e-7);
  EXPECT_NEAR(global_norm(gradients), 1.0, 1e-7);
  b[0] = NAN;
  EXPECT_TRUE(std::isnan(clip_global_norm(gradients, 1.0)));
}

// 8 running sums, element i into sum i mod 8, added in order: those bits, on whole groups of 8 and a tail.
TEST(TrainClipping, SumOfSquaresTakesItsStatedOrder) {
  for (std::size_t n : {0u, 5u, 8u, 37u}) {
    std::vector<float> values(n);
    for (std::size_t i = 0; i < n; ++i)
      values[i] = std::sin(static_cast<float>(i) * 2.1f) * static_cast<float>(i + 1);
    double sums[8] = {}, plain = 0;
    for (std::size_t i = 0; i < n; ++i) {
      sums[i % 8] += static_cast<double>(values[i]) * values[i];
      plain += static_cast<double>(values[i]) * values[i];
    }
    double expected = 0;
    for (double s : sums)
      expected += s;
    EXPECT_EQ(sum_of_squares(values), expected) << n;
    EXPECT_NEAR(sum_of_squares(values), plain, 1e-12 * (1 + plain)) << n;
  }
}

// 150 steps of AdamW on one 10-token sequence bring a tiny random Llama's loss to near 0: the gradients,
// the optimizer and the schedule together descend.
TEST(TrainAdamW, OverfitsOneSequenceOfATinyLlama) {
  ModelConfig c = test::base_config();
  test::RandomModel random(c, {}, 5);
  auto parameters = model_parameters<float>(random.model());
  ASSERT_TRUE(parameters.ok());
  ModelParameters<float> m = zeros_like(*parameters), v = zeros_like(*parameters);
  const std::vector<int> tokens = {1, 7, 2, 9, 4, 2, 9, 0, 3, 5};
  const LearningRateSchedule schedule{.peak = 0.02, .warmup = 10, .steps = 150};
  const AdamWSettings settings{.weight_decay = 0.01};
  double first = 0, last = 0;
  for (int step = 0; step < schedule.steps; ++step) {
    ModelParameters<float> g = zeros_like(*parameters);
    auto loss = model_loss_and_gradients(c, *parameters, tokens, g);
    ASSERT_TRUE(loss.ok());
    (step == 0 ? first : last) = *loss;
    std::vector<std::span<float>> grads;
    g.for_each([&](const std::string&, std::vector<float>& t) { grads.emplace_back(t); });
    clip_global_norm(grads, 1.0);
    std::vector<std::span<float>> ms, vs;
    m.for_each([&](const std::string&, std::vector<float>& t) { ms.emplace_back(t); });
    v.for_each([&](const std::string&, std::vector<float>& t) { vs.emplace_back(t); });
    std::size_t i = 0;
    parameters->for_each([&](const std::string& name, std::vector<float>& w) {
      adamw_update(w, grads[i], ms[i], vs[i], step + 1, learning_rate(schedule, step), settings,
                   takes_weight_decay(name));
      ++i;
    });
  }
  std::printf("tiny llama overfitting one sequence: loss %.4f -> %.4f\n", first, last);
  EXPECT_GT(first, 1.0);
  EXPECT_LT(last, 0.05);
}

}  // namespace
}  // namespace glassbox::train
