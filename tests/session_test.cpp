// The forward pass and session: against a plain re-implementation written from the equations, grouped-query
// attention against its expanded multi-head equivalent, thread-count independence, the attention trace, and
// errors that leave the session unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "glassbox/glassbox.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

using test::Llama2cHeader;

std::shared_ptr<const Model> load(std::vector<std::byte> bytes) {
  auto model = read_llama2c_checkpoint(bytes_from_buffer(std::move(bytes), "random.bin"));
  EXPECT_TRUE(model.ok()) << model.error().message;
  return std::make_shared<const Model>(std::move(*model));
}

std::vector<float> run(const std::shared_ptr<const Model>& model, const std::vector<int>& tokens,
                       int threads = 1) {
  auto session = Session::create(model, {.threads = threads});
  EXPECT_TRUE(session.ok());
  std::vector<float> all;
  for (int t : tokens) {
    auto logits = session->step(t);
    EXPECT_TRUE(logits.ok()) << logits.error().message;
    if (!logits) return all;
    all.insert(all.end(), logits->begin(), logits->end());
  }
  return all;
}

// --- an independent, deliberately naive Llama forward pass (double precision, textbook loops) -----------

struct NaiveLlama {
  const Model& m;
  std::vector<std::vector<double>> keys, values;  // [position * n_layers + layer][kv_dim]

  static double at(const Tensor& t, int64_t r, int64_t c) { return t.f32()[r * t.cols + c]; }

  std::vector<double> matvec(const Tensor& w, const std::vector<double>& x) {
    std::vector<double> out(static_cast<std::size_t>(w.rows));
    for (int64_t r = 0; r < w.rows; ++r)
      for (int64_t c = 0; c < w.cols; ++c)
        out[r] += at(w, r, c) * x[c];
    return out;
  }
  std::vector<double> rmsnorm(const std::vector<double>& x, const Tensor& w) {
    double ss = 0;
    for (double v : x)
      ss += v * v;
    const double scale = 1.0 / std::sqrt(ss / x.size() + m.config.norm_eps);
    std::vector<double> out(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
      out[i] = x[i] * scale * w.f32()[i];
    return out;
  }
  void rope(std::vector<double>& v, int heads, int position) {
    const int hd = m.config.head_dim;
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < hd / 2; ++i) {
        const double angle = position * std::pow(static_cast<double>(m.config.rope_theta), -2.0 * i / hd);
        double& a = v[h * hd + 2 * i];
        double& b = v[h * hd + 2 * i + 1];
        const double a0 = a, b0 = b;
        a = a0 * std::cos(angle) - b0 * std::sin(angle);
        b = a0 * std::sin(angle) + b0 * std::cos(angle);
      }
  }

  std::vector<double> step(int token, int position) {
    const ModelConfig& c = m.config;
    std::vector<double> x(c.dim);
    for (int i = 0; i < c.dim; ++i)
      x[i] = at(m.weights.token_embedding, token, i);
    for (int l = 0; l < c.n_layers; ++l) {
      const LayerWeights& w = m.weights.layers[l];
      auto h = rmsnorm(x, w.attn_norm);
      auto q = matvec(w.wq, h), k = matvec(w.wk, h), v = matvec(w.wv, h);
      rope(q, c.n_heads, position);
      rope(k, c.n_kv_heads, position);
      keys.push_back(k);
      values.push_back(v);
      std::vector<double> attention(c.dim, 0.0);
      for (int head = 0; head < c.n_heads; ++head) {
        const int kv_head = head / (c.n_heads / c.n_kv_heads);
        std::vector<double> scores(position + 1);
        double max_score = -1e300, total = 0;
        for (int t = 0; t <= position; ++t) {
          const auto& key = keys[static_cast<std::size_t>(t * c.n_layers + l)];
          double s = 0;
          for (int i = 0; i < c.head_dim; ++i)
            s += q[head * c.head_dim + i] * key[kv_head * c.head_dim + i];
          scores[t] = s / std::sqrt(static_cast<double>(c.head_dim));
          max_score = std::max(max_score, scores[t]);
        }
        for (double& s : scores)
          total += (s = std::exp(s - max_score));
        for (int t = 0; t <= position; ++t) {
          const auto& value = values[static_cast<std::size_t>(t * c.n_layers + l)];
          for (int i = 0; i < c.head_dim; ++i)
            attention[head * c.head_dim + i] += scores[t] / total * value[kv_head * c.head_dim + i];
        }
      }
      auto o = matvec(w.wo, attention);
      for (int i = 0; i < c.dim; ++i)
        x[i] += o[i];
      h = rmsnorm(x, w.ffn_norm);
      auto gate = matvec(w.ffn_gate, h), up = matvec(w.ffn_up, h);
      for (std::size_t i = 0; i < gate.size(); ++i)
        gate[i] = gate[i] / (1 + std::exp(-gate[i])) * up[i];
      auto down = matvec(w.ffn_down, gate);
      for (int i = 0; i < c.dim; ++i)
        x[i] += down[i];
    }
    return matvec(m.weights.output, rmsnorm(x, m.weights.final_norm));
  }
};

