// The trainer (glassbox/train.hpp) and `glassbox train`: step 0's loss is score's, the packing rule, the same
// bits for 1 and 3 threads and for the same seed, the written GGUF loads and scores as the trainer's model,
// --save-gradients writes model_gradients' numbers under the input GGUF's names and shapes, a "gpt2" config
// reads as GPT-2's blocks, overfits a few lines and round-trips through a gpt2 GGUF file, a Q8_0 (or F16)
// model fine-tunes from its dequantized weights and says so (Trainer::weights_note, the CLI), and bad input
// (empty data, a line past the context, a config that does not fit the tokenizer, a learning rate that makes
// the loss NaN) stops with a message naming what is wrong.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "formats/gguf.hpp"
#include "formats/safetensors.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/score.hpp"
#include "glassbox/train.hpp"
#include "stories_model.hpp"
#include "test_json.hpp"
#include "test_support.hpp"
#include "train/model_gradients.hpp"
#include "train/training_data.hpp"

namespace glassbox {
namespace {

// A few short lines for the tiny models (tok512's vocabulary: stories260K's).
constexpr const char* kLines =
    "Once upon a time, there was a cat.\n"
    "The dog ran to the park.\n"
    "\n"
    "Lily liked to play with her ball.\n"
    "Tom saw a big red car.\n"
    "She was happy and smiled.\n";

ModelConfig tiny_config(int vocab) {
  ModelConfig c;
  c.dim = 16;
  c.hidden_dim = 32;
  c.n_layers = 1;
  c.n_heads = 2;
  c.n_kv_heads = 1;
  c.head_dim = 8;
  c.vocab_size = vocab;
  c.max_seq_len = 48;
  return c;
}

std::string temp_file(const std::string& name) {
  // The process id keeps runs in other checkouts (sharing /tmp) apart.
  return (std::filesystem::temp_directory_path() /
          ("glassbox-train-test." + std::to_string(::getpid()) + "." + name))
      .string();
}

// Every weight of a model viewing F32 tensors, as bytes.
std::vector<std::byte> weight_bytes(const Model& model) {
  std::vector<std::byte> out;
  for_each_weight(model.weights, [&](const std::string&, const Tensor& t) {
    out.insert(out.end(), t.data, t.data + t.elements() * static_cast<int64_t>(sizeof(float)));
  });
  return out;
}

struct TrainingRun {
  std::vector<double> losses;
  std::vector<std::byte> weights;
};

TrainingRun train_tiny(const std::shared_ptr<const Tokenizer>& tokenizer, TrainingSettings settings) {
  TrainingRun run;
  auto trainer = Trainer::from_config(tiny_config(tokenizer->vocab_size()), tokenizer, kLines, settings);
  EXPECT_TRUE(trainer.ok()) << trainer.error().message;
  if (!trainer.ok()) return run;
  for (int s = 0; s < settings.steps; ++s) {
    auto report = trainer->step();
    EXPECT_TRUE(report.ok()) << report.error().message;
    if (!report.ok()) return run;
    run.losses.push_back(report->loss);
  }
  run.weights = weight_bytes(*trainer->model());
  return run;
}

TEST(TrainTrainer, StepZeroLossIsScoresLossForOneLine) {
  REQUIRE_STORIES();
  auto trainer = Trainer::from_model(*stories.model, stories.tokenizer, test::kStoriesText,
                                     {.steps = 3, .batch = 1, .learning_rate = 1e-3});
  ASSERT_TRUE(trainer.ok()) << trainer.error().message;
  auto score = score_text(stories.model, *stories.tokenizer, test::kStoriesText);
  ASSERT_TRUE(score.ok()) << score.error().message;
  auto step0 = trainer->step();
  ASSERT_TRUE(step0.ok()) << step0.error().message;
  EXPECT_EQ(step0->loss, score->loss);  // the same bits: the same function over the same tokens
  EXPECT_EQ(step0->tokens, static_cast<int>(score->ids.size()));
  auto step1 = trainer->step();
  ASSERT_TRUE(step1.ok());
  EXPECT_LT(step1->loss, step0->loss);  // the update moved the weights downhill
}

TEST(TrainTrainer, RowsPackWholeLinesUpToTheContext) {
  const std::vector<train::TrainingLine> lines = {{{1, 2, 3}, 1}, {{1, 4}, 2}, {{1, 5, 6, 7}, 3}};
  train::RowStream rows(lines, 6, 7);
  std::size_t seen = 0;
  for (int r = 0; r < 6; ++r) {
    const std::vector<int> row = rows.next_row();
    EXPECT_LE(row.size(), 6u);
    EXPECT_EQ(row.front(), 1);  // a row starts at a line's start (its BOS)
    seen += row.size();
  }
  EXPECT_GE(rows.epoch(), 1);
  // One line: every row is that line.
  const std::vector<train::TrainingLine> one = {{{1, 9, 8}, 4}};
  train::RowStream single(one, 100, 7);
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(single.next_row(), one[0].tokens);
  // Seeded: the same seed gives the same rows.
  train::RowStream a(lines, 5, 11), b(lines, 5, 11);
  for (int r = 0; r < 8; ++r)
    EXPECT_EQ(a.next_row(), b.next_row());
}

TEST(TrainTrainer, OneAndThreeThreadsAndTheSameSeedGiveTheSameBits) {
  REQUIRE_TOK512();
  const TrainingSettings settings{.steps = 4, .batch = 5, .learning_rate = 3e-3, .warmup = 1, .seed = 5};
  TrainingSettings three = settings;
  three.threads = 3;
  const TrainingRun one_thread = train_tiny(tokenizer, settings), again = train_tiny(tokenizer, settings),
                    three_threads = train_tiny(tokenizer, three);
  ASSERT_EQ(one_thread.losses.size(), 4u);
  EXPECT_EQ(one_thread.losses, three_threads.losses);
  EXPECT_TRUE(one_thread.weights == three_threads.weights);
  EXPECT_TRUE(one_thread.weights == again.weights);
  TrainingSettings other_seed = settings;
  other_seed.seed = 6;
  EXPECT_FALSE(one_thread.weights == train_tiny(tokenizer, other_seed).weights);
  EXPECT_LT(one_thread.losses.back(), one_thread.losses.front());
}

TEST(TrainTrainer, TheWrittenGgufLoadsAndScoresAsTheTrainersModel) {
  REQUIRE_TOK512();
  auto trainer = Trainer::from_config(tiny_config(tokenizer->vocab_size()), tokenizer, kLines,
                                      {.steps = 2, .batch = 2, .learning_rate = 1e-2});
  ASSERT_TRUE(trainer.ok()) << trainer.error().message;
  ASSERT_TRUE(trainer->step().ok());
  ASSERT_TRUE(trainer->step().ok());
  const std::string path = temp_file("written.gguf");
  ASSERT_TRUE(trainer->write_gguf(path, "tiny").ok());
  auto loaded = open_model_files(path, "");  // the tokenizer travels in the file
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto from_file = score_text(loaded->model, *loaded->tokenizer, "The dog ran to the park.");
  auto in_memory = score_text(trainer->model(), *tokenizer, "The dog ran to the park.");
  ASSERT_TRUE(from_file.ok() && in_memory.ok());
  EXPECT_EQ(from_file->ids, in_memory->ids);
  EXPECT_EQ(from_file->loss, in_memory->loss);
  std::filesystem::remove(path);
}

TEST(TrainTrainer, FirstGradientsAreModelGradientsUnderTheInputGgufsNamesAndShapes) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.gguf"));
  auto bytes = map_file(test::model_path("stories260K.gguf"));
  ASSERT_TRUE(bytes.ok());
  auto gguf = read_gguf(*bytes);
  ASSERT_TRUE(gguf.ok()) << gguf.error().message;
  auto loaded = open_model(*bytes, nullptr);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto trainer = Trainer::from_model(*loaded->model, loaded->tokenizer, test::kStoriesText,
                                     {.steps = 1, .batch = 1, .keep_first_gradients = true});
  ASSERT_TRUE(trainer.ok()) << trainer.error().message;
  ASSERT_TRUE(trainer->step().ok());
  const std::string path = temp_file("gradients.safetensors");
  ASSERT_TRUE(trainer->write_first_gradients(path).ok());

