// The backward pass of each op (train/backward_ops.hpp) against central finite differences of its forward
// (train/forward_ops.hpp), in double, on small random inputs from a fixed seed: each op's output is read out
// by a random vector r (loss = r · y), so the backward pass is fed dy = r and must give the loss's derivative
// by every input and weight. Step 1e-5 (tests/train_gradient_check.hpp); tolerance kTolerance on the largest
// relative error (measured: 1e-10 to 1e-8; printed by each test). And the forward ops in float against the
// inference kernels, so that what is differentiated is what the engine computes.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "kernels/kernels.hpp"
#include "train/backward_ops.hpp"
#include "train/forward_ops.hpp"
#include "train_gradient_check.hpp"

namespace glassbox::train {
namespace {

using test::dot;
using test::max_relative_error;
using test::numeric_gradient;
using test::random_values;
using Vec = std::vector<double>;

constexpr double kTolerance = 1e-6;

void expect_close(const char* what, const Vec& analytic, const Vec& numeric) {
  const double error = max_relative_error(analytic, numeric);
  std::printf("gradient check %-28s max relative error %.2e\n", what, error);
  EXPECT_LT(error, kTolerance) << what;
}

TEST(TrainBackward, EmbeddingScattersIntoTheRowsOfItsTokens) {
  std::mt19937 rng(1);
  const std::size_t vocab = 7, dim = 5;
  const std::vector<int> tokens = {3, 1, 3, 0};  // token 3 twice: its row gathers both
  Vec table = random_values(rng, vocab * dim), r = random_values(rng, tokens.size() * dim);
  auto loss = [&] {
    Vec out(tokens.size() * dim);
    embedding_forward(out.data(), table.data(), tokens.data(), tokens.size(), dim);
    return dot(r, out);
  };
  Vec dtable(table.size(), 0.0);
  embedding_backward(dtable.data(), r.data(), tokens.data(), tokens.size(), dim);
  expect_close("embedding dtable", dtable, numeric_gradient(table, loss));
}

TEST(TrainBackward, RmsNorm) {
  std::mt19937 rng(2);
  const std::size_t n = 9;
  const double eps = 1e-5;
  Vec x = random_values(rng, n), w = random_values(rng, n, 0.5, 1.5), r = random_values(rng, n);
  auto loss = [&] {
    Vec y(n);
    rmsnorm_forward(y.data(), x.data(), w.data(), n, eps);
    return dot(r, y);
  };
  Vec dx(n, 0.0), dw(n, 0.0);
  rmsnorm_backward(dx.data(), dw.data(), r.data(), x.data(), w.data(), n, eps);
  expect_close("rmsnorm dx", dx, numeric_gradient(x, loss));
  expect_close("rmsnorm dweight", dw, numeric_gradient(w, loss));
}

TEST(TrainBackward, LayerNormWithBias) {
  std::mt19937 rng(3);
  const std::size_t n = 10;
  const double eps = 1e-5;
  Vec x = random_values(rng, n), w = random_values(rng, n, 0.5, 1.5), b = random_values(rng, n);
  Vec r = random_values(rng, n);
  auto loss = [&] {
    Vec y(n);
    layernorm_forward(y.data(), x.data(), w.data(), b.data(), n, eps);
    return dot(r, y);
  };
  Vec dx(n, 0.0), dw(n, 0.0), db(n, 0.0);
  layernorm_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), n, eps);
  expect_close("layernorm dx", dx, numeric_gradient(x, loss));
  expect_close("layernorm dweight", dw, numeric_gradient(w, loss));
  expect_close("layernorm dbias", db, numeric_gradient(b, loss));
}

TEST(TrainBackward, LinearProjectionOfABatchOfRows) {
  std::mt19937 rng(4);
  const std::size_t n = 3, in = 5, out = 4;
  Vec x = random_values(rng, n * in), w = random_values(rng, out * in), b = random_values(rng, out);
  Vec r = random_values(rng, n * out);
  auto loss = [&] {
    Vec y(n * out);
    linear_forward(y.data(), x.data(), w.data(), b.data(), n, in, out);
    return dot(r, y);
  };
  Vec dx(x.size(), 0.0), dw(w.size(), 0.0), db(b.size(), 0.0);
  linear_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), n, in, out);
  expect_close("linear dx", dx, numeric_gradient(x, loss));
  expect_close("linear dweight", dw, numeric_gradient(w, loss));
  expect_close("linear dbias", db, numeric_gradient(b, loss));
}

