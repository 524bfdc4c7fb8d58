#include "test_support.hpp"

#include "glassbox/formats.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#if !defined(__EMSCRIPTEN__)
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace glassbox::test {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

}  // namespace

std::string model_path(const std::string& file) {
  return env_or("GLASSBOX_MODELS_DIR", std::string(GLASSBOX_SOURCE_DIR) + "/models") + "/" + file;
}

std::string golden_path(const std::string& file) {
  return env_or("GLASSBOX_GOLDEN_DIR", std::string(GLASSBOX_SOURCE_DIR) + "/../shared/golden") + "/" + file;
}

std::string vectors_path(const std::string& file) {
  return env_or("GLASSBOX_VECTORS_DIR", std::string(GLASSBOX_SOURCE_DIR) + "/../shared/tokenizer-vectors") +
         "/" + file;
}

std::string fixture_path(const std::string& file) {
  return env_or("GLASSBOX_FIXTURES_DIR", GLASSBOX_FIXTURES_DIR) + "/" + file;
}

std::vector<TokenizerVector> read_tokenizer_vectors(const std::string& inp_path,
                                                    const std::string& out_path) {
  const std::string separator = "\n__ggml_vocab_test__\n";
  const std::string inp = read_file(inp_path);
  std::vector<TokenizerVector> cases;
  for (std::size_t at = 0; at < inp.size();) {
    const std::size_t end = inp.find(separator, at);
    if (end == std::string::npos) break;
    cases.push_back({inp.substr(at, end - at), {}});
    at = end + separator.size();
  }
  std::istringstream lines(read_file(out_path));
  std::string line;
  for (TokenizerVector& c : cases) {
    if (!std::getline(lines, line)) break;
    std::istringstream ids(line);
    int id;
    while (ids >> id)
      c.ids.push_back(id);
  }
  return cases;
}

void expect_tokenizer_vectors(const Tokenizer& t, const std::vector<TokenizerVector>& cases,
                              const std::string& label) {
  EXPECT_EQ(cases.size(), 46u) << "llama.cpp's vector files hold 46 texts";
  int passed = 0;
  for (const TokenizerVector& c : cases) {
    const std::vector<int> ids = t.encode_ids(c.text, false);
    EXPECT_EQ(ids, c.ids) << label << " text: '" << c.text << "'";
    passed += ids == c.ids;
    EXPECT_EQ(t.decode(ids), c.text) << label;
    int covered = 0;
    for (const EncodedToken& token : t.encode(c.text, false)) {
      EXPECT_EQ(token.byte_begin, covered) << label << " text: '" << c.text << "'";
      covered = token.byte_end;
    }
    EXPECT_EQ(covered, static_cast<int>(c.text.size())) << label;
  }
  std::printf("%s: %d/%zu\n", label.c_str(), passed, cases.size());
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool have_file(const std::string& path) {
  return std::filesystem::is_regular_file(path);
}

std::shared_ptr<const Tokenizer> tok512() {
  auto t = load_tokenizer(model_path("tok512.bin"));
  EXPECT_TRUE(t.ok()) << t.error().message;
  return t.ok() ? std::make_shared<const Tokenizer>(std::move(*t)) : nullptr;
}

bool files_required() {
  const char* value = std::getenv("GLASSBOX_REQUIRE_MODELS");
  return value && *value && std::string(value) != "0";
}

std::vector<std::byte> make_llama2c_checkpoint(const Llama2cHeader& h, uint32_t seed) {
  ByteWriter w;
  for (int32_t v : {h.dim, h.hidden_dim, h.n_layers, h.n_heads, h.n_kv_heads, h.vocab_size, h.seq_len})
    w.i32(v);
  const int64_t dim = h.dim, hidden = h.hidden_dim, L = h.n_layers, vocab = std::abs(h.vocab_size);
  const int64_t kv_dim = dim / h.n_heads * h.n_kv_heads, head = dim / h.n_heads;
  int64_t floats = vocab * dim + L * dim + L * (2 * dim * dim + 2 * kv_dim * dim) + L * dim +
                   L * 3 * hidden * dim + dim + int64_t{h.seq_len} * head;
  if (h.vocab_size < 0) floats += vocab * dim;
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.5f);
  std::vector<float> weights(static_cast<std::size_t>(floats));
  for (float& x : weights)
    x = normal(rng);
  w.floats(weights);
  return w.bytes();
}

ProcessResult run_process(const std::vector<std::string>& argv) {
  ProcessResult result;
#if defined(__EMSCRIPTEN__)
  (void)argv;
  result.err = "no processes under WebAssembly";
#else
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return result;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  // Read both pipes to the end (small outputs: stderr first would only block on a huge stdout).
  auto drain = [](int fd, std::string& into) {
    char buffer[4096];
    ssize_t n;
    while ((n = read(fd, buffer, sizeof buffer)) > 0)
      into.append(buffer, static_cast<std::size_t>(n));
    close(fd);
  };
  drain(out_pipe[0], result.out);
  drain(err_pipe[0], result.err);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
#endif
  return result;
}

}  // namespace glassbox::test