  auto parameters = train::model_parameters<float>(*loaded->model);
  ASSERT_TRUE(parameters.ok());
  train::ModelParameters<float> expected = train::zeros_like(*parameters);
  const std::vector<int> tokens = loaded->tokenizer->encode_prompt(test::kStoriesText);
  ASSERT_TRUE(train::model_loss_and_gradients(loaded->model->config, *parameters, tokens, expected).ok());
  std::vector<const std::vector<float>*> expected_tensors;
  expected.for_each([&](const std::string&, std::vector<float>& g) { expected_tensors.push_back(&g); });

  auto file_bytes = map_file(path);
  ASSERT_TRUE(file_bytes.ok());
  auto saved = read_safetensors(*file_bytes);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  // Every tensor of the input file has its gradient, shaped as stored (GGUF lists dims innermost first).
  ASSERT_EQ(saved->tensors.size(), gguf->tensors.size());
  for (const GgufTensorInfo& info : gguf->tensors) {
    auto found = saved->tensors.find(info.name);
    ASSERT_NE(found, saved->tensors.end()) << info.name;
    EXPECT_EQ(found->second.dtype, "F32");
    EXPECT_EQ(found->second.shape, std::vector<uint64_t>(info.dims.rbegin(), info.dims.rend())) << info.name;
  }
  // In the trainer's tensor order, the values are model_gradients' to the bit (one row: weight 1).
  const char* names[] = {"token_embd.weight",     "blk.0.attn_norm.weight", "blk.0.attn_q.weight",
                         "blk.0.attn_k.weight",   "blk.0.attn_v.weight",    "blk.0.attn_output.weight",
                         "blk.0.ffn_norm.weight", "blk.0.ffn_gate.weight",  "blk.0.ffn_up.weight",
                         "blk.0.ffn_down.weight"};
  for (std::size_t i = 0; i < std::size(names); ++i) {
    const SafetensorsTensor& t = saved->tensors.at(names[i]);
    ASSERT_EQ(t.bytes, expected_tensors[i]->size() * sizeof(float)) << names[i];
    EXPECT_EQ(std::memcmp(t.data, expected_tensors[i]->data(), t.bytes), 0) << names[i];
  }
  const SafetensorsTensor& norm = saved->tensors.at("output_norm.weight");
  const std::vector<float>& final_norm = *expected_tensors[1 + 9 * loaded->model->config.n_layers];
  EXPECT_EQ(std::memcmp(norm.data, final_norm.data(), norm.bytes), 0);
  std::filesystem::remove(path);
}

TEST(TrainTrainer, BadInputIsRefusedByName) {
  REQUIRE_TOK512();
  const ModelConfig c = tiny_config(tokenizer->vocab_size());
  test::expect_error(Trainer::from_config(c, tokenizer, "", {}), ErrorCode::BadArgument,
                     "the training data is empty");
  test::expect_error(Trainer::from_config(c, tokenizer, "\n  \n", {}), ErrorCode::BadArgument,
                     "the training data is empty");
  test::expect_error(
      Trainer::from_config(c, tokenizer, "A cat.\nA dog.\nA cat sat on the mat and the dog ran.\n",
                           {.context = 8}),
      ErrorCode::PromptTooLong, "line 3 of the training data gives", "more than the context of 8");
  test::expect_error(Trainer::from_config(c, tokenizer, kLines, {.context = 100}), ErrorCode::BadArgument,
                     "longer than the model's 48");
  test::expect_error(Trainer::from_config(tiny_config(100), tokenizer, kLines, {}), ErrorCode::VocabMismatch,
                     "does not fit the tokenizer");
  test::expect_error(read_training_config(R"({"architecture": "llama", "dim": 16, "layers": 1, "heads": 2,
      "kv_heads": 1, "hidden_dim": 32, "context": 48, "vocab_size": 32000})",
                                          "c.json", *tokenizer),
                     ErrorCode::VocabMismatch, "c.json", "vocab_size 32000 does not fit the tokenizer",
                     "512");
  test::expect_error(read_training_config(R"({"architecture": "gpt3", "dim": 16})", "c.json", *tokenizer),
                     ErrorCode::Malformed, "must be \"llama\" or \"gpt2\", found \"gpt3\"");
  test::expect_error(
      read_training_config(R"({"architecture": "llama", "dim": 16, "layer": 1})", "c.json", *tokenizer),
      ErrorCode::Malformed, "unknown key \"layer\"");
  auto config = read_training_config(R"({"architecture": "llama", "dim": 16, "layers": 1, "heads": 2,
      "kv_heads": 1, "hidden_dim": 32, "context": 48})",
                                     "c.json", *tokenizer);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(*config, c);
}