void expect_matches_naive(const std::shared_ptr<const Model>& model) {
  const std::vector<int> tokens = {1, 7, 39, 0, 12, 12, 3, 25};
  const std::vector<float> ours = run(model, tokens);
  NaiveLlama naive{*model, {}, {}};
  for (std::size_t p = 0; p < tokens.size(); ++p) {
    const std::vector<double> expected = naive.step(tokens[p], static_cast<int>(p));
    for (std::size_t i = 0; i < expected.size(); ++i)
      ASSERT_NEAR(ours[p * expected.size() + i], expected[i], 2e-4 * std::max(1.0, std::fabs(expected[i])))
          << "position " << p << " logit " << i;
  }
}

TEST(Forward, MatchesANaiveReimplementationWithASeparateClassifier) {
  Llama2cHeader h;
  h.vocab_size = -40;  // untied classifier
  expect_matches_naive(load(test::make_llama2c_checkpoint(h, 5)));
}

TEST(Forward, RopeThetaIsTheConfiguredOne) {
  // llama2.c files always mean theta 10000; other formats carry their own (Llama 3: 500000). The same
  // weights with another theta must follow the naive pass computed with that theta, and differ from 10000.
  Llama2cHeader h;
  h.vocab_size = 40;  // the naive comparison feeds token ids up to 39
  const auto base = load(test::make_llama2c_checkpoint(h, 5));
  Model changed = *base;
  changed.config.rope_theta = 37.0f;  // small, so the angles differ a lot within 8 positions
  const auto model = std::make_shared<const Model>(std::move(changed));
  expect_matches_naive(model);
  EXPECT_NE(run(model, {1, 7, 39, 0}), run(base, {1, 7, 39, 0}));
}

// A multi-head copy of a grouped-query checkpoint: each kv head's rows of wk and wv repeated for every query
// head that shares it. Both must compute exactly the same function.
std::vector<std::byte> expand_to_multi_head(const std::vector<std::byte>& gqa, const Llama2cHeader& h) {
  const int64_t dim = h.dim, hd = h.dim / h.n_heads, kv_dim = hd * h.n_kv_heads, L = h.n_layers;
  const int64_t group = h.n_heads / h.n_kv_heads;
  const float* f = reinterpret_cast<const float*>(gqa.data() + 28);
  auto take = [&](int64_t n) {
    std::vector<float> v(f, f + n);
    f += n;
    return v;
  };
  auto embedding = take(h.vocab_size * dim), rms_att = take(L * dim), wq = take(L * dim * dim);
  auto wk = take(L * kv_dim * dim), wv = take(L * kv_dim * dim);
  const float* tail_begin = f;
  const float* tail_end = reinterpret_cast<const float*>(gqa.data() + gqa.size());

  auto expand = [&](const std::vector<float>& w) {
    std::vector<float> out;
    for (int64_t l = 0; l < L; ++l)
      for (int64_t head = 0; head < h.n_heads; ++head) {
        const float* rows = w.data() + (l * kv_dim + (head / group) * hd) * dim;
        out.insert(out.end(), rows, rows + hd * dim);
      }
    return out;
  };
  test::ByteWriter out;
  for (int32_t v : {h.dim, h.hidden_dim, h.n_layers, h.n_heads, h.n_heads, h.vocab_size, h.seq_len})
    out.i32(v);
  out.floats(embedding);
  out.floats(rms_att);
  out.floats(wq);
  out.floats(expand(wk));
  out.floats(expand(wv));
  out.raw(tail_begin, static_cast<std::size_t>(tail_end - tail_begin) * 4);
  return out.bytes();
}

TEST(Forward, GroupedQueryAttentionEqualsItsMultiHeadExpansion) {
  Llama2cHeader h;
  h.n_heads = 4;
  h.n_kv_heads = 1;  // multi-query: the extreme of grouping
  const auto gqa_bytes = test::make_llama2c_checkpoint(h, 11);
  const auto gqa = load(gqa_bytes);
  const auto mha = load(expand_to_multi_head(gqa_bytes, h));
  EXPECT_EQ(mha->config.n_kv_heads, 4);
  const std::vector<int> tokens = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(run(gqa, tokens), run(mha, tokens));
}

