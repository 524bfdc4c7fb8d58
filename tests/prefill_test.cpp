// Session::prefill reads a prompt in chunks (one forward pass over many tokens, the matrix products as
// matrix-matrix products); it must give exactly what stepping token by token gives: the last token's logits,
// every attention trace row and the KV cache (checked by stepping on from both), bit for bit, for every
// weight type, prompt lengths on both sides of the chunk size, and 1 or 3 threads. Errors change nothing.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <ostream>
#include <random>
#include <vector>

#include "glassbox/glassbox.hpp"
#include "kernels/element_types.hpp"
#include "kernels/quantized.hpp"
#include "model/dtype.hpp"
#include "model/linear_batch.hpp"
#include "test_support.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {
namespace {

// --- random models of several shapes, with their matrices in any weight type ------------------------------

// A Llama shape (RMSNorm, RoPE, SwiGLU, grouped-query attention, tied classifier).
ModelConfig llama(int dim, int hidden) {
  ModelConfig c;
  c.dim = dim;
  c.hidden_dim = hidden;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.head_dim = dim / 4;
  c.vocab_size = 48;
  c.max_seq_len = 128;
  return c;
}

// GPT-2's shape: LayerNorm with biases, learned positions, GELU without a gate, biases, its own classifier.
ModelConfig gpt2() {
  ModelConfig c = llama(64, 96);
  c.n_kv_heads = 4;
  c.norm = NormKind::LayerNorm;
  c.position = PositionKind::Learned;
  c.activation = Activation::GELU;
  c.gated_ffn = false;
  c.tied_embeddings = false;
  return c;
}

// The textbook Transformer's decoder: Post-LN, sinusoidal positions, ReLU; widths no SIMD width divides.
ModelConfig textbook() {
  ModelConfig c = gpt2();
  c.dim = 40;
  c.hidden_dim = 72;
  c.n_heads = 5;
  c.n_kv_heads = 5;
  c.head_dim = 8;
  c.norm_placement = NormPlacement::PostNorm;
  c.position = PositionKind::Sinusoidal;
  c.activation = Activation::ReLU;
  return c;
}

// Gemma 3's shape: sandwich norms, q/k norm, GeGLU, scaled embeddings, soft-capped logits, and sliding-window
// layers (a window of 5 keys, shorter than the prompts, with their own RoPE base) beside a global one.
ModelConfig gemma3() {
  ModelConfig c = llama(64, 96);
  c.n_layers = 3;
  c.norm_placement = NormPlacement::Sandwich;
  c.qk_norm = true;
  c.activation = Activation::GELU;
  c.scaled_embeddings = true;
  c.final_logit_softcap = 30.0f;
  c.sliding_window = 5;
  c.sliding_layers = {true, false, true};
  c.rope_theta_sliding = 100.0f;
  c.rope_pairing = RopePairing::HalfSplit;
  return c;
}

class RandomModel {
 public:
  RandomModel(const ModelConfig& c, DType type, uint32_t seed) : type_(type), rng_(seed) {
    const bool biases = c.norm == NormKind::LayerNorm;
    const bool pre_norm = c.pre_norm(), sandwich = c.norm_placement == NormPlacement::Sandwich;
    Model& m = model_;
    m.config = c;
    const int64_t dim = c.dim, hidden = c.hidden_dim, q = c.q_dim(), kv = c.kv_dim();
    m.weights.token_embedding = matrix(c.vocab_size, dim);
    if (c.position == PositionKind::Learned) m.weights.position_embedding = matrix(c.max_seq_len, dim);
    for (int l = 0; l < c.n_layers; ++l) {
      LayerWeights L;
      L.attn_norm = vector(dim, true, 1.0f);
      L.attn_norm_bias = vector(dim, biases);
      L.wq = matrix(q, dim);
      L.wk = matrix(kv, dim);
      L.wv = matrix(kv, dim);
      L.bq = vector(q, biases);
      L.bk = vector(kv, biases);
      L.bv = vector(kv, biases);
      L.wo = matrix(dim, q);
      L.bo = vector(dim, biases);
      L.q_norm = vector(c.head_dim, c.qk_norm, 1.0f);
      L.k_norm = vector(c.head_dim, c.qk_norm, 1.0f);
      L.attn_post_norm = vector(dim, sandwich, 1.0f);
      L.ffn_post_norm = vector(dim, sandwich, 1.0f);
      L.ffn_norm = vector(dim, true, 1.0f);
      L.ffn_norm_bias = vector(dim, biases);
      if (c.gated_ffn) L.ffn_gate = matrix(hidden, dim);
      L.ffn_up = matrix(hidden, dim);
      L.ffn_up_bias = vector(hidden, biases);
      L.ffn_down = matrix(dim, hidden);
      L.ffn_down_bias = vector(dim, biases);
      m.weights.layers.push_back(L);
    }
    m.weights.final_norm = vector(dim, pre_norm, 1.0f);
    m.weights.final_norm_bias = vector(dim, pre_norm && biases);
    m.weights.output = c.tied_embeddings ? m.weights.token_embedding : matrix(c.vocab_size, dim);
  }