// Both pairings, a partial rotary width (the last values pass through) and a magnitude other than 1 (YaRN),
// under which the backward turn is the transpose of the forward one, not its inverse.
TEST(TrainBackward, RopeTurnsTheDerivativeBack) {
  std::mt19937 rng(5);
  for (RopePairing pairing : {RopePairing::Adjacent, RopePairing::HalfSplit}) {
    ModelConfig c;
    c.head_dim = 8;
    c.rope_dim = 6;
    c.rope_theta = 100.0f;
    c.rope_pairing = pairing;
    c.rope_magnitude = 1.25f;
    std::vector<double> cos_row, sin_row;
    rope_rows(c, 5, -1, cos_row, sin_row);
    Vec x = random_values(rng, 8), r = random_values(rng, 8);
    auto loss = [&] {
      Vec y = x;
      rope_forward(y.data(), cos_row.data(), sin_row.data(), 6, pairing);
      return dot(r, y);
    };
    Vec dx = r;  // the pass-through values' derivative is dy itself
    rope_backward(dx.data(), cos_row.data(), sin_row.data(), 6, pairing);
    expect_close(pairing == RopePairing::Adjacent ? "rope dx (adjacent)" : "rope dx (half-split)", dx,
                 numeric_gradient(x, loss));
  }
}

TEST(TrainBackward, CausalAttentionWithGroupedQueryHeads) {
  std::mt19937 rng(6);
  const AttentionShape s{.n = 5, .n_heads = 4, .n_kv_heads = 2, .head_dim = 3};
  Vec q = random_values(rng, s.n * s.q_width(), -2, 2), k = random_values(rng, s.n * s.kv_width(), -2, 2);
  Vec v = random_values(rng, s.n * s.kv_width()), r = random_values(rng, s.n * s.q_width());
  Vec probabilities(s.n_heads * s.n * s.n);
  auto loss = [&] {
    Vec out(s.n * s.q_width());
    attention_forward(out.data(), probabilities.data(), q.data(), k.data(), v.data(), s);
    return dot(r, out);
  };
  loss();  // the probabilities the backward pass reads
  Vec dq(q.size(), 0.0), dk(k.size(), 0.0), dv(v.size(), 0.0);
  attention_backward(dq.data(), dk.data(), dv.data(), r.data(), probabilities.data(), q.data(), k.data(),
                     v.data(), s);
  expect_close("attention dq", dq, numeric_gradient(q, loss));
  expect_close("attention dk", dk, numeric_gradient(k, loss));
  expect_close("attention dv", dv, numeric_gradient(v, loss));
}

TEST(TrainBackward, EachActivationAndTheGatedFeedForward) {
  std::mt19937 rng(7);
  const std::size_t n = 12;
  const struct {
    Activation activation;
    const char* name;
  } kinds[] = {{Activation::SiLU, "silu"},
               {Activation::GELU, "gelu (tanh)"},
               {Activation::GELUExact, "gelu (erf)"},
               {Activation::ReLU, "relu"}};
  for (const auto& kind : kinds) {
    Vec x = random_values(rng, n, -3, 3), r = random_values(rng, n);
    auto loss = [&] {
      double sum = 0;
      for (std::size_t i = 0; i < n; ++i)
        sum += r[i] * activation_value(kind.activation, x[i]);
      return sum;
    };
    Vec dx(n, 0.0);
    activation_backward(dx.data(), r.data(), x.data(), n, kind.activation);
    expect_close((std::string(kind.name) + " dx").c_str(), dx, numeric_gradient(x, loss));

    Vec gate = random_values(rng, n, -3, 3), up = random_values(rng, n);
    auto gated_loss = [&] {
      Vec h(n);
      gated_forward(h.data(), gate.data(), up.data(), n, kind.activation);
      return dot(r, h);
    };
    Vec dgate(n, 0.0), dup(n, 0.0);
    gated_backward(dgate.data(), dup.data(), r.data(), gate.data(), up.data(), n, kind.activation);
    expect_close((std::string("gated ") + kind.name + " dgate").c_str(), dgate,
                 numeric_gradient(gate, gated_loss));
    expect_close((std::string("gated ") + kind.name + " dup").c_str(), dup, numeric_gradient(up, gated_loss));
  }
}

