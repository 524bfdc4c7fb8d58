// The `glassbox` command as a user runs it: help, argument errors, tokenize output, reproducible sampling.
#include <gtest/gtest.h>

#include "glassbox/build.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/sampler.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

#if !defined(__EMSCRIPTEN__)
namespace glassbox {
namespace {

using test::run_cli;

TEST(Cli, HelpForTheToolAndEachCommand) {
  auto top = run_cli({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  for (const char* command : {"generate", "tokenize", "inspect", "bench", "convert"}) {
    EXPECT_NE(top.out.find(command), std::string::npos) << top.out;
    auto help = run_cli({command, "--help"});
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_NE(help.out.find(std::string("Usage: glassbox ") + command), std::string::npos) << help.out;
  }
}

TEST(Cli, HelpOfACommandListsItsFlagsWithTheCoresDefaults) {
  auto help = run_cli({"generate", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  for (const char* flag : {"--model FILE", "--tokenizer FILE", "--prompt TEXT", "--steps N",
                           "--temperature T", "--top-k K", "--top-p P", "--seed S", "--threads N", "--json"})
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag << " in\n" << help.out;
  // The defaults shown are SamplerSettings{}'s, not numbers of the CLI's own.
  const SamplerSettings defaults;
  EXPECT_NE(help.out.find("--seed S=" + std::to_string(defaults.seed)), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--top-k K=" + std::to_string(defaults.top_k)), std::string::npos) << help.out;
  auto tokenize = run_cli({"tokenize", "--help"});
  for (const char* flag : {"--tokenizer FILE", "--text TEXT", "--json", "--no-bos"})
    EXPECT_NE(tokenize.out.find(flag), std::string::npos) << flag << " in\n" << tokenize.out;
}

TEST(Cli, VersionIsTheLibrarysBuildDescription) {
  auto run = run_cli({"--version"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, std::string(build_description()) + "\n");
  EXPECT_EQ(run.out.rfind(std::string("glassbox ") + version(), 0), 0u) << run.out;
}

TEST(Cli, WrongArgumentsNameTheFlagAndExitWithStatus2) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> said;  // each must appear in stderr
  };
  const std::vector<std::string> model = {"generate", "--model", "m.bin", "--tokenizer", "t.bin"};
  auto with = [](std::vector<std::string> args, std::vector<std::string> more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const Case cases[] = {
      {{}, {"Usage: glassbox"}},
      {{"frobnicate"}, {"unknown command 'frobnicate'"}},
      {{"--bogus"}, {"unknown flag --bogus"}},
      {{"generate"}, {"--model is required"}},
      {with(model, {"--steps", "ten"}), {"--steps:", "ten"}},
      {with(model, {"--steps=0"}), {"--steps:", "1 to 1048576"}},
      {with(model, {"--steps", "5", "--steps", "6"}), {"--steps"}},
      {with(model, {"--temperature", "-1"}), {"--temperature:", "temperature must be"}},
      {with(model, {"--top-p", "1.5"}), {"--top-p:", "1.5"}},
      {with(model, {"--top-p=0"}), {"--top-p:", "top-p must be in (0, 1]"}},
      {with(model, {"--top-k", "-3"}), {"--top-k:", "-3"}},
      {with(model, {"--seed", "-1"}), {"--seed:", "-1"}},
      {with(model, {"--seed", "x"}), {"--seed", "x"}},
      {with(model, {"--threads", "0"}), {"--threads:", "1 to 256"}},
      {with(model, {"--bogus", "1"}), {"--bogus"}},
      {with(model, {"--bogus=1"}), {"--bogus=1"}},
      {{"generate", "--model"}, {"--model", "missing"}},
      {{"tokenize", "--tokenizer", "t.bin"}, {"--text is required"}},
      {{"tokenize", "--tokenizer", "t.bin", "--text", "x", "stray"}, {"stray"}},
      {{"convert", "--model", "m.bin", "--output", "o.gguf", "--type", "q5"}, {"--type:", "q5"}},
      {{"bench", "--model", "m.bin", "--repeat=0"}, {"--repeat:"}},
  };
  for (const Case& c : cases) {
    auto run = run_cli(c.args);
    EXPECT_EQ(run.exit_code, 2) << c.said.front();
    for (const std::string& text : c.said)
      EXPECT_NE(run.err.find(text), std::string::npos) << "stderr: " << run.err;
    EXPECT_NE(run.err.find("--help"), std::string::npos) << "a pointer to --help; stderr: " << run.err;
  }
}

TEST(Cli, MissingOrBrokenFilesFailWithTheFileNamed) {
  auto run = run_cli({"generate", "--model", "/nonexistent/m.bin", "--tokenizer", "/nonexistent/t.bin"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("/nonexistent/m.bin: cannot open"), std::string::npos) << run.err;
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  run = run_cli({"generate", "--model", test::model_path("stories260K.bin")});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("a llama2.c checkpoint needs its tokenizer file"), std::string::npos) << run.err;
  // A tokenizer file handed over as the model: rejected in plain words, not crashed on.
  run = run_cli(
      {"generate", "--model", test::model_path("tok512.bin"), "--tokenizer", test::model_path("tok512.bin")});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("tok512.bin: not a model file glassbox can read"), std::string::npos) << run.err;
}

TEST(Cli, MismatchedTokenizerIsRejected) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::model_path("tokenizer.bin"));
  auto run = run_cli({"generate", "--model", test::model_path("stories260K.bin"), "--tokenizer",
                      test::model_path("tokenizer.bin")});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("the tokenizer has 32000 tokens but the model's vocab_size is 512"),
            std::string::npos)
      << run.err;
}

TEST(Cli, StepsAndPromptLengthErrorsSayWhatIsWrong) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  auto generate = [](const std::string& prompt, const std::string& steps) {
    return run_cli({"generate", "--model", test::model_path("stories260K.bin"), "--tokenizer",
                    test::model_path("tok512.bin"), "--prompt", prompt, "--steps", steps});
  };
  // "Once upon a time" is 5 tokens with BOS.
  auto run = generate("Once upon a time", "3");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("step budget 3 is less than the prompt's 5 tokens"), std::string::npos) << run.err;
  // Longer than stories260K's 512-position context, whatever --steps says.
  std::string long_prompt;
  for (int i = 0; i < 200; ++i)
    long_prompt += "Once upon a time ";
  run = generate(long_prompt, "100000");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("more than the context of 512"), std::string::npos) << run.err;
  // --steps past the context is capped by it, not an error.
  run = generate("Once upon a time", "100000");
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(Cli, TokenizeJsonMatchesTheLibrary) {
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  const std::string text = "Once upon a time, \"Zoe\" said 🙂\n";
  auto run = run_cli({"tokenize", "--tokenizer", test::model_path("tok512.bin"), "--text", text, "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::Document json = test::parse_json(run.out, "stdout");
  ASSERT_TRUE(json.IsObject()) << run.out;
  auto tokenizer = load_llama2c_tokenizer(test::model_path("tok512.bin"));
  ASSERT_TRUE(tokenizer.ok());
  const std::vector<EncodedToken> expected = tokenizer->encode(text, true);
  const std::vector<int> ids = test::ints(test::member(json, "ids"));
  const auto tokens = test::items(test::member(json, "tokens"));
  ASSERT_EQ(ids.size(), expected.size());
  ASSERT_EQ(tokens.Size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const json::Value& token = tokens[static_cast<rapidjson::SizeType>(i)];
    EXPECT_EQ(ids[i], expected[i].id);
    EXPECT_EQ(test::text(test::member(token, "piece")), tokenizer->piece(expected[i].id));
    EXPECT_EQ(test::ints(test::member(token, "bytes")),
              (std::vector<int>{expected[i].byte_begin, expected[i].byte_end}));
  }
  auto plain =
      run_cli({"tokenize", "--tokenizer", test::model_path("tok512.bin"), "--text", "Once", "--no-bos"});
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_NE(plain.out.find("403      \" Once\""), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("<s>"), std::string::npos) << plain.out;
}

TEST(Cli, SamplingIsReproducibleBySeed) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  auto sample = [](const std::string& seed) {
    return run_cli({"generate", "--model", test::model_path("stories260K.bin"), "--tokenizer",
                    test::model_path("tok512.bin"), "--prompt", "The dog", "--temperature", "1.0", "--top-p",
                    "0.9", "--top-k", "40", "--seed", seed, "--steps", "60", "--threads", "2"});
  };
  const auto a = sample("7"), b = sample("7"), c = sample("8");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  EXPECT_EQ(a.out.rfind("The dog", 0), 0u) << a.out;
}

TEST(Cli, WithoutASeedSamplingUsesTheCoresDefaultSeed) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  const std::string model = test::model_path("stories260K.bin"), tokenizer = test::model_path("tok512.bin");
  std::vector<std::string> args = {"generate", "--model", model, "--tokenizer", tokenizer, "--steps", "40"};
  const auto unseeded = run_cli(args);
  args.insert(args.end(), {"--seed", std::to_string(SamplerSettings{}.seed)});
  const auto seeded = run_cli(args);
  ASSERT_EQ(unseeded.exit_code, 0) << unseeded.err;
  EXPECT_EQ(unseeded.out, seeded.out);
}

TEST(Cli, FlagEqualsValueReadsLikeFlagSpaceValue) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  const auto spaced = run_cli({"generate", "--model", test::model_path("stories260K.bin"), "--tokenizer",
                               test::model_path("tok512.bin"), "--prompt", "Once upon a time",
                               "--temperature", "0.8", "--seed", "3", "--steps", "30"});
  const auto joined = run_cli({"generate", "--model=" + test::model_path("stories260K.bin"),
                               "--tokenizer=" + test::model_path("tok512.bin"), "--prompt=Once upon a time",
                               "--temperature=0.8", "--seed=3", "--steps=30"});
  ASSERT_EQ(spaced.exit_code, 0) << spaced.err;
  ASSERT_EQ(joined.exit_code, 0) << joined.err;
  EXPECT_EQ(joined.out, spaced.out);
  EXPECT_EQ(joined.out.rfind("Once upon a time", 0), 0u) << joined.out;
}