  std::shared_ptr<const Model> model() const { return std::make_shared<const Model>(model_); }

 private:
  // Random values of size about 1 / sqrt(cols), so activations stay near 1; stored as type_.
  Tensor matrix(int64_t rows, int64_t cols) {
    std::normal_distribution<float> normal(0.0f, 1.0f / std::sqrt(static_cast<float>(cols)));
    std::vector<float> values(static_cast<std::size_t>(cols));
    auto bytes =
        std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(tensor_bytes(type_, rows, cols)));
    const auto row_bytes = static_cast<std::size_t>(tensor_bytes(type_, 1, cols));
    const auto n = static_cast<std::size_t>(cols);
    for (int64_t r = 0; r < rows; ++r) {
      std::byte* out = bytes->data() + static_cast<std::size_t>(r) * row_bytes;
      for (float& v : values)
        v = normal(rng_);
      switch (type_) {
        case DType::F32:
          kernels::encode_row(DType::F32, values.data(), out, n);
          break;
        case DType::F16:
          kernels::encode_row(DType::F16, values.data(), out, n);
          break;
        case DType::BF16:  // truncated float32: the upper half of each value's bits
          for (std::size_t i = 0; i < n; ++i) {
            uint32_t bits;
            std::memcpy(&bits, &values[i], 4);
            const auto half = static_cast<uint16_t>(bits >> 16);
            std::memcpy(out + 2 * i, &half, 2);
          }
          break;
        case DType::Q8_0:
          kernels::quantize_row_q8_0(values.data(), out, n);
          break;
        case DType::Q4_0:
          kernels::quantize_row_q4_0(values.data(), out, n);
          break;
        default:  // the block types glassbox cannot encode: random blocks with small scales
          random_blocks(out, row_bytes);
          break;
      }
    }
    model_.storage.push_back(bytes);
    return Tensor{type_, bytes->data(), rows, cols};
  }

  // Random blocks (no encoder here) with small f16 scales (d) and mins (dmin, or Q4_1 / Q5_1's additive m):
  // the values stay small. Where each type keeps them in its block (ggml-common.h):
  struct Scales {
    std::size_t d, min;  // byte offsets; min == kNone: no min
  };
  static constexpr std::size_t kNone = ~std::size_t{0};
  Scales scales() const {
    switch (type_) {
      case DType::Q4_K:
      case DType::Q5_K:
      case DType::Q4_1:
      case DType::Q5_1:
        return {0, 2};
      case DType::Q6_K:
        return {208, kNone};
      case DType::Q5_0:
      case DType::IQ4_NL:
      case DType::IQ4_XS:
        return {0, kNone};
      case DType::Q2_K:
        return {80, 82};
      case DType::Q3_K:
        return {108, kNone};
      default:
        return {kNone, kNone};
    }
  }
  void random_blocks(std::byte* out, std::size_t bytes) {
    const std::size_t block = element_type(type_).block_bytes;
    const Scales at = scales();
    for (std::size_t b = 0; b < bytes; b += block) {
      for (std::size_t i = 0; i < block; ++i)
        out[b + i] = static_cast<std::byte>(rng_());
      const uint16_t d = kernels::float_to_half(0.0005f * static_cast<float>(1 + rng_() % 8));
      const uint16_t dmin = kernels::float_to_half(0.002f);
      std::memcpy(out + b + at.d, &d, 2);
      if (at.min != kNone) std::memcpy(out + b + at.min, &dmin, 2);
    }
  }