// GPT-2's shape at the tiny models' size: 2 layers, 2 heads of 8, a 4x feed-forward.
constexpr const char* kTinyGpt2Json = R"({"architecture": "gpt2", "dim": 16, "layers": 2, "heads": 2,
    "kv_heads": 2, "hidden_dim": 64, "context": 48})";

TEST(TrainTrainer, AGpt2ConfigReadsAsGpt2sBlocks) {
  REQUIRE_TOK512();
  auto config = read_training_config(kTinyGpt2Json, "gpt2.json", *tokenizer);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->norm, NormKind::LayerNorm);
  EXPECT_EQ(config->norm_eps, 1e-5f);
  EXPECT_EQ(config->norm_placement, NormPlacement::PreNorm);
  EXPECT_EQ(config->position, PositionKind::Learned);
  EXPECT_EQ(config->activation, Activation::GELU);
  EXPECT_FALSE(config->gated_ffn);
  EXPECT_TRUE(config->tied_embeddings);
  EXPECT_EQ(config->max_seq_len, 48);
  EXPECT_EQ(config->head_dim, 8);
  EXPECT_EQ(config->vocab_size, tokenizer->vocab_size());
  test::expect_error(read_training_config(R"({"architecture": "gpt2", "dim": 16, "layers": 1, "heads": 2,
      "kv_heads": 2, "hidden_dim": 64, "context": 48, "rope_theta": 10000})",
                                          "gpt2.json", *tokenizer),
                     ErrorCode::Malformed, "\"rope_theta\" is for \"llama\" configs");
  // Its first weights: a position table of `context` rows, every bias 0 and every norm's gain 1.
  auto trainer = Trainer::from_config(*config, tokenizer, kLines, {.steps = 1});
  ASSERT_TRUE(trainer.ok()) << trainer.error().message;
  const ModelWeights& w = trainer->model()->weights;
  ASSERT_TRUE(w.position_embedding.present());
  EXPECT_EQ(w.position_embedding.rows, 48);
  for (const Tensor* bias : {&w.layers[1].bq, &w.layers[1].bo, &w.layers[1].ffn_up_bias,
                             &w.layers[1].ffn_down_bias, &w.layers[1].attn_norm_bias, &w.final_norm_bias}) {
    ASSERT_TRUE(bias->present());
    for (int64_t i = 0; i < bias->elements(); ++i)
      ASSERT_EQ(bias->f32()[i], 0.0f);
  }
  EXPECT_EQ(w.layers[0].ffn_norm.f32()[3], 1.0f);
  EXPECT_FALSE(w.layers[0].ffn_gate.present());
  EXPECT_NE(w.position_embedding.f32()[5], 0.0f);
}

