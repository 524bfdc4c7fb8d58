// The config a GGUF model's metadata gives is checked before use: integer hyper-parameters of any GGUF
// integer type are range-checked (no truncation to int), rope.dimension_count must be an even number in
// 2..head_dim, blk.N tensors must lie below block_count, and RoPE scaling becomes per-pair frequency factors
// (the kinds glassbox does not implement are refused by name instead of being ignored).
#include <gtest/gtest.h>
#include <cmath>

#include <cstdint>
#include <limits>
#include <string>

#include "formats/gguf.hpp"
#include "gguf_test_support.hpp"

namespace glassbox {
namespace {

using test::expect_error;
using test::gguf_integer;
using test::gguf_real;
using test::gguf_string;
using test::model_of;
using test::TinyLlama;

TEST(GgufModelConfig, HyperParametersOfAnyIntegerTypeAreRead) {
  // llama.cpp's files use uint32; others are just as valid.
  for (GgufType type : {GgufType::Uint8, GgufType::Int8, GgufType::Uint16, GgufType::Int16, GgufType::Int32,
                        GgufType::Uint64, GgufType::Int64}) {
    TinyLlama tiny;
    tiny.metadata["llama.embedding_length"] = gguf_integer(type, 8);
    tiny.metadata["llama.attention.head_count"] = gguf_integer(type, 2);
    auto model = model_of(tiny.bytes());
    ASSERT_TRUE(model.ok()) << to_string(type) << ": " << model.error().message;
    EXPECT_EQ(model->config.dim, 8);
    EXPECT_EQ(model->config.n_heads, 2);
  }
}

TEST(GgufModelConfig, HyperParametersOutOfRangeAreRejectedByKeyAndValue) {
  struct Case {
    const char* key;
    GgufValue value;
    const char* found;
  };
  const Case cases[] = {
      // 2^32 + 8 would be 8 after a cast to int.
      {"llama.embedding_length", gguf_integer(GgufType::Uint64, (int64_t{1} << 32) + 8), "found 4294967304"},
      {"llama.embedding_length", gguf_integer(GgufType::Int8, -8), "found -8"},
      {"llama.feed_forward_length", gguf_integer(GgufType::Int64, 0), "found 0"},
      {"llama.block_count", gguf_integer(GgufType::Int32, -1), "found -1"},
      {"llama.attention.head_count", gguf_integer(GgufType::Uint32, 4294967295LL), "found 4294967295"},
      {"llama.attention.head_count_kv", gguf_integer(GgufType::Int64, int64_t{1} << 40),
       "found 1099511627776"},
      {"llama.context_length", gguf_integer(GgufType::Uint64, std::numeric_limits<int64_t>::min()),
       "found 9223372036854775808"},
  };
  for (const Case& c : cases) {
    TinyLlama tiny;
    tiny.metadata[c.key] = c.value;
    expect_error(model_of(tiny.bytes()), ErrorCode::Malformed,
                 std::string("t.gguf: metadata ") + c.key + " must be in 1..", c.found);
  }
  TinyLlama tiny;
  tiny.metadata["llama.block_count"] = gguf_string("1");
  expect_error(model_of(tiny.bytes()), ErrorCode::Malformed,
               "metadata llama.block_count must be an integer, found string");
}

TEST(GgufModelConfig, RopeDimensionIsAnEvenNumberUpToTheHeadSize) {
  // head_dim is 8 / 2 = 4.
  for (int64_t good : {2, 4}) {
    TinyLlama tiny;
    tiny.metadata["llama.rope.dimension_count"] = gguf_integer(GgufType::Uint32, good);
    auto model = model_of(tiny.bytes());
    ASSERT_TRUE(model.ok()) << model.error().message;
    // The whole head (4) is rope_dim 0, however a format says it.
    EXPECT_EQ(model->config.rope_dim, good == 4 ? 0 : good);
    EXPECT_EQ(model->config.rotary_dim(), good);
  }
  TinyLlama absent;
  auto model = model_of(absent.bytes());
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->config.rotary_dim(), 4);