  Tensor vector(int64_t n, bool present, float around = 0.0f) {
    if (!present) return {};
    std::normal_distribution<float> normal(around, 0.1f);
    auto values = std::make_shared<std::vector<float>>(static_cast<std::size_t>(n));
    for (float& v : *values)
      v = normal(rng_);
    model_.storage.push_back(values);
    return Tensor{DType::F32, reinterpret_cast<const std::byte*>(values->data()), 1, n};
  }

  DType type_;
  std::mt19937 rng_;
  Model model_;
};

struct Case {
  const char* label;
  ModelConfig config;
  DType type;
  int threads;
};
void PrintTo(const Case& c, std::ostream* out) {
  *out << c.label << "/" << to_string(c.type) << "/threads" << c.threads;
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (int threads : {1, 3}) {
    all.push_back({"llama", llama(64, 96), DType::F32, threads});
    all.push_back({"textbook", textbook(), DType::F32, threads});
    all.push_back({"gpt2", gpt2(), DType::F32, threads});
    all.push_back({"gpt2", gpt2(), DType::Q8_0, threads});
    all.push_back({"gemma3", gemma3(), DType::F32, threads});
    for (DType type : {DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0})
      all.push_back({"llama", llama(64, 96), type, threads});
    for (DType type : {DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::IQ4_NL})
      all.push_back({"llama", llama(64, 96), type, threads});
    for (DType type : {DType::Q4_K, DType::Q6_K, DType::Q2_K, DType::Q3_K, DType::Q5_K,
                       DType::IQ4_XS})  // whole super-blocks
      all.push_back({"llama", llama(256, 256), type, threads});
  }
  return all;
}

bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<int> prompt_of(int length, int vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int> ids(static_cast<std::size_t>(length));
  for (int& id : ids)
    id = static_cast<int>(rng() % static_cast<uint32_t>(vocab));
  return ids;
}

// Prefill chunks of 40 tokens, so that the prompts below fall on both sides of a chunk and cross several
// (40 quantized tokens are one group of 32 lanes and one of 8 in the VNNI kernel).
constexpr int kTestPrefillBatch = 40;

Session make_session(const std::shared_ptr<const Model>& model, int threads, int context = 0) {
  auto session = Session::create(model, {.threads = threads,
                                         .context_length = context,
                                         .trace_attention = true,
                                         .prefill_batch = kTestPrefillBatch});
  EXPECT_TRUE(session.ok()) << session.error().message;
  return std::move(*session);
}

class SessionPrefillModels : public ::testing::TestWithParam<Case> {};

