// Embind bindings: the engine as the browser's Web Worker sees it. Everything model-specific lives in the
// core; this file only moves bytes and numbers across the boundary. Fallible calls return {error: message}
// instead of throwing, and the JS glue (engine.js) turns that into a JS Error: a C++ exception or a JS throw
// from inside WASM would skip destructors and leak.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glassbox/glassbox.hpp"

namespace glassbox::wasm {
namespace {

using emscripten::val;

val failure(const std::string& message) {
  val result = val::object();
  result.set("error", message);
  return result;
}

val bytes_to_js(const std::string& bytes) {
  // A copy the JS side owns: a piece may be part of a UTF-8 character, so it travels as bytes.
  val view(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())));
  return val::global("Uint8Array").new_(view);
}

template <class T>
val array_to_js(const std::vector<T>& values, const char* type) {
  val view(emscripten::typed_memory_view(values.size(), values.data()));
  return val::global(type).new_(view);
}

}  // namespace

// One model, its tokenizer, and one session. The worker owns exactly one Engine.
class Engine {
 public:
  // --- uploads: the page writes a file or download straight into a buffer in the WASM heap ---------------
  // Returns the buffer's address, or 0 if the heap cannot grow that far.
  uintptr_t allocate_upload(int slot, double size) {
    if (slot < 0 || slot > 1 || !(size >= 1) || size > 4294967295.0) return 0;
    uploads_[slot] = Upload{};
    // malloc, not std::vector: when the heap cannot grow it returns null, which the glue reports.
    auto* data = static_cast<std::byte*>(std::malloc(static_cast<std::size_t>(size)));
    if (!data) return 0;
    uploads_[slot] = Upload{data, static_cast<std::size_t>(size)};
    return reinterpret_cast<uintptr_t>(data);
  }

  // Frees an upload slot (a cancelled or failed download), so a later load cannot pick up stale bytes.
  void clear_upload(int slot) {
    if (slot >= 0 && slot <= 1) uploads_[slot] = Upload{};
  }

  // Loads the model from upload slot 0 and, when `tokenizer_name` is not empty, the tokenizer from slot 1;
  // with an empty name the tokenizer comes from the model file itself (GGUF). Takes ownership of the
  // buffers (no copies). On failure the previously loaded model, if any, stays usable.
  val load(const std::string& model_name, const std::string& tokenizer_name) {
    if (!uploads_[0].data) return failure(model_name + ": no bytes were uploaded for the model");
    const bool separate_tokenizer = !tokenizer_name.empty();
    if (separate_tokenizer && !uploads_[1].data)
      return failure(tokenizer_name + ": no bytes were uploaded for the tokenizer");
    auto model_bytes = uploads_[0].release(model_name);
    std::shared_ptr<const Bytes> tokenizer_bytes;
    if (separate_tokenizer) tokenizer_bytes = uploads_[1].release(tokenizer_name);
    uploads_[1] = Upload{};
    auto loaded = open_model(std::move(model_bytes), std::move(tokenizer_bytes));
    if (!loaded) return failure(loaded.error().message);
    auto session = Session::create(loaded->model, {.threads = 1, .trace_attention = true});
    if (!session) return failure(session.error().message);

    generator_.reset();
    session_.emplace(std::move(*session));
    model_ = std::move(loaded->model);
    tokenizer_ = std::move(loaded->tokenizer);
    sequence_.clear();
    return info();
  }

  // The model formats this build reads.
  val formats() const {
    val list = val::array();
    for (const char* f : {"llama2c", "gguf"})
      list.call<void>("push", std::string(f));
    return list;
  }

  // Pieces of many tokens at once (labels of the attention view): an array of Uint8Array.
  val pieces(const val& ids) const {
    if (!tokenizer_) return failure("no model is loaded");
    const std::vector<int> list = emscripten::vecFromJSArray<int>(ids);
    val out = val::array();
    for (int id : list)
      out.call<void>("push", bytes_to_js(tokenizer_->valid_id(id) ? tokenizer_->piece(id) : std::string()));
    return out;
  }