TEST(Forward, ThreadCountDoesNotChangeAnyBit) {
  Llama2cHeader h;
  h.dim = 64;
  h.hidden_dim = 160;
  h.n_heads = 8;
  h.n_kv_heads = 4;
  h.vocab_size = 300;
  h.seq_len = 80;
  const auto model = load(test::make_llama2c_checkpoint(h, 3));
  std::vector<int> tokens;
  for (int i = 0; i < 70; ++i)
    tokens.push_back((i * 37) % 300);  // past 64 keys: heads split across threads too
  const auto one = run(model, tokens, 1);
  EXPECT_EQ(one, run(model, tokens, 2));
  EXPECT_EQ(one, run(model, tokens, 3));
}

TEST(Session, TraceRowsAreCausalProbabilityDistributions) {
  const auto model = load(test::make_llama2c_checkpoint({}, 2));
  auto session = Session::create(model, {.trace_attention = true});
  ASSERT_TRUE(session.ok());
  const int n = 9;
  for (int i = 0; i < n; ++i)
    ASSERT_TRUE(session->step(i + 3).ok());
  const AttentionTrace& trace = session->attention_trace();
  ASSERT_EQ(trace.n_positions(), n);
  ASSERT_EQ(trace.n_layers(), 2);
  ASSERT_EQ(trace.n_heads(), 4);
  std::vector<float> matrix(n * n);
  for (int l = 0; l < trace.n_layers(); ++l)
    for (int h = 0; h < trace.n_heads(); ++h) {
      trace.copy_matrix(l, h, matrix.data());
      for (int q = 0; q < n; ++q) {
        double total = 0;
        for (int k = 0; k < n; ++k) {
          const float p = matrix[q * n + k];
          if (k > q) {
            EXPECT_EQ(p, 0.0f) << "above the diagonal at " << q << "," << k;
          }
          EXPECT_GE(p, 0.0f);
          EXPECT_EQ(p, trace.at(l, h, q, k));
          total += p;
        }
        EXPECT_NEAR(total, 1.0, 1e-5) << "layer " << l << " head " << h << " query " << q;
      }
    }
  EXPECT_EQ(trace.row(0, 0, 0).size(), 1u);
  EXPECT_FLOAT_EQ(trace.row(0, 0, 0)[0], 1.0f);  // the first position can only attend to itself
}

// Runs `tokens` through a traced session with `threads` threads; returns every step's logits and the trace.
struct TracedRun {
  std::vector<float> logits;
  std::vector<std::vector<float>> rows;  // [position][layer * heads + head][key]
};
TracedRun run_traced(const std::shared_ptr<const Model>& model, const std::vector<int>& tokens, int threads) {
  TracedRun out;
  auto session = Session::create(model, {.threads = threads, .trace_attention = true});
  EXPECT_TRUE(session.ok());
  if (!session) return out;
  for (int t : tokens) {
    auto logits = session->step(t);
    EXPECT_TRUE(logits.ok());
    if (!logits) return out;
    out.logits.insert(out.logits.end(), logits->begin(), logits->end());
  }
  const AttentionTrace& trace = session->attention_trace();
  for (int q = 0; q < trace.n_positions(); ++q) {
    std::vector<float> all;
    for (int l = 0; l < trace.n_layers(); ++l)
      for (int h = 0; h < trace.n_heads(); ++h) {
        const std::span<const float> row = trace.row(l, h, q);
        EXPECT_EQ(row.size(), static_cast<std::size_t>(q) + 1);
        all.insert(all.end(), row.begin(), row.end());
      }
    out.rows.push_back(std::move(all));
  }
  return out;
}

// Past 64 keys the heads of one position are split across threads, and every thread writes its heads' rows
// into the trace: the trace must be sized before the forward pass runs, or the threads race on its growth.
TEST(Session, TraceWithFourThreadsMatchesOneThreadBitForBit) {
  Llama2cHeader h;
  h.dim = 64;
  h.hidden_dim = 96;
  h.n_layers = 2;
  h.n_heads = 8;
  h.n_kv_heads = 4;
  h.vocab_size = 64;
  h.seq_len = 320;
  const auto model = load(test::make_llama2c_checkpoint(h, 5));
  std::vector<int> tokens;
  for (int i = 0; i < 300; ++i)
    tokens.push_back((i * 29 + 7) % 64);
  const TracedRun one = run_traced(model, tokens, 1);
  ASSERT_EQ(one.rows.size(), tokens.size());
  for (int repeat = 0; repeat < 3; ++repeat) {
    const TracedRun four = run_traced(model, tokens, 4);
    EXPECT_EQ(four.logits, one.logits) << "repeat " << repeat;
    ASSERT_EQ(four.rows.size(), one.rows.size());
    for (std::size_t q = 0; q < one.rows.size(); ++q)
      ASSERT_EQ(four.rows[q], one.rows[q]) << "trace of position " << q << ", repeat " << repeat;
  }
}