TEST(TrainTrainer, ATinyGpt2ConfigOverfitsAFewLines) {
  REQUIRE_TOK512();
  auto config = read_training_config(kTinyGpt2Json, "gpt2.json", *tokenizer);
  ASSERT_TRUE(config.ok()) << config.error().message;
  const TrainingSettings settings{
      .steps = 80, .batch = 2, .learning_rate = 1e-2, .warmup = 5, .schedule = LearningRateShape::Constant};
  auto trainer = Trainer::from_config(*config, tokenizer, kLines, settings);
  ASSERT_TRUE(trainer.ok()) << trainer.error().message;
  double first = 0, last = 0;
  for (int s = 0; s < settings.steps; ++s) {
    auto report = trainer->step();
    ASSERT_TRUE(report.ok()) << report.error().message;
    (s == 0 ? first : last) = report->loss;
  }
  std::printf("tiny gpt2 overfitting 5 lines: loss %.4f -> %.4f\n", first, last);
  EXPECT_GT(first, 5.0);  // about ln 512 = 6.24 at the start
  EXPECT_LT(last, 0.5);
}

// A gpt2 written by the trainer is a gpt2 GGUF file (fused q|k|v, learned positions, biases) that loads and
// scores as the trainer's model; fine-tuning that file gives step 0's gradients under its own tensor names
// and shapes, attn_qkv's being the q, k and v gradients stacked.
TEST(TrainTrainer, AGpt2WrittenByTheTrainerLoadsAndFineTunesWithItsGradientsUnderItsNames) {
  REQUIRE_TOK512();
  auto config = read_training_config(kTinyGpt2Json, "gpt2.json", *tokenizer);
  ASSERT_TRUE(config.ok()) << config.error().message;
  auto trainer =
      Trainer::from_config(*config, tokenizer, kLines, {.steps = 2, .batch = 2, .learning_rate = 1e-2});
  ASSERT_TRUE(trainer.ok()) << trainer.error().message;
  ASSERT_TRUE(trainer->step().ok());
  ASSERT_TRUE(trainer->step().ok());
  const std::string path = temp_file("gpt2.gguf");
  ASSERT_TRUE(trainer->write_gguf(path, "tiny-gpt2").ok());
  auto bytes = map_file(path);
  ASSERT_TRUE(bytes.ok());
  auto gguf = read_gguf(*bytes);
  ASSERT_TRUE(gguf.ok()) << gguf.error().message;
  auto loaded = open_model(*bytes, nullptr);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->model->config.architecture, "gpt2");
  auto from_file = score_text(loaded->model, *loaded->tokenizer, "The dog ran to the park.");
  auto in_memory = score_text(trainer->model(), *tokenizer, "The dog ran to the park.");
  ASSERT_TRUE(from_file.ok() && in_memory.ok());
  EXPECT_EQ(from_file->loss, in_memory->loss);

  const std::string line = "Lily liked to play with her ball.";
  auto tuning = Trainer::from_model(*loaded->model, loaded->tokenizer, line,
                                    {.steps = 1, .batch = 1, .keep_first_gradients = true});
  ASSERT_TRUE(tuning.ok()) << tuning.error().message;
  ASSERT_TRUE(tuning->step().ok());
  const std::string gradients_path = temp_file("gpt2-gradients.safetensors");
  ASSERT_TRUE(tuning->write_first_gradients(gradients_path).ok());
  auto file_bytes = map_file(gradients_path);
  ASSERT_TRUE(file_bytes.ok());
  auto saved = read_safetensors(*file_bytes);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  ASSERT_EQ(saved->tensors.size(), gguf->tensors.size());
  for (const GgufTensorInfo& info : gguf->tensors) {
    auto found = saved->tensors.find(info.name);
    ASSERT_NE(found, saved->tensors.end()) << info.name;
    EXPECT_EQ(found->second.shape, std::vector<uint64_t>(info.dims.rbegin(), info.dims.rend())) << info.name;
  }
  EXPECT_EQ(saved->tensors.at("blk.1.attn_qkv.weight").shape, (std::vector<uint64_t>{48, 16}));
  EXPECT_EQ(saved->tensors.at("position_embd.weight").shape, (std::vector<uint64_t>{48, 16}));

  auto parameters = train::model_parameters<float>(*loaded->model);
  ASSERT_TRUE(parameters.ok()) << parameters.error().message;
  train::ModelParameters<float> expected = train::zeros_like(*parameters);
  const std::vector<int> tokens = loaded->tokenizer->encode_prompt(line);
  ASSERT_TRUE(train::model_loss_and_gradients(loaded->model->config, *parameters, tokens, expected).ok());
  const auto same_floats = [](const SafetensorsTensor& t, const std::vector<float>& values) {
    return t.bytes == values.size() * sizeof(float) && std::memcmp(t.data, values.data(), t.bytes) == 0;
  };
  const train::LayerParameters<float>& g = expected.layers[1];
  std::vector<float> qkv = g.wq, qkv_bias = g.bq;
  qkv.insert(qkv.end(), g.wk.begin(), g.wk.end());
  qkv.insert(qkv.end(), g.wv.begin(), g.wv.end());
  qkv_bias.insert(qkv_bias.end(), g.bk.begin(), g.bk.end());
  qkv_bias.insert(qkv_bias.end(), g.bv.begin(), g.bv.end());
  EXPECT_TRUE(same_floats(saved->tensors.at("blk.1.attn_qkv.weight"), qkv));
  EXPECT_TRUE(same_floats(saved->tensors.at("blk.1.attn_qkv.bias"), qkv_bias));
  EXPECT_TRUE(same_floats(saved->tensors.at("blk.1.ffn_up.bias"), g.ffn_up_bias));
  EXPECT_TRUE(same_floats(saved->tensors.at("position_embd.weight"), expected.position_embedding));
  EXPECT_TRUE(same_floats(saved->tensors.at("output_norm.bias"), expected.final_norm_bias));
  for (const std::string& p : {path, gradients_path})
    std::filesystem::remove(p);
}