  val info() const {
    if (!model_) return failure("no model is loaded");
    const ModelConfig& c = model_->config;
    val result = val::object();
    result.set("architecture", c.architecture);
    result.set("dim", c.dim);
    result.set("hiddenDim", c.hidden_dim);
    result.set("layers", c.n_layers);
    result.set("heads", c.n_heads);
    result.set("kvHeads", c.n_kv_heads);
    result.set("headDim", c.head_dim);
    result.set("vocabSize", c.vocab_size);
    result.set("maxSeqLen", c.max_seq_len);
    result.set("contextLength", session_->context_length());
    result.set("norm", std::string(to_string(c.norm)));
    result.set("position", std::string(to_string(c.position)));
    result.set("activation", std::string(to_string(c.activation)));
    result.set("gatedFfn", c.gated_ffn);
    result.set("tiedEmbeddings", c.tied_embeddings);
    result.set("parameters", static_cast<double>(model_->parameter_count()));
    result.set("weightBytes", static_cast<double>(model_->weight_bytes()));
    result.set("bosId", tokenizer_->bos_id());
    result.set("eosId", tokenizer_->eos_id());
    result.set("engine", std::string(build_description()));
    return result;
  }

  // {ids: Int32Array, begins: Int32Array, ends: Int32Array, pieces: Uint8Array[]}: each token's id, the
  // input byte span it covers, and its vocabulary piece as bytes.
  val tokenize(const std::string& text, bool add_bos) const {
    if (!tokenizer_) return failure("no model is loaded");
    const std::vector<EncodedToken> tokens = tokenizer_->encode(text, add_bos);
    std::vector<int32_t> ids, begins, ends;
    val pieces = val::array();
    for (const EncodedToken& t : tokens) {
      ids.push_back(t.id);
      begins.push_back(t.byte_begin);
      ends.push_back(t.byte_end);
      pieces.call<void>("push", bytes_to_js(tokenizer_->piece(t.id)));
    }
    val result = val::object();
    result.set("ids", array_to_js(ids, "Int32Array"));
    result.set("begins", array_to_js(begins, "Int32Array"));
    result.set("ends", array_to_js(ends, "Int32Array"));
    result.set("pieces", pieces);
    return result;
  }

  // The vocabulary piece of a token, as bytes.
  val piece(int id) const {
    if (!tokenizer_) return failure("no model is loaded");
    if (!tokenizer_->valid_id(id))
      return failure("token id " + std::to_string(id) + " is outside the vocabulary");
    return bytes_to_js(tokenizer_->piece(id));
  }

  val set_sampler(double temperature, int top_k, double top_p, double seed) {
    const SamplerSettings settings{.temperature = static_cast<float>(temperature),
                                   .top_k = top_k,
                                   .top_p = static_cast<float>(top_p),
                                   .seed = seed >= 0 ? static_cast<uint64_t>(seed) : 0};
    if (auto valid = validate(settings); !valid) return failure(valid.error().message);
    sampler_.emplace(settings);
    generator_.reset();
    return val::object();
  }

  // Starts a generation from `prompt` (BOS added when the vocabulary asks for it, or the prompt is empty):
  // resets the session and returns the prompt's token ids.
  val start(const std::string& prompt) {
    if (!session_) return failure("no model is loaded");
    if (!sampler_) sampler_.emplace(SamplerSettings{});
    const std::vector<int> ids = tokenizer_->encode_prompt(prompt);
    if (static_cast<int>(ids.size()) >= session_->context_length())
      return failure("the prompt has " + std::to_string(ids.size()) + " tokens; the context holds " +
                     std::to_string(session_->context_length()));
    generator_.emplace(*session_, *sampler_);
    if (auto started = generator_->start(ids); !started) return failure(started.error().message);
    sequence_ = ids;
    previous_ = ids.back();
    val result = val::object();
    result.set("ids", array_to_js(std::vector<int32_t>(ids.begin(), ids.end()), "Int32Array"));
    return result;
  }

  // One generation step: {id, bytes, position, end}. `end` is true for BOS/EOS (not part of the text) and
  // when the context is now full; the caller stops there.
  val step() {
    if (!generator_) return failure("call start() before step()");
    if (session_->position() >= session_->context_length()) return failure("the context is full");
    auto token = generator_->next();
    if (!token) return failure(token.error().message);
    const bool end_token = *token == tokenizer_->bos_id() || *token == tokenizer_->eos_id();
    val result = val::object();
    result.set("id", *token);
    result.set("bytes", bytes_to_js(end_token ? std::string() : tokenizer_->token_text(previous_, *token)));
    result.set("position", session_->position());
    result.set("end", end_token || session_->position() >= session_->context_length());
    if (!end_token) {
      sequence_.push_back(*token);
      previous_ = *token;
    }
    return result;
  }