TEST_P(SessionPrefillModels, EqualsSteppingBitForBit) {
  const Case& c = GetParam();
  const auto model = RandomModel(c.config, c.type, 7).model();
  const int vocab = c.config.vocab_size;
  for (int length : {1, 2, 7, 33, 100}) {
    SCOPED_TRACE("prompt of " + std::to_string(length) + " tokens");
    const std::vector<int> prompt = prompt_of(length, vocab, static_cast<uint32_t>(length));
    Session stepped = make_session(model, c.threads), chunked = make_session(model, c.threads);
    std::vector<float> expected;
    for (int id : prompt) {
      auto logits = stepped.step(id);
      ASSERT_TRUE(logits.ok()) << logits.error().message;
      expected.assign(logits->begin(), logits->end());
    }
    auto logits = chunked.prefill(prompt);
    ASSERT_TRUE(logits.ok()) << logits.error().message;
    EXPECT_TRUE(same_bits(*logits, expected)) << "the last token's logits differ";
    EXPECT_EQ(chunked.position(), length);

    const AttentionTrace &a = stepped.attention_trace(), &b = chunked.attention_trace();
    ASSERT_EQ(b.n_positions(), length);
    for (int l = 0; l < c.config.n_layers; ++l)
      for (int h = 0; h < c.config.n_heads; ++h)
        for (int p = 0; p < length; ++p)
          ASSERT_TRUE(same_bits(a.row(l, h, p), b.row(l, h, p)))
              << "layer " << l << " head " << h << " query " << p;

    // The same KV cache: stepping on from both gives the same logits.
    for (int i = 0; i < 4; ++i) {
      const int next = (i * 11 + length) % vocab;
      auto x = stepped.step(next), y = chunked.step(next);
      ASSERT_TRUE(x.ok() && y.ok());
      ASSERT_TRUE(same_bits(*x, *y)) << "step " << i << " after the prompt";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Session, SessionPrefillModels, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.label) + "_" + to_string(info.param.type) +
                                  "_threads" + std::to_string(info.param.threads);
                         });

// Prefill in pieces, between steps, and a piece ending exactly at the context's end.
TEST(SessionPrefillPieces, MixedWithStepsUpToAFullContext) {
  const auto model = RandomModel(llama(64, 96), DType::F32, 3).model();
  const std::vector<int> prompt = prompt_of(90, 48, 5);
  Session stepped = make_session(model, 3, 90), mixed = make_session(model, 3, 90);
  for (int id : prompt)
    ASSERT_TRUE(stepped.step(id).ok());
  const std::span<const int> all(prompt);
  ASSERT_TRUE(mixed.step(all[0]).ok());
  ASSERT_TRUE(mixed.prefill(all.subspan(1, 70)).ok());  // crosses a chunk boundary from position 1
  ASSERT_TRUE(mixed.step(all[71]).ok());
  auto last = mixed.prefill(all.subspan(72));  // fills the context exactly
  ASSERT_TRUE(last.ok()) << last.error().message;
  EXPECT_TRUE(same_bits(*last, stepped.logits()));
  EXPECT_EQ(mixed.position(), 90);
  for (int p = 0; p < 90; ++p)
    ASSERT_TRUE(same_bits(stepped.attention_trace().row(1, 3, p), mixed.attention_trace().row(1, 3, p)));
}

// The types with integer kernels (kernels/quantized_int_dot.hpp) split a product's rows among the threads:
// 1 and 3 threads give the same bits for a prompt (the prompt kernels) and the steps after it (int_matvec).
TEST(SessionThreads, IntegerKernelTypesGiveTheSameBitsOnAnyThreadCount) {
  for (DType type : {DType::Q8_0, DType::Q4_0, DType::IQ4_NL, DType::Q4_K, DType::Q6_K, DType::IQ4_XS}) {
    SCOPED_TRACE(to_string(type));
    const bool super_blocks = element_type(type).block_values == 256;
    const auto model = RandomModel(super_blocks ? llama(256, 256) : llama(64, 96), type, 9).model();
    const std::vector<int> prompt = prompt_of(33, 48, 6);
    Session one = make_session(model, 1), three = make_session(model, 3);
    auto a = one.prefill(prompt);
    auto b = three.prefill(prompt);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(same_bits(*a, *b)) << "the prompt's logits differ";
    for (int i = 0; i < 3; ++i) {
      auto x = one.step(i + 5), y = three.step(i + 5);
      ASSERT_TRUE(x.ok() && y.ok());
      ASSERT_TRUE(same_bits(*x, *y)) << "step " << i << " after the prompt";
    }
  }
}