TEST(TrainTrainer, ALearningRateThatMakesTheLossNaNStopsNamingTheStepWithTheLastGoodWeights) {
  REQUIRE_TOK512();
  auto trainer = Trainer::from_config(
      tiny_config(tokenizer->vocab_size()), tokenizer, kLines,
      {.steps = 20, .batch = 2, .learning_rate = 1e30, .schedule = LearningRateShape::Constant});
  ASSERT_TRUE(trainer.ok());
  std::vector<std::byte> before = weight_bytes(*trainer->model());
  for (int s = 0; s < 20; ++s) {
    const std::vector<std::byte> weights_now = weight_bytes(*trainer->model());
    auto report = trainer->step();
    if (report.ok()) {
      before = weights_now;
      continue;
    }
    test::expect_error(report, ErrorCode::BadArgument, cat("training stopped at step ", s, ": the "),
                       "not a finite number", "a lower learning rate", "put back");
    ASSERT_GT(s, 0);
    // Put back: the weights before the update that broke them, whose loss was finite.
    EXPECT_TRUE(weight_bytes(*trainer->model()) == before);
    auto score = score_text(trainer->model(), *tokenizer, "The dog ran to the park.");
    ASSERT_TRUE(score.ok());
    EXPECT_TRUE(std::isfinite(score->loss));
    return;
  }
  FAIL() << "a learning rate of 1e30 never made the loss NaN";
}

// stories260K re-encoded as Q8_0 (as `glassbox convert --type q8_0` writes it) and loaded from that file.
LoadedModel q8_0_stories(const test::Stories& stories, const std::string& path) {
  auto written = export_gguf(*stories.model, *stories.tokenizer, ExportType::Q8_0, "stories260K-q8_0", path);
  EXPECT_TRUE(written.ok()) << written.error().message;
  auto loaded = open_model_files(path, "");
  EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().message);
  return loaded.ok() ? std::move(*loaded) : LoadedModel{};
}