TEST(Cli, GenerateJsonSaysWhyItStopped) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.gguf"));
  auto run = run_cli({"generate", "--model", test::model_path("stories260K.gguf"), "--prompt",
                      "Once upon a time", "--temperature", "0", "--steps", "12", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::Document json = test::parse_json(run.out, "stdout");
  ASSERT_TRUE(json.IsObject()) << run.out;
  const std::vector<int> prompt = test::ints(test::member(json, "prompt_ids"));
  const std::vector<int> generated = test::ints(test::member(json, "generated_ids"));
  EXPECT_EQ(prompt.size(), 5u);
  // llama2.c's steps: 12 forward passes; the token sampled at the last one is printed but never fed.
  EXPECT_EQ(prompt.size() + generated.size(), 12u + 1u);
  EXPECT_EQ(test::text(test::member(json, "text")).rfind("Once upon a time", 0), 0u) << run.out;
  EXPECT_EQ(test::text(test::member(json, "stop_reason")), "length");
  EXPECT_NE(run.err.find("stopped: length"), std::string::npos) << run.err;
}

// inspect prints the core's document (tests/inspection_test.cpp checks its contents) and names a bad
// ablation spec.
TEST(Cli, InspectPrintsTheDocumentAndNamesABadAblation) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.gguf"));
  auto run =
      run_cli({"inspect", "--model", test::model_path("stories260K.gguf"), "--prompt", "Once upon a time",
               "--steps", "3", "--ablate", "0.1,2.3=0.5", "--threads", "2", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::Document json = test::parse_json(run.out, "stdout");
  ASSERT_TRUE(json.IsObject()) << run.out;
  EXPECT_EQ(test::number(test::member(json, "prompt_length")), 5);
  EXPECT_EQ(test::items(test::member(json, "tokens")).Size(), 8u);
  auto bad = run_cli({"inspect", "--model", test::model_path("stories260K.gguf"), "--ablate", "0.x"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("\"0.x\" is not LAYER.HEAD"), std::string::npos) << bad.err;
  auto missing = run_cli({"inspect", "--model", test::model_path("stories260K.gguf"), "--ablate", "7.0"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("head 7.0 is not in the model (layers 0..4, heads 0..7)"), std::string::npos)
      << missing.err;
}

// --threads auto, the default of bench and generate: each pass uses the threads that pay for it
// (glassbox/thread_choice.hpp), which the output says with the reason; a count given is used as given.
TEST(Cli, AutoThreadsAreChosenAndSaid) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.gguf"));
  const std::string model = test::model_path("stories260K.gguf");
  auto run = run_cli(
      {"bench", "--model", model, "--prompt-tokens", "4", "--gen-tokens", "4", "--repeat", "1", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json::Document json = test::parse_json(run.out, "stdout");
  EXPECT_EQ(test::text(test::member(json, "threads_setting")), "auto");
  EXPECT_EQ(test::number(test::member(json, "gen_threads")), 1);
  EXPECT_NE(test::text(test::member(json, "threads_why")).find("too small for threads to pay"),
            std::string::npos);
  run = run_cli({"bench", "--model", model, "--prompt-tokens", "4", "--gen-tokens", "4", "--repeat", "1",
                 "--threads", "2", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json = test::parse_json(run.out, "stdout");
  EXPECT_EQ(test::number(test::member(json, "gen_threads")), 2);
  EXPECT_EQ(test::number(test::member(json, "prompt_threads")), 2);

  run = run_cli({"generate", "--model", model, "--steps", "4", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json = test::parse_json(run.out, "stdout");
  const auto& threads = test::member(json, "threads");
  EXPECT_EQ(test::text(test::member(threads, "setting")), "auto");
  EXPECT_EQ(test::number(test::member(threads, "generation")), 1);
  EXPECT_NE(run.err.find("threads auto: prompt"), std::string::npos) << run.err;
}

// The benchmark's harness must not rot: one quick run, every figure present and sensible (no timing is
// asserted; speed claims come from `node tests/peers/bench.mjs`).
TEST(Cli, BenchJsonHasEveryFigure) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.gguf"));
  for (const char* trace : {"off", "residuals", "attention"}) {
    auto run = run_cli({"bench", "--model", test::model_path("stories260K.gguf"), "--prompt-tokens", "40",
                        "--gen-tokens", "8", "--repeat", "1", "--threads", "2", "--trace", trace, "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const json::Document json = test::parse_json(run.out, "stdout");
    ASSERT_TRUE(json.IsObject()) << run.out;
    EXPECT_EQ(test::text(test::member(json, "trace")), trace);
    for (const char* rate : {"prompt_tokens_per_s", "prompt_tokens_per_s_min", "prompt_tokens_per_s_max",
                             "gen_tokens_per_s", "gen_tokens_per_s_min", "gen_tokens_per_s_max"})
      EXPECT_GT(test::number(test::member(json, rate)), 0) << rate;
    EXPECT_EQ(test::number(test::member(json, "kv_cache_bytes")), 2.0 * 5 * 48 * 32 * 4);  // 4 kv heads of 8
    EXPECT_GT(test::number(test::member(json, "file_bytes")), 1e6);
    EXPECT_GT(test::number(test::member(json, "peak_resident_bytes")), 0);
    const double trace_bytes = test::number(test::member(json, "trace_bytes"));
    if (std::string(trace) == "off") EXPECT_EQ(trace_bytes, 0);
    if (std::string(trace) == "residuals")
      EXPECT_EQ(trace_bytes, 64.0 * 6 * 64 * 4);  // blocks of 32 positions
    if (std::string(trace) == "attention") EXPECT_EQ(trace_bytes, 5.0 * 8 * 48 * 49 / 2 * 4);
  }
}

}  // namespace
}  // namespace glassbox
#endif
