// check_weights and `glassbox check`: every value is decoded and each tensor holding NaN or infinity is named,
// with its counts and the first bad position; a sound model passes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "glassbox/formats.hpp"
#include "glassbox/weights_check.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

const TensorCheck& named(const WeightsCheck& check, const std::string& name) {
  for (const TensorCheck& t : check.tensors)
    if (t.name == name) return t;
  ADD_FAILURE() << "no tensor named " << name;
  return check.tensors.front();
}

// The checkpoint's token embedding is the first tensor after the 28-byte header (vocab x dim floats).
std::vector<std::byte> checkpoint_with(std::initializer_list<std::pair<std::size_t, float>> poked) {
  auto bytes = test::make_llama2c_checkpoint({});
  for (const auto& [index, value] : poked)
    std::memcpy(bytes.data() + 28 + index * sizeof(float), &value, sizeof value);
  return bytes;
}

TEST(WeightsCheck, ASoundModelIsFiniteEverywhere) {
  auto model = read_model(bytes_from_buffer(test::make_llama2c_checkpoint({}), "sound.bin"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const WeightsCheck check = check_weights(*model);
  EXPECT_EQ(check.non_finite_tensors, 0);
  // Every present tensor once: embedding, 9 per layer (2 layers), final norm; the classifier is tied.
  EXPECT_EQ(check.tensors.size(), 1u + 9u * 2u + 1u);
  int64_t parameters = 0;
  for (const TensorCheck& t : check.tensors) {
    EXPECT_TRUE(t.finite()) << describe(t);
    EXPECT_GT(t.max_abs, 0.0f) << t.name;
    parameters += t.rows * t.cols;
  }
  EXPECT_EQ(parameters, model->parameter_count());
  EXPECT_EQ(named(check, "layers.1.wq").rows, 16);
}

TEST(WeightsCheck, NamesTheTensorCountsAndFirstPositionOfNaNAndInfinity) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // dim 16: index 21 is row 1, column 5.
  auto model = read_model(bytes_from_buffer(checkpoint_with({{21, nan}, {40, -inf}, {41, nan}}), "bad.bin"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const WeightsCheck check = check_weights(*model);
  EXPECT_EQ(check.non_finite_tensors, 1);
  const TensorCheck& embedding = named(check, "token_embedding");
  EXPECT_EQ(embedding.nan, 2);
  EXPECT_EQ(embedding.infinite, 1);
  EXPECT_EQ(embedding.first_bad, 21);
  EXPECT_EQ(describe(embedding),
            "token_embedding (F32, 32 x 16): 2 NaN, 1 infinite; the first at row 1, column 5");
  EXPECT_TRUE(named(check, "layers.0.wq").finite());
}

TEST(WeightsCheck, AQuantizedBlockWithANaNScaleMakesItsWholeBlockNaN) {
  // One Q8_0 block: a float16 scale (0x7E00 is NaN) and 32 int8 values.
  std::vector<std::byte> block(34, std::byte{1});
  block[0] = std::byte{0x00};
  block[1] = std::byte{0x7E};
  Model model;
  model.weights.token_embedding = Tensor{.type = DType::Q8_0, .data = block.data(), .rows = 1, .cols = 32};
  const WeightsCheck check = check_weights(model);
  ASSERT_EQ(check.tensors.size(), 1u);
  EXPECT_EQ(check.tensors[0].nan, 32);
  EXPECT_EQ(check.tensors[0].first_bad, 0);
  block[1] = std::byte{0x3C};  // 1.0
  EXPECT_TRUE(check_weights(model).tensors[0].finite());
  EXPECT_EQ(check_weights(model).tensors[0].max_abs, 1.0f);
}

#if !defined(__EMSCRIPTEN__)
TEST(CliCheck, PassesTheRealModelAndNamesAPoisonedTensor) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  const std::string tokenizer = test::model_path("tok512.bin");
  auto run = test::run_process(
      {GLASSBOX_CLI_PATH, "check", "--model", test::model_path("stories260K.bin"), "--tokenizer", tokenizer});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("ok   layers.4.ffn_down (F32, 64 x 172)"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("every value finite"), std::string::npos) << run.err;

  // The same file with one NaN in layer 0's attention norm.
  std::string bytes = test::read_file(test::model_path("stories260K.bin"));
  const std::size_t norm_offset = 28 + 512 * 64 * sizeof(float);  // after the token embedding
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(bytes.data() + norm_offset + 3 * sizeof(float), &nan, sizeof nan);
  const std::string poisoned =
      (std::filesystem::temp_directory_path() / "glassbox-check-poisoned.bin").string();
  std::ofstream(poisoned, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  run = test::run_process({GLASSBOX_CLI_PATH, "check", "--model", poisoned, "--tokenizer", tokenizer});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(
      run.out.find("BAD  layers.0.attn_norm (F32, 1 x 64): 1 NaN, 0 infinite; the first at row 0, column 3"),
      std::string::npos)
      << run.out;
  EXPECT_NE(run.err.find("1 tensor(s) hold NaN or infinite values, the first layers.0.attn_norm"),
            std::string::npos)
      << run.err;
  run = test::run_process(
      {GLASSBOX_CLI_PATH, "check", "--model", poisoned, "--tokenizer", tokenizer, "--json"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("\"non_finite_tensors\":1"), std::string::npos) << run.out;
}
#endif

}  // namespace
}  // namespace glassbox