TEST(TrainTrainer, AQ8_0ModelFineTunesFromItsDequantizedWeightsAndSaysSo) {
  REQUIRE_STORIES();
  const std::string q8_path = temp_file("q8_0.gguf"), f32_path = temp_file("q8_0-as-f32.gguf"),
                    out_path = temp_file("q8_0-trained.gguf");
  const LoadedModel q8 = q8_0_stories(stories, q8_path);
  ASSERT_TRUE(q8.model);
  auto trainer = Trainer::from_model(*q8.model, q8.tokenizer, test::kStoriesText,
                                     {.steps = 4, .batch = 1, .learning_rate = 1e-3});
  ASSERT_TRUE(trainer.ok()) << trainer.error().message;
  // The note names the stored types: the matrices Q8_0 (the token embedding, which is also the classifier,
  // and six per layer; ffn_down's rows of 172 values are no whole number of blocks: F16, as llama.cpp's
  // quantizer does), the norms F32.
  EXPECT_EQ(trainer->weights_note(),
            "trained from dequantized weights: Q8_0 (31 tensors), F16 (5 tensors); 11 others were F32; the "
            "output is F32");
  // An F32 model has nothing to say.
  auto f32_trainer = Trainer::from_model(*stories.model, stories.tokenizer, test::kStoriesText, {.steps = 1});
  ASSERT_TRUE(f32_trainer.ok());
  EXPECT_EQ(f32_trainer->weights_note(), "");

  // Step 0 scores the dequantized weights: exactly what `convert --type f32` of the Q8_0 file scores (the same
  // decoder). The Q8_0 model's own score differs a little (0.2819 against 0.2764 here): its Q8_0 products
  // meet x quantized to 8 bits per block of 32, as in ggml (kernels/quantized_int_dot.hpp), where training
  // computes with float activations. An F16 model, whose products decode and take float dots, scores as
  // step 0 (below).
  auto f32 = export_gguf(*q8.model, *q8.tokenizer, ExportType::F32, "dequantized", f32_path);
  ASSERT_TRUE(f32.ok()) << f32.error().message;
  auto dequantized = open_model_files(f32_path, "");
  ASSERT_TRUE(dequantized.ok()) << dequantized.error().message;
  auto dequantized_score = score_text(dequantized->model, *q8.tokenizer, test::kStoriesText);
  auto quantized_score = score_text(q8.model, *q8.tokenizer, test::kStoriesText);
  ASSERT_TRUE(dequantized_score.ok() && quantized_score.ok());
  std::vector<double> losses;
  for (int s = 0; s < 4; ++s) {
    auto report = trainer->step();
    ASSERT_TRUE(report.ok()) << report.error().message;
    losses.push_back(report->loss);
  }
  EXPECT_EQ(losses[0], dequantized_score->loss);
  EXPECT_NEAR(losses[0], quantized_score->loss, 1e-2);  // measured 5.5e-3: the activations' 8-bit rounding
  for (int s = 1; s < 4; ++s)
    EXPECT_LT(losses[s], losses[s - 1]) << "step " << s;

  // The written file is F32 throughout, loads, and scores as the trainer's model.
  ASSERT_TRUE(trainer->write_gguf(out_path, "trained").ok());
  auto written = open_model_files(out_path, "");
  ASSERT_TRUE(written.ok()) << written.error().message;
  for_each_weight(written->model->weights,
                  [](const std::string& name, const Tensor& t) { EXPECT_EQ(t.type, DType::F32) << name; });
  auto from_file = score_text(written->model, *written->tokenizer, test::kStoriesText);
  auto in_memory = score_text(trainer->model(), *q8.tokenizer, test::kStoriesText);
  ASSERT_TRUE(from_file.ok() && in_memory.ok());
  EXPECT_EQ(from_file->loss, in_memory->loss);
  EXPECT_LT(from_file->loss, losses[0]);
  for (const std::string& p : {q8_path, f32_path, out_path})
    std::filesystem::remove(p);
}

TEST(TrainTrainer, AnF16ModelsStepZeroLossIsItsOwnScore) {
  REQUIRE_STORIES();
  const std::string path = temp_file("f16.gguf");
  ASSERT_TRUE(export_gguf(*stories.model, *stories.tokenizer, ExportType::F16, "stories260K-f16", path).ok());
  auto f16 = open_model_files(path, "");
  ASSERT_TRUE(f16.ok()) << f16.error().message;
  auto trainer =
      Trainer::from_model(*f16->model, f16->tokenizer, test::kStoriesText, {.steps = 1, .batch = 1});
  ASSERT_TRUE(trainer.ok()) << trainer.error().message;
  EXPECT_NE(trainer->weights_note().find("dequantized weights: F16 (36 tensors)"), std::string::npos)
      << trainer->weights_note();
  auto score = score_text(f16->model, *f16->tokenizer, test::kStoriesText);
  auto step0 = trainer->step();
  ASSERT_TRUE(score.ok() && step0.ok());
  // No activation rounding: the same numbers up to the order of float operations (measured: 1 ulp).
  EXPECT_NEAR(step0->loss, score->loss, 1e-12);
  std::filesystem::remove(path);
}