  struct Case {
    GgufValue value;
    const char* expected;
  };
  const Case cases[] = {
      // -4 used to mean "the whole head" and 2^32 + 4 used to become 4.
      {gguf_integer(GgufType::Int32, -4), "must be in 2..4, found -4"},
      {gguf_integer(GgufType::Uint64, (int64_t{1} << 32) + 4), "must be in 2..4, found 4294967300"},
      {gguf_integer(GgufType::Uint32, 0), "must be in 2..4, found 0"},
      {gguf_integer(GgufType::Uint32, 6), "must be in 2..4, found 6"},
      {gguf_integer(GgufType::Uint32, 3), "must be even (RoPE rotates pairs of values), found 3"},
      {gguf_real(GgufType::Float32, 4), "must be an integer, found float32"},
  };
  for (const Case& c : cases) {
    TinyLlama tiny;
    tiny.metadata["llama.rope.dimension_count"] = c.value;
    expect_error(model_of(tiny.bytes()), ErrorCode::Malformed, "t.gguf: metadata llama.rope.dimension_count ",
                 c.expected);
  }
}

TEST(GgufModelConfig, TensorsOfLayersPastBlockCountAreRejected) {
  TinyLlama tiny;
  tiny.layers = 1;
  tiny.tensor_layers = 2;  // blk.1.* present, but block_count says 1
  expect_error(model_of(tiny.bytes()), ErrorCode::Malformed, "t.gguf: tensor blk.1.",
               "llama.block_count is 1");
  TinyLlama far;
  far.extra_tensors = {"blk.99999999999999999999.attn_norm.weight"};
  expect_error(model_of(far.bytes()), ErrorCode::Malformed,
               "tensor blk.99999999999999999999.attn_norm.weight", "block_count is 1");
  // The same two layers with block_count 2 load, so the check is about the count, not the tensors.
  TinyLlama two;
  two.layers = 2;
  auto model = model_of(two.bytes());
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ(model->config.n_layers, 2);
}

// RoPE scaling as llama.cpp reads it: a linear factor divides every frequency, Llama 3.1's rope_freqs.weight
// divides each pair's own, and both may apply; kinds that change more than frequencies are refused by name.
TEST(GgufModelConfig, RopeScalingBecomesFrequencyFactors) {
  const auto with = [](const std::string& key, GgufValue value) {
    TinyLlama tiny;  // head_dim 4: two rotated pairs
    tiny.metadata[key] = std::move(value);
    return model_of(tiny.bytes());
  };
  const auto factors = [](const Result<Model>& model) {
    EXPECT_TRUE(model.ok()) << model.error().message;
    return model.ok() ? model->config.rope_freq_factors : std::vector<float>{-1};
  };
  EXPECT_EQ(factors(with("llama.rope.scaling.type", gguf_string("none"))), std::vector<float>{});
  EXPECT_EQ(factors(with("llama.rope.scaling.factor", gguf_real(GgufType::Float32, 1))),
            std::vector<float>{});
  EXPECT_EQ(factors(with("llama.rope.scaling.factor", gguf_real(GgufType::Float32, 0))),
            std::vector<float>{});
  // Without a type, a factor is linear scaling (llama.cpp's default too).
  EXPECT_EQ(factors(with("llama.rope.scaling.factor", gguf_real(GgufType::Float32, 4))),
            (std::vector<float>{4, 4}));
  EXPECT_EQ(factors(with("llama.rope.scale_linear", gguf_real(GgufType::Float32, 2))),
            (std::vector<float>{2, 2}));
  {
    TinyLlama tiny;
    tiny.metadata["llama.rope.scaling.type"] = gguf_string("linear");
    tiny.metadata["llama.rope.scaling.factor"] = gguf_real(GgufType::Float32, 8);
    tiny.extra_vectors["rope_freqs.weight"] = {1.0f, 2.5f};
    EXPECT_EQ(factors(model_of(tiny.bytes())), (std::vector<float>{8, 20}));
  }
  {
    TinyLlama tiny;
    tiny.extra_vectors["rope_freqs.weight"] = {1.0f, 32.0f};
    EXPECT_EQ(factors(model_of(tiny.bytes())), (std::vector<float>{1, 32}));
  }

  // YaRN: over an original context of 16, pair 0 (wavelength 6.3) turns more than beta_slow's once and is
  // kept; pair 1 (wavelength 628) is slowed by the factor; q and k grow by 1 + 0.1 ln 4.
  {
    TinyLlama tiny;
    tiny.metadata["llama.rope.scaling.type"] = gguf_string("yarn");
    tiny.metadata["llama.rope.scaling.factor"] = gguf_real(GgufType::Float32, 4);
    tiny.metadata["llama.rope.scaling.original_context_length"] = gguf_integer(GgufType::Uint32, 16);
    auto model = model_of(tiny.bytes());
    EXPECT_EQ(factors(model), (std::vector<float>{1, 4}));
    ASSERT_TRUE(model.ok());
    EXPECT_NEAR(model->config.rope_magnitude, 1 + 0.1 * std::log(4.0), 1e-6);
  }
  expect_error(with("llama.rope.scaling.type", gguf_string("longrope")), ErrorCode::UnsupportedArchitecture,
               "metadata llama.rope.scaling.type is \"longrope\"");
  expect_error(with("llama.rope.scaling.factor", gguf_real(GgufType::Float32, -2)), ErrorCode::Malformed,
               "metadata llama.rope.scaling.factor must be a positive RoPE scaling factor, found -2");
  expect_error(with("llama.rope.scaling.type", gguf_integer(GgufType::Uint32, 1)), ErrorCode::Malformed,
               "metadata llama.rope.scaling.type must be a string");
  for (const std::vector<float>& bad : {std::vector<float>{1, 2, 3}, std::vector<float>{1, 0}}) {
    TinyLlama tiny;
    tiny.extra_vectors["rope_freqs.weight"] = bad;
    expect_error(model_of(tiny.bytes()), ErrorCode::Malformed, "t.gguf: ",
                 bad.size() == 3 ? "tensor rope_freqs.weight must be F32 with one value per rotated pair (2)"
                                 : "RoPE frequency factor 1 must be a positive number, found 0");
  }
  TinyLlama longrope;
  longrope.extra_tensors = {"rope_factors_long.weight"};
  expect_error(model_of(longrope.bytes()), ErrorCode::UnsupportedArchitecture,
               "t.gguf: tensor rope_factors_long.weight", "LongRoPE");
}

}  // namespace
}  // namespace glassbox