// The default chunk (kPrefillBatch, capped at the context): one pass over a 100-token prompt, past the float
// product's 64-token blocks and three of the integer kernels' 32-lane groups, still gives stepping's bits.
TEST(SessionPrefillDefaultChunk, EqualsStepping) {
  for (DType type : {DType::F32, DType::Q4_K}) {
    const ModelConfig config = type == DType::F32 ? llama(64, 96) : llama(256, 256);  // whole super-blocks
    const auto model = RandomModel(config, type, 9).model();
    const std::vector<int> prompt = prompt_of(100, 48, 6);
    auto one_pass = Session::create(model, {.threads = 2});
    auto stepped = Session::create(model, {.threads = 2});
    ASSERT_TRUE(one_pass.ok() && stepped.ok());
    for (int id : prompt)
      ASSERT_TRUE(stepped->step(id).ok());
    auto logits = one_pass->prefill(prompt);
    ASSERT_TRUE(logits.ok()) << logits.error().message;
    EXPECT_TRUE(same_bits(*logits, stepped->logits())) << to_string(type);
  }
}

// Errors: nothing runs and nothing changes (position, logits, trace), and the session carries on as if the
// failed call never happened.
TEST(SessionPrefillErrors, ChangeNothing) {
  const auto model = RandomModel(llama(64, 96), DType::Q8_0, 4).model();
  Session session = make_session(model, 1, 16), reference = make_session(model, 1, 16);
  const std::vector<int> start = {1, 2, 3, 4, 5};
  ASSERT_TRUE(session.prefill(start).ok());
  ASSERT_TRUE(reference.prefill(start).ok());
  const std::vector<float> logits(session.logits().begin(), session.logits().end());

  const std::vector<int> bad_id = {1, 2, 48, 3};
  auto failed = session.prefill(bad_id);
  test::expect_error(failed, ErrorCode::BadArgument, "token id 48 is outside the vocabulary (0..47)");
  const std::vector<int> negative = {-1};
  EXPECT_EQ(session.prefill(negative).error().code, ErrorCode::BadArgument);
  EXPECT_EQ(session.prefill({}).error().code, ErrorCode::BadArgument);

  const std::vector<int> too_many(12, 7);  // 11 positions are left
  failed = session.prefill(too_many);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::ContextFull);

  EXPECT_EQ(session.position(), 5);
  EXPECT_EQ(session.attention_trace().n_positions(), 5);
  EXPECT_TRUE(same_bits(session.logits(), logits));

  const std::vector<int> rest(11, 9);  // exactly what is left
  auto x = session.prefill(rest), y = reference.prefill(rest);
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_TRUE(same_bits(*x, *y));
  failed = session.prefill(start);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::ContextFull);
  EXPECT_EQ(failed.error().message, session.step(1).error().message);  // the same words as step()
}