#if !defined(__EMSCRIPTEN__) && \
    defined(                    \
        GLASSBOX_CLI_PATH)  // the CLI tests: not in WebAssembly, nor in the ThreadSanitizer binary (no CLI)
std::string write_text(const std::string& name, const std::string& text) {
  const std::string path = temp_file(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// `glassbox train --config CONFIG` for 3 steps of batch 2 on 2 threads, step 0's gradients saved, --json.
test::ProcessResult train_three_steps_with_gradients(const std::string& config, const std::string& data,
                                                     const std::string& out, const std::string& gradients) {
  return test::run_cli({"train",
                        "--config",
                        config,
                        "--tokenizer",
                        test::model_path("tok512.bin"),
                        "--data",
                        data,
                        "--steps",
                        "3",
                        "--batch",
                        "2",
                        "--lr",
                        "0.01",
                        "--threads",
                        "2",
                        "--output",
                        out,
                        "--save-gradients",
                        gradients,
                        "--json"});
}

TEST(TrainCli, TrainsFromAConfigPrintsJsonPerStepAndWritesAModelThatScores) {
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  const std::string config =
      write_text("cli-config.json", R"({"architecture": "llama", "dim": 16, "layers": 1,
      "heads": 2, "kv_heads": 1, "hidden_dim": 32, "context": 48})");
  const std::string data = write_text("cli-data.txt", kLines);
  const std::string out = temp_file("cli-out.gguf"), gradients = temp_file("cli-gradients.safetensors");
  auto run = train_three_steps_with_gradients(config, data, out, gradients);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto gradient_bytes = map_file(gradients);
  ASSERT_TRUE(gradient_bytes.ok());
  auto saved = read_safetensors(*gradient_bytes);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  EXPECT_EQ(saved->tensors.size(), 11u);  // the embedding (tied), 9 per layer, the final norm
  EXPECT_EQ(saved->tensors.at("blk.0.attn_k.weight").shape, (std::vector<uint64_t>{8, 16}));
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < run.out.size();) {
    const std::size_t end = run.out.find('\n', at);
    lines.push_back(run.out.substr(at, end - at));
    at = end + 1;
  }
  ASSERT_EQ(lines.size(), 3u) << run.out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const json::Document step = test::parse_json(lines[i], "step");
    EXPECT_EQ(test::number(test::member(step, "step")), static_cast<double>(i));
    for (const char* key : {"loss", "grad_norm", "tokens_per_second"})
      EXPECT_GT(test::number(test::member(step, key)), 0) << key << " in " << lines[i];
    EXPECT_GE(test::number(test::member(step, "lr")), 0) << lines[i];  // the cosine's last step takes 0
  }
  auto score = test::run_cli({"score", "--model", out, "--text", "The dog ran.", "--json"});
  EXPECT_EQ(score.exit_code, 0) << score.err;
  EXPECT_NE(score.out.find("\"loss\""), std::string::npos);
  // Without --json: a progress line with the loss and the time left on stderr.
  auto plain = test::run_cli({"train", "--config", config, "--tokenizer", test::model_path("tok512.bin"),
                              "--data", data, "--steps", "2", "--output", out});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.err.find("loss "), std::string::npos) << plain.err;
  EXPECT_NE(plain.err.find("ETA "), std::string::npos) << plain.err;
  for (const std::string& p : {config, data, out, gradients})
    std::filesystem::remove(p);
}

TEST(TrainCli, TrainsAGpt2ConfigAndSavesItsGradientsUnderGpt2Names) {
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  const std::string config = write_text("cli-gpt2.json", kTinyGpt2Json);
  const std::string data = write_text("cli-gpt2-data.txt", kLines);
  const std::string out = temp_file("cli-gpt2.gguf"), gradients = temp_file("cli-gpt2-gradients.safetensors");
  auto run = train_three_steps_with_gradients(config, data, out, gradients);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto gradient_bytes = map_file(gradients);
  ASSERT_TRUE(gradient_bytes.ok());
  auto saved = read_safetensors(*gradient_bytes);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  // The embedding (tied), the position table, 12 per layer (6 weights, 6 biases), the final norm and its bias.
  EXPECT_EQ(saved->tensors.size(), 2u + 2 * 12 + 2);
  EXPECT_EQ(saved->tensors.at("blk.0.attn_qkv.weight").shape, (std::vector<uint64_t>{48, 16}));
  EXPECT_EQ(saved->tensors.at("blk.0.ffn_up.bias").shape, (std::vector<uint64_t>{64}));
  const std::size_t lines = static_cast<std::size_t>(std::count(run.out.begin(), run.out.end(), '\n'));
  EXPECT_EQ(lines, 3u) << run.out;
  auto score = test::run_cli({"score", "--model", out, "--text", "The dog ran.", "--json"});
  EXPECT_EQ(score.exit_code, 0) << score.err;
  EXPECT_NE(score.out.find("\"loss\""), std::string::npos);
  for (const std::string& p : {config, data, out, gradients})
    std::filesystem::remove(p);
}

