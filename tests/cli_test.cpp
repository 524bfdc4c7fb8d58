// The `glassbox` command as a user runs it: help, argument errors, tokenize output, reproducible sampling.
#include <gtest/gtest.h>

#include "formats/json.hpp"
#include "glassbox/formats.hpp"
#include "test_support.hpp"

#if !defined(__EMSCRIPTEN__)
namespace glassbox {
namespace {

test::ProcessResult glassbox(std::vector<std::string> args) {
  args.insert(args.begin(), GLASSBOX_CLI_PATH);
  return test::run_process(args);
}

TEST(Cli, HelpForTheToolAndEachCommand) {
  auto top = glassbox({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("generate"), std::string::npos);
  EXPECT_NE(top.out.find("tokenize"), std::string::npos);
  for (const char* command : {"generate", "tokenize"}) {
    auto help = glassbox({command, "--help"});
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_NE(help.out.find(std::string("Usage: glassbox ") + command), std::string::npos) << help.out;
  }
  EXPECT_NE(glassbox({"generate", "--help"}).out.find("--top-p P"), std::string::npos);
}

TEST(Cli, WrongArgumentsPrintUsageAndExitNonZero) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{}, "Usage: glassbox <command>"},
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {{"generate"}, "--model is required"},
      {{"generate", "--model", "m.bin", "--tokenizer", "t.bin", "--steps", "ten"},
       "--steps must be a whole number"},
      {{"generate", "--model", "m.bin", "--tokenizer", "t.bin", "--temperature", "-1"},
       "--temperature must be in"},
      {{"generate", "--model", "m.bin", "--tokenizer", "t.bin", "--top-p", "1.5"}, "--top-p must be in"},
      {{"generate", "--model", "m.bin", "--tokenizer", "t.bin", "--threads", "0"},
       "--threads must be in 1..256"},
      {{"generate", "--model", "m.bin", "--tokenizer", "t.bin", "--bogus", "1"}, "unknown flag --bogus"},
      {{"generate", "--model"}, "--model needs a value (FILE)"},
      {{"tokenize", "--tokenizer", "t.bin"}, "--text is required"},
      {{"tokenize", "stray"}, "unexpected argument 'stray'"},
  };
  for (const Case& c : cases) {
    auto run = glassbox(c.args);
    EXPECT_EQ(run.exit_code, 2) << c.message;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << "stderr: " << run.err;
    EXPECT_NE(run.err.find("Usage: glassbox"), std::string::npos) << "stderr: " << run.err;
  }
}

TEST(Cli, MissingOrBrokenFilesFailWithTheFileNamed) {
  auto run = glassbox({"generate", "--model", "/nonexistent/m.bin", "--tokenizer", "/nonexistent/t.bin"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("/nonexistent/m.bin: cannot open"), std::string::npos) << run.err;
  GLASSBOX_REQUIRE_FILE(test::model_path("tok512.bin"));
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  run = glassbox({"generate", "--model", test::model_path("stories260K.bin")});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("a llama2.c checkpoint needs its tokenizer file"), std::string::npos) << run.err;
  // A tokenizer file handed over as the model: rejected in plain words, not crashed on.
  run = glassbox(
      {"generate", "--model", test::model_path("tok512.bin"), "--tokenizer", test::model_path("tok512.bin")});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("tok512.bin: not a model file glassbox can read"), std::string::npos) << run.err;
}

TEST(Cli, MismatchedTokenizerIsRejected) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  GLASSBOX_REQUIRE_FILE(test::model_path("tokenizer.bin"));
  auto run = glassbox({"generate", "--model", test::model_path("stories260K.bin"), "--tokenizer",
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
    return glassbox({"generate", "--model", test::model_path("stories260K.bin"), "--tokenizer",
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
  auto run = glassbox({"tokenize", "--tokenizer", test::model_path("tok512.bin"), "--text", text, "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto json = parse_json(run.out, "stdout");
  ASSERT_TRUE(json.ok()) << json.error().message << "\n" << run.out;
  auto tokenizer = load_llama2c_tokenizer(test::model_path("tok512.bin"));
  ASSERT_TRUE(tokenizer.ok());
  const std::vector<EncodedToken> expected = tokenizer->encode(text, true);
  const auto& ids = json->find("ids")->array();
  const auto& tokens = json->find("tokens")->array();
  ASSERT_EQ(ids.size(), expected.size());
  ASSERT_EQ(tokens.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(static_cast<int>(ids[i].number()), expected[i].id);
    EXPECT_EQ(tokens[i].find("piece")->string(), tokenizer->piece(expected[i].id));
    EXPECT_EQ(static_cast<int>(tokens[i].find("bytes")->array()[0].number()), expected[i].byte_begin);
    EXPECT_EQ(static_cast<int>(tokens[i].find("bytes")->array()[1].number()), expected[i].byte_end);
  }
  auto plain =
      glassbox({"tokenize", "--tokenizer", test::model_path("tok512.bin"), "--text", "Once", "--no-bos"});
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_NE(plain.out.find("403      \" Once\""), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("<s>"), std::string::npos) << plain.out;
}

TEST(Cli, SamplingIsReproducibleBySeed) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  auto sample = [](const std::string& seed) {
    return glassbox({"generate", "--model", test::model_path("stories260K.bin"), "--tokenizer",
                     test::model_path("tok512.bin"), "--prompt", "The dog", "--temperature", "1.0", "--top-p",
                     "0.9", "--top-k", "40", "--seed", seed, "--steps", "60", "--threads", "2"});
  };
  const auto a = sample("7"), b = sample("7"), c = sample("8");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  EXPECT_EQ(a.out.rfind("The dog", 0), 0u) << a.out;
}

}  // namespace
}  // namespace glassbox
#endif
