// The float paths of the training ops that run on the engine's kernels (train/float_products.hpp: the
// projections and attention, forward and backward; train/float_activations.hpp: the feed-forward's backward) against the plain scalar loops of their double
// instantiations, on random inputs of odd shapes, from unaligned pointers, adding into gradients that already
// hold values (the ops add; they do not overwrite).
//
// Tolerance: a float value may differ from the double reference by kTolerance times the sum of its terms'
// magnitudes (for y = W x: sum_i |W_oi| |x_i|, computed by the same double op on absolute values), the
// scale of a float sum's rounding; a wrong index or a lost term is off by the size of a term, far more.
// Measured: at most 1.8e-7 (printed by each test). Attention, whose softmax mixes values through exp,
// is held to kTolerance times (1 + the largest reference value of the tensor).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "train/backward_ops.hpp"
#include "train/forward_ops.hpp"

namespace glassbox::train {
namespace {

constexpr double kTolerance = 1e-6;

// Random values in [-1, 1), held as floats (a float input is the same number in double) one past an
// aligned start, so that every pointer the kernels get is unaligned.
struct Values {
  std::vector<float> storage;
  float* f() { return storage.data() + 1; }
  std::size_t size() const { return storage.size() - 1; }
  std::vector<double> d() const { return {storage.begin() + 1, storage.end()}; }
  std::vector<double> abs() const {
    std::vector<double> a = d();
    for (double& v : a)
      v = std::abs(v);
    return a;
  }
};
Values random_floats(std::mt19937& rng, std::size_t n) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Values v{std::vector<float>(n + 1)};
  for (float& x : v.storage)
    x = uniform(rng);
  return v;
}

// Largest |ours - reference| / scale over the elements, scale[i] being that element's allowed scale.
double worst_ratio(const float* ours, const std::vector<double>& reference,
                   const std::vector<double>& scale) {
  double worst = 0;
  for (std::size_t i = 0; i < reference.size(); ++i)
    worst =
        std::max(worst, std::abs(static_cast<double>(ours[i]) - reference[i]) / std::max(scale[i], 1e-30));
  return worst;
}

void expect_within(const char* what, const float* ours, const std::vector<double>& reference,
                   const std::vector<double>& scale) {
  const double worst = worst_ratio(ours, reference, scale);
  std::printf("float path %-34s largest error %.2e of the terms' magnitude\n", what, worst);
  EXPECT_LT(worst, kTolerance) << what;
}

struct LinearShape {
  std::size_t n, in_dim, out_dim;
  bool bias;
};
const LinearShape kLinearShapes[] = {
    {1, 1, 1, false}, {7, 13, 5, true}, {33, 70, 41, false}, {40, 64, 96, true}, {3, 200, 9, true}};

TEST(TrainFloatProducts, LinearForwardAgreesWithTheScalarReference) {
  std::mt19937 rng(1);
  for (const LinearShape& s : kLinearShapes) {
    Values x = random_floats(rng, s.n * s.in_dim), w = random_floats(rng, s.out_dim * s.in_dim),
           b = random_floats(rng, s.out_dim), y = random_floats(rng, s.n * s.out_dim);
    linear_forward(y.f(), x.f(), w.f(), s.bias ? b.f() : nullptr, s.n, s.in_dim, s.out_dim);
    std::vector<double> reference(s.n * s.out_dim), scale(s.n * s.out_dim);
    const std::vector<double> xd = x.d(), wd = w.d(), bd = b.d(), xa = x.abs(), wa = w.abs(), ba = b.abs();
    linear_forward(reference.data(), xd.data(), wd.data(), s.bias ? bd.data() : nullptr, s.n, s.in_dim,
                   s.out_dim);
    linear_forward(scale.data(), xa.data(), wa.data(), s.bias ? ba.data() : nullptr, s.n, s.in_dim,
                   s.out_dim);
    expect_within("linear_forward y", y.f(), reference, scale);
  }
}

TEST(TrainFloatProducts, LinearBackwardAgreesWithTheScalarReference) {
  std::mt19937 rng(2);
  for (const LinearShape& s : kLinearShapes)
    for (const bool with_dx : {true, false}) {
      Values x = random_floats(rng, s.n * s.in_dim), w = random_floats(rng, s.out_dim * s.in_dim),
             dy = random_floats(rng, s.n * s.out_dim);
      Values dx = random_floats(rng, s.n * s.in_dim), dw = random_floats(rng, s.out_dim * s.in_dim),
             db = random_floats(rng, s.out_dim);
      // The reference starts from the same values (the ops add into them); the scale from their magnitudes.
      std::vector<double> dx_ref = dx.d(), dw_ref = dw.d(), db_ref = db.d();
      std::vector<double> dx_scale = dx.abs(), dw_scale = dw.abs(), db_scale = db.abs();
      linear_backward(with_dx ? dx.f() : nullptr, dw.f(), s.bias ? db.f() : nullptr, dy.f(), x.f(), w.f(),
                      s.n, s.in_dim, s.out_dim);
      const std::vector<double> xd = x.d(), wd = w.d(), dyd = dy.d(), xa = x.abs(), wa = w.abs(),
                                dya = dy.abs();
      linear_backward(with_dx ? dx_ref.data() : nullptr, dw_ref.data(), s.bias ? db_ref.data() : nullptr,
                      dyd.data(), xd.data(), wd.data(), s.n, s.in_dim, s.out_dim);
      linear_backward(with_dx ? dx_scale.data() : nullptr, dw_scale.data(),
                      s.bias ? db_scale.data() : nullptr, dya.data(), xa.data(), wa.data(), s.n, s.in_dim,
                      s.out_dim);
      if (with_dx) expect_within("linear_backward dx", dx.f(), dx_ref, dx_scale);
      expect_within("linear_backward dweight", dw.f(), dw_ref, dw_scale);
      if (s.bias) expect_within("linear_backward dbias", db.f(), db_ref, db_scale);
    }
}

// kTolerance times (1 + the largest |reference|) for every element of a tensor.
std::vector<double> tensor_scale(const std::vector<double>& reference) {
  double largest = 0;
  for (double v : reference)
    largest = std::max(largest, std::abs(v));
  return std::vector<double>(reference.size(), 1.0 + largest);
}

TEST(TrainFloatProducts, AttentionAgreesWithTheScalarReference) {
  std::mt19937 rng(3);
  // Full multi-head attention with 64-wide heads, and grouped-query heads of an odd width.
  const AttentionShape shapes[] = {{.n = 40, .n_heads = 2, .n_kv_heads = 2, .head_dim = 64},
                                   {.n = 19, .n_heads = 4, .n_kv_heads = 2, .head_dim = 13}};
  for (const AttentionShape& s : shapes) {
    Values q = random_floats(rng, s.n * s.q_width()), k = random_floats(rng, s.n * s.kv_width()),
           v = random_floats(rng, s.n * s.kv_width()), dout = random_floats(rng, s.n * s.q_width());
    Values out = random_floats(rng, s.n * s.q_width()), p = random_floats(rng, s.n_heads * s.n * s.n);
    attention_forward(out.f(), p.f(), q.f(), k.f(), v.f(), s);
    const std::vector<double> qd = q.d(), kd = k.d(), vd = v.d(), doutd = dout.d();
    std::vector<double> out_ref(s.n * s.q_width()), p_ref(s.n_heads * s.n * s.n);
    attention_forward(out_ref.data(), p_ref.data(), qd.data(), kd.data(), vd.data(), s);
    expect_within("attention_forward out", out.f(), out_ref, tensor_scale(out_ref));
    expect_within("attention_forward probabilities", p.f(), p_ref, tensor_scale(p_ref));

    Values dq = random_floats(rng, s.n * s.q_width()), dk = random_floats(rng, s.n * s.kv_width()),
           dv = random_floats(rng, s.n * s.kv_width());
    std::vector<double> dq_ref = dq.d(), dk_ref = dk.d(), dv_ref = dv.d();
    attention_backward(dq.f(), dk.f(), dv.f(), dout.f(), p.f(), q.f(), k.f(), v.f(), s);
    attention_backward(dq_ref.data(), dk_ref.data(), dv_ref.data(), doutd.data(), p_ref.data(), qd.data(),
                       kd.data(), vd.data(), s);
    expect_within("attention_backward dq", dq.f(), dq_ref, tensor_scale(dq_ref));
    expect_within("attention_backward dk", dk.f(), dk_ref, tensor_scale(dk_ref));
    expect_within("attention_backward dv", dv.f(), dv_ref, tensor_scale(dv_ref));
  }
}

// The feed-forward's backward ops in float (SIMD lanes with the forward kernels' exp, train/float_activations.hpp,
// for SiLU and GELU; the scalar loop for the others) against their double instantiations, 37 values (whole
// batches and a tail) over [-8, 8], adding into derivatives that already hold values. Each value within
// kTolerance times (1 + the largest reference value).
TEST(TrainFloatProducts, ActivationBackwardAgreesWithTheScalarReference) {
  std::mt19937 rng(5);
  const std::size_t n = 37;
  for (Activation activation :
       {Activation::SiLU, Activation::GELU, Activation::GELUExact, Activation::ReLU}) {
    Values x = random_floats(rng, n), dy = random_floats(rng, n), up = random_floats(rng, n);
    for (float& v : x.storage)
      v *= 8.0f;
    const std::vector<double> xd = x.d(), dyd = dy.d(), upd = up.d();
    Values dx = random_floats(rng, n);
    std::vector<double> dx_ref = dx.d();
    activation_backward(dx.f(), dy.f(), x.f(), n, activation);
    activation_backward(dx_ref.data(), dyd.data(), xd.data(), n, activation);
    expect_within("activation_backward dx", dx.f(), dx_ref, tensor_scale(dx_ref));

    Values dgate = random_floats(rng, n), dup = random_floats(rng, n);
    std::vector<double> dgate_ref = dgate.d(), dup_ref = dup.d();
    gated_backward(dgate.f(), dup.f(), dy.f(), x.f(), up.f(), n, activation);
    gated_backward(dgate_ref.data(), dup_ref.data(), dyd.data(), xd.data(), upd.data(), n, activation);
    expect_within("gated_backward dgate", dgate.f(), dgate_ref, tensor_scale(dgate_ref));
    expect_within("gated_backward dup", dup.f(), dup_ref, tensor_scale(dup_ref));
  }
}

}  // namespace
}  // namespace glassbox::train