TEST(TrainCli, StepZeroLossIsScoresLossForOneLineAtBatchOne) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.gguf"));
  const std::string model = test::model_path("stories260K.gguf");
  const std::string data = write_text("cli-one-line.txt", std::string(test::kStoriesText) + "\n");
  const std::string out = temp_file("cli-one-line.gguf");
  auto trained = test::run_cli(
      {"train", "--model", model, "--data", data, "--steps", "1", "--batch", "1", "--output", out, "--json"});
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  auto scored = test::run_cli({"score", "--model", model, "--text", test::kStoriesText, "--json"});
  ASSERT_EQ(scored.exit_code, 0) << scored.err;
  const json::Document step = test::parse_json(trained.out, "train");
  const json::Document score = test::parse_json(scored.out, "score");
  EXPECT_EQ(test::number(test::member(step, "loss")), test::number(test::member(score, "loss")));
  for (const std::string& p : {data, out})
    std::filesystem::remove(p);
}

TEST(TrainCli, AQ8_0ModelsNoteIsInStepZerosJsonAndOnStderr) {
  REQUIRE_STORIES();
  const std::string model = temp_file("cli-q8_0.gguf"), out = temp_file("cli-q8_0-trained.gguf");
  ASSERT_TRUE(q8_0_stories(stories, model).model);
  const std::string data = write_text("cli-q8_0.txt", std::string(test::kStoriesText) + "\n");
  auto run = test::run_cli(
      {"train", "--model", model, "--data", data, "--steps", "2", "--batch", "1", "--output", out, "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::size_t first_end = run.out.find('\n');
  ASSERT_NE(first_end, std::string::npos) << run.out;
  const json::Document step0 = test::parse_json(run.out.substr(0, first_end), "step 0");
  EXPECT_EQ(test::number(test::member(step0, "step")), 0.0);
  EXPECT_NE(test::text(test::member(step0, "note")).find("dequantized weights: Q8_0"), std::string::npos)
      << run.out;
  const json::Document step1 = test::parse_json(run.out.substr(first_end + 1), "step 1");
  EXPECT_EQ(test::number(test::member(step1, "step")), 1.0);
  EXPECT_EQ(run.out.find("note", first_end), std::string::npos) << run.out;  // once, on step 0
  auto plain = test::run_cli({"train", "--model", model, "--data", data, "--steps", "1", "--output", out});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.err.find("trained from dequantized weights: Q8_0"), std::string::npos) << plain.err;
  for (const std::string& p : {model, data, out})
    std::filesystem::remove(p);
}

TEST(TrainCli, BadInputExitsWithAMessage) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.gguf"));
  const std::string empty = write_text("cli-empty.txt", "");
  const std::string data = write_text("cli-nan.txt", kLines);
  const std::string out = temp_file("cli-nan.gguf");
  std::filesystem::remove(out);
  const std::string model = test::model_path("stories260K.gguf");
  auto run = test::run_cli({"train", "--model", model, "--data", empty, "--steps", "2", "--output", out});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("the training data is empty"), std::string::npos) << run.err;
  run = test::run_cli({"train", "--data", data, "--steps", "2", "--output", out});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--model INIT or --config"), std::string::npos) << run.err;
  run = test::run_cli({"train", "--model", model, "--data", data, "--steps", "30", "--lr", "1e30",
                       "--schedule", "constant", "--output", out});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("training stopped at step "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("wrote them to " + out), std::string::npos) << run.err;
  auto loaded = open_model_files(out, "");
  EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().message);
  for (const std::string& p : {empty, data, out})
    std::filesystem::remove(p);
}

// `glassbox synthetic` prints the core's task lines (the same text as synthetic_task_text), for train --data.
TEST(TrainCli, SyntheticPrintsTheCoresTaskLines) {
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  const std::string tokenizer_path = test::model_path("tok512.bin");
  auto run = test::run_cli({"synthetic", "--tokenizer", tokenizer_path, "--task", "copy", "--lines", "30",
                            "--length", "12", "--seed", "5", "--max-tokens", "128"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto tokenizer = load_tokenizer(tokenizer_path);
  ASSERT_TRUE(tokenizer.ok());
  auto expected = synthetic_task_text(
      *tokenizer, {.task = SyntheticTask::Copy, .lines = 30, .length = 12, .seed = 5, .max_tokens = 128});
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  EXPECT_EQ(run.out, *expected + "\n");
  run = test::run_cli({"synthetic", "--tokenizer", tokenizer_path, "--task", "sorting"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("unknown synthetic task \"sorting\""), std::string::npos) << run.err;
}
#endif

}  // namespace
}  // namespace glassbox