namespace glassbox {
namespace {

// Sliding-window attention as llama.cpp reads it for gemma3 (and glassbox for its own architecture): which
// layers slide comes from a bool per layer or from a number n (the last layer of every n is global).
TEST(GgufModelConfig, SlidingWindowLayersAsLlamaCppReadsThem) {
  const auto read = [](std::map<std::string, GgufValue> metadata) {
    TinyLlama tiny;
    tiny.architecture = "glassbox";
    tiny.layers = 3;
    tiny.metadata = std::move(metadata);
    return model_of(tiny.bytes());
  };
  const auto window = [](int keys) { return gguf_integer(GgufType::Uint32, keys); };
  const auto flags = [](std::vector<bool> layers) {
    GgufValue v;
    v.type = GgufType::Array;
    v.element_type = GgufType::Bool;
    std::vector<GgufValue> items;
    for (bool b : layers) {
      GgufValue item;
      item.type = GgufType::Bool;
      item.boolean = b;
      items.push_back(item);
    }
    v.items = items;
    return v;
  };
  const auto sliding = [](const Result<Model>& model) {
    EXPECT_TRUE(model.ok()) << model.error().message;
    std::vector<bool> layers;
    for (int l = 0; model.ok() && l < model->config.n_layers; ++l)
      layers.push_back(model->config.slides(l));
    return layers;
  };

  EXPECT_EQ(sliding(read({})), (std::vector<bool>{false, false, false}));
  // No pattern: gemma3's (every 6th layer global), so all three of these slide.
  EXPECT_EQ(sliding(read({{"glassbox.attention.sliding_window", window(4)}})),
            (std::vector<bool>{true, true, true}));
  EXPECT_EQ(sliding(read({{"glassbox.attention.sliding_window", window(4)},
                          {"glassbox.attention.sliding_window_pattern", window(2)}})),
            (std::vector<bool>{true, false, true}));
  EXPECT_EQ(sliding(read({{"glassbox.attention.sliding_window", window(4)},
                          {"glassbox.attention.sliding_window_pattern", flags({false, true, false})}})),
            (std::vector<bool>{false, true, false}));
  // Window 0 is none, whatever the pattern says.
  EXPECT_EQ(sliding(read({{"glassbox.attention.sliding_window", window(0)},
                          {"glassbox.attention.sliding_window_pattern", flags({true, true, true})}})),
            (std::vector<bool>{false, false, false}));

  auto model = read({{"glassbox.attention.sliding_window", window(4)},
                     {"glassbox.rope.freq_base_swa", gguf_real(GgufType::Float32, 100)}});
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ(model->config.rope_theta_sliding, 100.0f);
  EXPECT_EQ(model->config.first_visible_key(0, 3), 0);
  EXPECT_EQ(model->config.first_visible_key(0, 4), 1);  // keys 1..4: the last four

  expect_error(read({{"glassbox.attention.sliding_window", window(4)},
                     {"glassbox.attention.sliding_window_pattern", flags({true, false})}}),
               ErrorCode::Malformed,
               "t.gguf: metadata glassbox.attention.sliding_window_pattern must be an array of one bool per "
               "layer (3)");
  expect_error(read({{"glassbox.attention.sliding_window", gguf_integer(GgufType::Int32, -1)}}),
               ErrorCode::Malformed, "metadata glassbox.attention.sliding_window must be in 0..");
  expect_error(read({{"glassbox.final_logit_softcapping", gguf_real(GgufType::Float32, -1)}}),
               ErrorCode::Malformed, "final logit soft-cap must be 0 (none) or positive, found -1");
}

// mpt's positions, as llama.cpp reads them: ALiBi with the file's max bias where it is above 0, else none (or a
// learned table); ALiBi and a table at once, MPT's clamp_kqv and its q/k LayerNorm are refused by name.
TEST(GgufModelConfig, MptPositionsComeFromTheFileAndWhatItCannotRunIsRefused) {
  test::TinyLlama m;
  m.architecture = "mpt";
  auto plain = test::model_of(m.bytes());
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->config.position, PositionKind::None);  // no max bias: llama.cpp's "no ALiBi"
  m.metadata["mpt.attention.max_alibi_bias"] = test::gguf_real(GgufType::Float32, 6.0);
  auto alibi = test::model_of(m.bytes());
  ASSERT_TRUE(alibi.ok()) << alibi.error().message;
  EXPECT_EQ(alibi->config.position, PositionKind::ALiBi);
  EXPECT_EQ(alibi->config.alibi_max_bias, 6.0f);

  const auto refused = [](test::TinyLlama bad, const std::string& named) {
    auto model = test::model_of(bad.bytes());
    ASSERT_FALSE(model.ok()) << named;
    EXPECT_EQ(model.error().code, ErrorCode::UnsupportedArchitecture);
    EXPECT_NE(model.error().message.find(named), std::string::npos) << model.error().message;
  };
  test::TinyLlama clamped = m;
  clamped.metadata["mpt.attention.clamp_kqv"] = test::gguf_real(GgufType::Float32, 8.0);
  refused(clamped, "mpt.attention.clamp_kqv");
  test::TinyLlama with_table = m;
  with_table.extra_tensors = {"position_embd.weight"};
  refused(with_table, "position_embd.weight");
  test::TinyLlama qk_norm = m;
  qk_norm.extra_tensors = {"blk.0.attn_q_norm.weight"};
  refused(qk_norm, "attn_q_norm");
}

}  // namespace
}  // namespace glassbox