// linear_batch against linear() token by token, over every weight type, thread counts and batch sizes that
// leave remainders (rows not divisible by the threads, tokens not by the tile), with short rows (256 values,
// read in place) and long ones (2048 values: float rows copied apart first, kernels::matmul_copies_rows).
TEST(ForwardLinearBatch, EachTokenGetsLinearsBits) {
  ModelConfig shape = llama(256, 2048);
  shape.n_layers = 1;
  for (DType type :
       {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K, DType::Q4_1,
        DType::Q5_0, DType::Q5_1, DType::Q2_K, DType::Q3_K, DType::Q5_K, DType::IQ4_NL, DType::IQ4_XS}) {
    const auto model = RandomModel(shape, type, 11).model();
    const LayerWeights& layer = model->weights.layers[0];
    for (const Tensor* w : {&layer.wk, &layer.ffn_down}) {  // [128][256], [256][2048]
      ASSERT_EQ(w->type, type);
      const auto rows = static_cast<std::size_t>(w->rows), cols = static_cast<std::size_t>(w->cols);
      std::mt19937 rng(2);
      std::normal_distribution<float> normal(0.0f, 1.0f);
      for (int threads : {1, 3}) {
        ThreadPool pool(threads);
        DecodeScratch scratch(pool.size(), 2048, 32);        // a chunk of 32 quantized tokens
        for (std::size_t tokens : {2u, 3u, 5u, 13u, 40u}) {  // 40: past the chunk
          std::vector<float> x(tokens * cols), bias(rows), batched(tokens * rows), single(rows);
          for (float& v : x)
            v = normal(rng);
          for (float& v : bias)
            v = normal(rng);
          const Tensor b{DType::F32, reinterpret_cast<const std::byte*>(bias.data()), 1,
                         static_cast<int64_t>(rows)};
          linear_batch(batched.data(), *w, b, x.data(), tokens, pool, scratch);
          for (std::size_t t = 0; t < tokens; ++t) {
            linear(single.data(), *w, b, x.data() + t * cols, pool, scratch);
            ASSERT_TRUE(same_bits(single, std::span<const float>(batched).subspan(t * rows, rows)))
                << to_string(type) << ", " << cols << " columns, " << threads << " threads, token " << t
                << " of " << tokens;
          }
        }
      }
    }
  }
}

// Projections of one input taken together (Q, K and V; gate and up) against linear() matrix by matrix and
// token by token: each gets its own bits, also where the types differ (the columns laid out again for each
// integer type, the float ones packed beside them), for one token (one split of all rows) and for batches.
TEST(ForwardLinearBatch, ProjectionsTogetherGetTheirOwnBits) {
  const ModelConfig shape = llama(256, 256);
  const auto q8 = RandomModel(shape, DType::Q8_0, 3).model(),
             q4k = RandomModel(shape, DType::Q4_K, 4).model();
  const auto f32 = RandomModel(shape, DType::F32, 5).model(), f16 = RandomModel(shape, DType::F16, 6).model();
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> bias(256);
  for (float& v : bias)
    v = normal(rng);
  const Tensor b{DType::F32, reinterpret_cast<const std::byte*>(bias.data()), 1, 256};
  const Tensor none;
  // [256][256], [128][256] each: Q8_0, Q4_K (its columns carry sums too), F32, Q8_0 again, F16.
  const std::vector<std::pair<const Tensor*, const Tensor*>> matrices = {{&q8->weights.layers[0].wq, &b},
                                                                         {&q4k->weights.layers[0].wk, &none},
                                                                         {&f32->weights.layers[0].wv, &b},
                                                                         {&q8->weights.layers[1].wk, &none},
                                                                         {&f16->weights.layers[0].wq, &none}};
  for (int threads : {1, 3}) {
    ThreadPool pool(threads);
    DecodeScratch scratch(pool.size(), 256, 32);
    for (std::size_t tokens : {1u, 5u, 40u}) {
      std::vector<float> x(tokens * 256);
      for (float& v : x)
        v = normal(rng);
      std::vector<std::vector<float>> outputs;
      std::vector<Projection> projections;
      for (const auto& [w, bias_of] : matrices) {
        outputs.emplace_back(tokens * static_cast<std::size_t>(w->rows));
        projections.push_back({outputs.back().data(), *w, *bias_of});
      }
      linear_batch(projections, x.data(), tokens, pool, scratch);
      for (std::size_t m = 0; m < matrices.size(); ++m) {
        const auto rows = static_cast<std::size_t>(matrices[m].first->rows);
        std::vector<float> single(rows);
        for (std::size_t t = 0; t < tokens; ++t) {
          linear(single.data(), *matrices[m].first, *matrices[m].second, x.data() + t * 256, pool, scratch);
          ASSERT_TRUE(same_bits(single, std::span<const float>(outputs[m]).subspan(t * rows, rows)))
              << "matrix " << m << ", " << threads << " threads, token " << t << " of " << tokens;
        }
      }
    }
  }
}

}  // namespace
}  // namespace glassbox