// The same on the real stories260K (512 positions of context), as a user's session would run it.
TEST(Session, Stories260KTraceWithFourThreadsMatchesOneThread) {
  const std::string path = test::model_path("stories260K.bin");
  GLASSBOX_REQUIRE_FILE(path);
  auto loaded = load_model(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const auto model = std::make_shared<const Model>(std::move(*loaded));
  std::vector<int> tokens;
  for (int i = 0; i < 300; ++i)
    tokens.push_back((i * 37 + 1) % model->config.vocab_size);
  const TracedRun one = run_traced(model, tokens, 1);
  const TracedRun four = run_traced(model, tokens, 4);
  EXPECT_EQ(four.logits, one.logits);
  EXPECT_EQ(four.rows, one.rows);
}

TEST(Session, TracingIsOffByDefaultAndDoesNotChangeLogits) {
  const auto model = load(test::make_llama2c_checkpoint({}, 2));
  auto plain = Session::create(model);
  auto traced = Session::create(model, {.trace_attention = true});
  ASSERT_TRUE(plain.ok() && traced.ok());
  for (int t : {1, 5, 9}) {
    auto a = plain->step(t);
    auto b = traced->step(t);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(std::equal(a->begin(), a->end(), b->begin(), b->end()));
  }
  EXPECT_EQ(plain->attention_trace().n_positions(), 0);
  EXPECT_EQ(traced->attention_trace().n_positions(), 3);
}

TEST(Session, TracingTurnedOnLateRecordsFromThen) {
  const auto model = load(test::make_llama2c_checkpoint({}, 2));
  auto session = Session::create(model);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE(session->step(1).ok());
  session->set_attention_trace(true);
  ASSERT_TRUE(session->step(2).ok());
  const AttentionTrace& trace = session->attention_trace();
  EXPECT_EQ(trace.n_positions(), 2);
  EXPECT_FALSE(trace.recorded(0));
  EXPECT_TRUE(trace.recorded(1));
  EXPECT_TRUE(trace.row(0, 0, 0).empty());
  EXPECT_EQ(trace.row(1, 3, 1).size(), 2u);
  session->reset();
  EXPECT_EQ(session->attention_trace().n_positions(), 0);
}

TEST(Session, RejectsABadTokenAndStaysWhereItWas) {
  const auto model = load(test::make_llama2c_checkpoint({}, 2));
  auto session = Session::create(model);
  ASSERT_TRUE(session.ok());
  const auto first = session->step(4);
  ASSERT_TRUE(first.ok());
  const std::vector<float> before(first->begin(), first->end());
  for (int bad : {-1, 32, 1 << 30}) {
    test::expect_error(session->step(bad), ErrorCode::BadArgument,
                       "token id " + std::to_string(bad) + " is outside the vocabulary (0..31)");
  }
  EXPECT_EQ(session->position(), 1);
  // The next good step gives what it would have without the bad calls.
  auto fresh = Session::create(model);
  ASSERT_TRUE(fresh->step(4).ok());
  auto expected = fresh->step(6);
  auto actual = session->step(6);
  ASSERT_TRUE(expected.ok() && actual.ok());
  EXPECT_TRUE(std::equal(expected->begin(), expected->end(), actual->begin(), actual->end()));
}

TEST(Session, ReportsAFullContext) {
  const auto model = load(test::make_llama2c_checkpoint({}, 2));  // seq_len 16
  auto session = Session::create(model, {.context_length = 3});
  ASSERT_TRUE(session.ok());
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(session->step(1).ok());
  auto full = session->step(1);
  test::expect_error(full, ErrorCode::ContextFull, "all 3 positions");
  session->reset();
  EXPECT_TRUE(session->step(1).ok());
}

TEST(Session, RejectsBadOptions) {
  const auto model = load(test::make_llama2c_checkpoint({}, 2));
  test::expect_error(Session::create(model, {.context_length = 17}), ErrorCode::BadArgument,
                     "context length 17 exceeds the model's maximum 16");
  test::expect_error(Session::create(model, {.threads = 0}), ErrorCode::BadArgument);
  test::expect_error(Session::create(model, {.prefill_batch = -1}), ErrorCode::BadArgument,
                     "prefill batch must be >= 0");
  test::expect_error(Session::create(nullptr), ErrorCode::InvalidState);
}

}  // namespace
}  // namespace glassbox