  // Token ids whose attention is in the trace: the prompt and the generated tokens fed back so far (the
  // newest sampled token is not part of it until the next step feeds it).
  val sequence() const {
    const std::size_t traced =
        session_ ? std::min(sequence_.size(), static_cast<std::size_t>(session_->position())) : 0;
    return array_to_js(
        std::vector<int32_t>(sequence_.begin(), sequence_.begin() + static_cast<std::ptrdiff_t>(traced)),
        "Int32Array");
  }

  // Attention of one head as a dense row-major [n][n] Float32Array over the positions computed so far
  // (zero above the diagonal); head -1 gives all heads of the layer, [heads][n][n].
  val attention(int layer, int head) {
    if (!session_) return failure("no model is loaded");
    const AttentionTrace& trace = session_->attention_trace();
    if (layer < 0 || layer >= trace.n_layers())
      return failure("layer " + std::to_string(layer) + " does not exist (0.." +
                     std::to_string(trace.n_layers() - 1) + ")");
    if (head < -1 || head >= trace.n_heads())
      return failure("head " + std::to_string(head) + " does not exist (0.." +
                     std::to_string(trace.n_heads() - 1) + ")");
    const auto n = static_cast<std::size_t>(trace.n_positions());
    const int first = head < 0 ? 0 : head, last = head < 0 ? trace.n_heads() : head + 1;
    matrix_.assign(static_cast<std::size_t>(last - first) * n * n, 0.0f);
    for (int h = first; h < last; ++h)
      trace.copy_matrix(layer, h, matrix_.data() + static_cast<std::size_t>(h - first) * n * n);
    val result = val::object();
    result.set("size", static_cast<int>(n));
    result.set("matrix",
               val(emscripten::typed_memory_view(matrix_.size(), matrix_.data())));  // the glue copies it
    return result;
  }

  // The k most likely next tokens after the last step: [{id, logit, probability}], probabilities at
  // temperature 1 over the whole vocabulary.
  val top_tokens(int k) const {
    if (!session_ || session_->position() == 0) return failure("nothing has been computed yet");
    val result = val::array();
    for (const TokenProbability& t : glassbox::top_tokens(session_->logits(), k)) {
      val entry = val::object();
      entry.set("id", t.id);
      entry.set("logit", t.logit);
      entry.set("probability", t.probability);
      result.call<void>("push", entry);
    }
    return result;
  }

  void reset() {
    if (session_) session_->reset();
    generator_.reset();
    sequence_.clear();
  }

 private:
  // A malloc'ed buffer the page is filling; handed to the core as Bytes when loading.
  struct Upload {
    std::byte* data = nullptr;
    std::size_t size = 0;
    Upload() = default;
    Upload(std::byte* d, std::size_t n) : data(d), size(n) {}
    Upload(Upload&& other) noexcept : data(std::exchange(other.data, nullptr)), size(other.size) {}
    Upload& operator=(Upload&& other) noexcept {
      std::free(data);
      data = std::exchange(other.data, nullptr);
      size = other.size;
      return *this;
    }
    ~Upload() { std::free(data); }
    std::shared_ptr<const Bytes> release(const std::string& name) {
      return bytes_from_malloc(std::exchange(data, nullptr), size, name);
    }
  };

  Upload uploads_[2];
  std::shared_ptr<const Model> model_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::optional<Session> session_;
  std::optional<Sampler> sampler_;
  std::optional<Generator> generator_;
  std::vector<int> sequence_;
  int previous_ = -1;
  std::vector<float> matrix_;
};

EMSCRIPTEN_BINDINGS(glassbox) {
  emscripten::class_<Engine>("Engine")
      .constructor<>()
      .function("allocateUpload", &Engine::allocate_upload)
      .function("clearUpload", &Engine::clear_upload)
      .function("load", &Engine::load)
      .function("formats", &Engine::formats)
      .function("pieces", &Engine::pieces)
      .function("info", &Engine::info)
      .function("tokenize", &Engine::tokenize)
      .function("piece", &Engine::piece)
      .function("setSampler", &Engine::set_sampler)
      .function("start", &Engine::start)
      .function("step", &Engine::step)
      .function("sequence", &Engine::sequence)
      .function("attention", &Engine::attention)
      .function("topTokens", &Engine::top_tokens)
      .function("reset", &Engine::reset);
}

}  // namespace glassbox::wasm