TEST(TrainBackward, ResidualAddPassesTheDerivativeToBothAddends) {
  std::mt19937 rng(8);
  const std::size_t n = 6;
  Vec a = random_values(rng, n), b = random_values(rng, n), r = random_values(rng, n);
  auto loss = [&] {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i)
      sum += r[i] * (a[i] + b[i]) * (a[i] + b[i]);  // squared, so that a wrong derivative shows
    return sum;
  };
  // dy of y = a + b under this loss is 2 r y; the residual's backward hands it to each addend.
  Vec dy(n), da(n, 0.0), db(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    dy[i] = 2 * r[i] * (a[i] + b[i]);
  residual_backward(da.data(), dy.data(), n);
  residual_backward(db.data(), dy.data(), n);
  expect_close("residual da", da, numeric_gradient(a, loss));
  expect_close("residual db", db, numeric_gradient(b, loss));
}

TEST(TrainBackward, CrossEntropyIsTheMeanOverPositions) {
  std::mt19937 rng(9);
  const std::size_t n = 4, vocab = 9;
  const std::vector<int> targets = {2, 8, 0, 2};
  Vec logits = random_values(rng, n * vocab, -3, 3);
  auto loss = [&] { return cross_entropy_forward(logits.data(), targets.data(), n, vocab); };
  Vec dlogits(logits.size(), 0.0);
  cross_entropy_backward(dlogits.data(), logits.data(), targets.data(), n, vocab);
  expect_close("cross-entropy dlogits", dlogits, numeric_gradient(logits, loss));
}

// The forward ops in float compute what the inference kernels compute (to float rounding: the kernels are
// vectorized and may sum in another order).
TEST(TrainBackward, ForwardOpsAgreeWithTheInferenceKernels) {
  std::mt19937 rng(10);
  const std::size_t n = 19;
  std::vector<float> x(n), w(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(std::uniform_real_distribution<double>(-2, 2)(rng));
    w[i] = static_cast<float>(std::uniform_real_distribution<double>(0.5, 1.5)(rng));
    b[i] = static_cast<float>(std::uniform_real_distribution<double>(-1, 1)(rng));
  }
  auto expect_near_all = [&](const std::vector<float>& ours, const std::vector<float>& kernel,
                             const char* what) {
    for (std::size_t i = 0; i < ours.size(); ++i)
      EXPECT_NEAR(ours[i], kernel[i], 1e-5f * (1.0f + std::abs(kernel[i]))) << what << " at " << i;
  };
  std::vector<float> ours(n), kernel(n);
  rmsnorm_forward(ours.data(), x.data(), w.data(), n, 1e-5f);
  kernels::rmsnorm(kernel.data(), x.data(), w.data(), n, 1e-5f);
  expect_near_all(ours, kernel, "rmsnorm");
  layernorm_forward(ours.data(), x.data(), w.data(), b.data(), n, 1e-5f);
  kernels::layernorm(kernel.data(), x.data(), w.data(), b.data(), n, 1e-5f);
  expect_near_all(ours, kernel, "layernorm");

  ModelConfig c;
  c.head_dim = 18;
  c.rope_theta = 500.0f;
  for (RopePairing pairing : {RopePairing::Adjacent, RopePairing::HalfSplit}) {
    c.rope_pairing = pairing;
    std::vector<float> cos_row, sin_row;
    rope_rows(c, 7, -1, cos_row, sin_row);
    ours.assign(x.begin(), x.begin() + 18);
    kernel = ours;
    rope_forward(ours.data(), cos_row.data(), sin_row.data(), 18, pairing);
    kernels::rope(kernel.data(), cos_row.data(), sin_row.data(), 18, pairing);
    expect_near_all(ours, kernel, "rope");
  }

  const struct {
    Activation activation;
    void (*kernel)(float*, std::size_t);
  } activations[] = {{Activation::SiLU, kernels::silu},
                     {Activation::GELU, kernels::gelu_tanh},
                     {Activation::GELUExact, kernels::gelu_erf},
                     {Activation::ReLU, kernels::relu}};
  for (const auto& a : activations) {
    kernel = x;
    a.kernel(kernel.data(), n);
    for (std::size_t i = 0; i < n; ++i)
      ours[i] = activation_value(a.activation, x[i]);
    expect_near_all(ours, kernel, "activation");
  }
}

}  // namespace
}  // namespace glassbox::train
