// Embind bindings: the engine as the browser's Web Worker sees it. Everything model-specific lives in the
// core, and so do the generation rules (glassbox::Generator: prompt checks, end conditions, why it stopped);
// this file only moves bytes and numbers across the boundary. Fallible calls return {error, code} (the
// core's message and the stable name of its ErrorCode) instead of throwing, and engine.js turns that into a
// GlassboxError: a C++ exception or a JS throw from inside WASM would skip destructors and leak.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
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

val failure(const Error& e) {
  val result = val::object();
  result.set("error", e.message);
  result.set("code", std::string(to_string(e.code)));
  return result;
}

template <class... Parts>
val failure(ErrorCode code, const Parts&... parts) {
  return failure(error(code, parts...));
}

val no_model() {
  return failure(ErrorCode::InvalidState, "no model is loaded");
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

// The shortest decimal that reads back as the same float, as a double: 0.9f crosses as 0.9, not as
// 0.89999997615814209 (a person sees these numbers in the page's controls).
double float_to_js(float value) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    const double parsed = std::strtod(text, nullptr);
    if (static_cast<float>(parsed) == value) return parsed;
  }
  return value;
}

// A JS number that must be a whole number in [0, limit]; false otherwise (NaN, fractions, negatives).
bool whole_number(double value, double limit) {
  return std::isfinite(value) && value >= 0 && value <= limit && std::floor(value) == value;
}

val sampler_settings_to_js(const SamplerSettings& s) {
  val result = val::object();
  result.set("temperature", float_to_js(s.temperature));
  result.set("topK", s.top_k);
  result.set("topP", float_to_js(s.top_p));
  result.set("seed", static_cast<double>(s.seed));
  return result;
}

}  // namespace

// --- what the module is, from the core (no second copy of any of it) -------------------------------------

std::string module_version() {
  return version();
}

std::string module_build_description() {
  return build_description();
}

// The core's SamplerSettings{}: the one place the defaults are written.
val sampler_defaults() {
  return sampler_settings_to_js(SamplerSettings{});
}

// Every ErrorCode's stable name, in the core's order (engine.d.ts states the same list as a type).
val error_codes() {
  val list = val::array();
#define GLASSBOX_ERROR_NAME_TO_JS(name, text) list.call<void>("push", std::string(text));
  GLASSBOX_ERROR_CODES(GLASSBOX_ERROR_NAME_TO_JS)
#undef GLASSBOX_ERROR_NAME_TO_JS
  return list;
}

// The page's memory budget for inspection traces. The views recompute attention rows and the logit lens
// from the residual stream (ResidualTrace), which costs (layers + 1) x dim floats per position: 1.5 KiB for
// stories260K, 39 KiB for a Llama-110M shape, 88 KiB for a 0.5B shape. 64 MiB keeps every position of the
// first two at their full contexts, and the newest ~750 positions of the 0.5B shape; older ones are dropped
// and the page says so. The full probability record would need n(n+1)/2 x layers x heads floats instead
// (2.8 GB for the 0.5B shape at 2,048 positions).
constexpr int64_t kTraceBudgetBytes = int64_t{64} << 20;

double trace_budget_bytes() {
  return static_cast<double>(kTraceBudgetBytes);
}

// The WebAssembly memory's current size: it grows on demand (to 4 GiB) and never shrinks.
double memory_bytes() {
  return static_cast<double>(emscripten_get_heap_size());
}

// One model, its tokenizer, one session and one generator over them. The worker owns exactly one Engine.
class Engine {
 public:
  // --- uploads: the page writes a file or download straight into a buffer in the WASM heap ---------------
  // Returns the buffer's address, or an error: bad-argument for a slot other than 0 or 1, not-a-model or
  // not-a-tokenizer for an empty file, out-of-memory when the heap cannot grow that far.
  val allocate_upload(int slot, double size, const std::string& name) {
    if (slot < 0 || slot > 1)
      return failure(ErrorCode::BadArgument, name, ": upload slot ", slot, " does not exist (0 or 1)");
    uploads_[slot] = Upload{};
    if (!(size >= 1))
      return failure(slot == 0 ? ErrorCode::NotAModel : ErrorCode::NotATokenizer, name,
                     ": the file is empty");
    char mib[32];
    std::snprintf(mib, sizeof mib, "%.1f", size / (1024.0 * 1024.0));
    if (size > 4294967295.0)
      return failure(ErrorCode::OutOfMemory, name, ": ", mib,
                     " MiB is more than the WebAssembly heap can hold (4 GiB)");
    // malloc, not std::vector: when the heap cannot grow it returns null instead of aborting.
    auto* data = static_cast<std::byte*>(std::malloc(static_cast<std::size_t>(size)));
    if (!data)
      return failure(ErrorCode::OutOfMemory, name, ": not enough memory for ", mib,
                     " MiB in the WebAssembly heap");
    uploads_[slot] = Upload{data, static_cast<std::size_t>(size)};
    return val(static_cast<double>(reinterpret_cast<uintptr_t>(data)));
  }

  // Frees an upload slot (a cancelled or failed download), so a later load cannot pick up stale bytes.
  void clear_upload(int slot) {
    if (slot >= 0 && slot <= 1) uploads_[slot] = Upload{};
  }

  // Loads the model from upload slot 0 and, when `tokenizer_name` is not empty, the tokenizer from slot 1;
  // with an empty name the tokenizer comes from the model file itself (GGUF). Takes ownership of the
  // buffers (no copies). On failure the previously loaded model, if any, stays usable.
  val load(const std::string& model_name, const std::string& tokenizer_name) {
    if (!uploads_[0].data)
      return failure(ErrorCode::InvalidState, model_name, ": no bytes were uploaded for the model");
    const bool separate_tokenizer = !tokenizer_name.empty();
    if (separate_tokenizer && !uploads_[1].data)
      return failure(ErrorCode::InvalidState, tokenizer_name, ": no bytes were uploaded for the tokenizer");
    auto model_bytes = uploads_[0].release(model_name);
    std::shared_ptr<const Bytes> tokenizer_bytes;
    if (separate_tokenizer) tokenizer_bytes = uploads_[1].release(tokenizer_name);
    uploads_[1] = Upload{};
    auto loaded = open_model(std::move(model_bytes), std::move(tokenizer_bytes));
    if (!loaded) return failure(loaded.error());
    auto session = Session::create(
        loaded->model, {.threads = 1, .trace_residuals = true, .residual_budget_bytes = kTraceBudgetBytes});
    if (!session) return failure(session.error());

    // The generator refers to the session, the sampler and the tokenizer: it goes first, and comes back last.
    generator_.reset();
    session_.emplace(std::move(*session));
    model_ = std::move(loaded->model);
    tokenizer_ = std::move(loaded->tokenizer);
    generator_.emplace(*session_, sampler_, *tokenizer_);
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
    if (!tokenizer_) return no_model();
    const std::vector<int> list = emscripten::vecFromJSArray<int>(ids);
    val out = val::array();
    for (int id : list)
      out.call<void>("push", bytes_to_js(tokenizer_->valid_id(id) ? tokenizer_->piece(id) : std::string()));
    return out;
  }

  val info() const {
    if (!model_) return no_model();
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
    if (!tokenizer_) return no_model();
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
    if (!tokenizer_) return no_model();
    if (!tokenizer_->valid_id(id))
      return failure(ErrorCode::BadArgument, "token id ", id, " is outside the vocabulary (0..",
                     tokenizer_->vocab_size() - 1, ")");
    return bytes_to_js(tokenizer_->piece(id));
  }

  // The settings the next start() samples with (engine.js fills missing fields from sampler_defaults()).
  // Returns them as the core holds them.
  val set_sampler(double temperature, double top_k, double top_p, double seed) {
    if (!whole_number(top_k, 2147483647.0))
      return failure(ErrorCode::BadArgument, "top-k must be a whole number >= 0 (0 turns it off), found ",
                     top_k);
    if (!whole_number(seed, 9007199254740991.0))  // 2^53 - 1: the largest seed a JS number holds exactly
      return failure(ErrorCode::BadArgument, "the seed must be a whole number from 0 to 2^53 - 1, found ",
                     seed);
    const SamplerSettings settings{.temperature = static_cast<float>(temperature),
                                   .top_k = static_cast<int>(top_k),
                                   .top_p = static_cast<float>(top_p),
                                   .seed = static_cast<uint64_t>(seed)};
    if (auto valid = validate(settings); !valid) return failure(valid.error());
    // A running generation keeps its sampler; the new settings apply from the next start().
    settings_ = settings;
    return sampler_settings_to_js(settings_);
  }

  // Starts a generation from `prompt` (BOS first where the vocabulary asks for it): the generator checks
  // the prompt and the limits (0: none), resets the session, and the sampler starts again from its seed.
  // Returns the prompt's token ids.
  val start(const std::string& prompt, double max_new_tokens, double max_steps) {
    if (!generator_) return no_model();
    if (!whole_number(max_new_tokens, 2147483647.0) || !whole_number(max_steps, 2147483647.0))
      return failure(ErrorCode::BadArgument,
                     "generation limits must be whole numbers >= 0 (0: none), found maxTokens ",
                     max_new_tokens, ", maxSteps ", max_steps);
    sampler_ = Sampler(settings_);  // the same object the generator refers to, with a fresh random sequence
    const GenerationLimits limits{.max_new_tokens = static_cast<int>(max_new_tokens),
                                  .max_steps = static_cast<int>(max_steps)};
    if (auto started = generator_->start_text(prompt, limits); !started) return failure(started.error());
    const std::span<const int> ids = generator_->tokens();
    val result = val::object();
    result.set("ids", array_to_js(std::vector<int32_t>(ids.begin(), ids.end()), "Int32Array"));
    return result;
  }

  // One generation step: {id, bytes, position, end, reason}. `end` is the generator's finished(): nothing
  // follows this token; `reason` is then why (the core's StopReason name), and null while it goes on.
  val step() {
    if (!generator_) return no_model();
    auto token = generator_->next();
    if (!token) return failure(token.error());
    val result = val::object();
    result.set("id", token->id);
    result.set("bytes", bytes_to_js(token->text));
    result.set("position", token->position);
    result.set("end", generator_->finished());
    result.set("reason", reason_to_js());
    return result;
  }

  // Ends the generation at once; step() then fails. Returns the reason it ended with ("stopped", or the
  // earlier reason if it had already ended), null when no generation was started.
  val stop() {
    if (!generator_) return val::null();
    generator_->stop();
    return reason_to_js();
  }

  // Token ids whose attention is in the trace: the prompt and the generated tokens fed back so far (the
  // newest sampled token is not part of it until the next step feeds it).
  val sequence() const {
    if (!generator_) return array_to_js(std::vector<int32_t>(), "Int32Array");
    const std::span<const int> tokens = generator_->tokens();
    const std::size_t traced = std::min(tokens.size(), static_cast<std::size_t>(session_->position()));
    return array_to_js(
        std::vector<int32_t>(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(traced)),
        "Int32Array");
  }

  // Attention over a window of positions [begin, end), recomputed from the residual trace: a row-major
  // [heads][size][size] Float32Array (size = end - begin; keys outside the window are left out, entries above
  // the diagonal are zero), head -1 for all heads of the layer. `stats` holds, per head, the mean entropy in
  // bits, sink and previous-token weight over the window's query rows, each computed over the row's full
  // keys 0..query. Memory: the window, whatever the sequence length.
  val attention(int layer, int head, int begin, int end) {
    if (!session_) return no_model();
    const ModelConfig& c = session_->model().config;
    if (head < -1 || head >= c.n_heads)
      return failure(ErrorCode::BadArgument, "head ", head, " does not exist (0..", c.n_heads - 1,
                     ", or -1 for all)");
    const int first = head < 0 ? 0 : head, last = head < 0 ? c.n_heads : head + 1;
    const auto size = static_cast<std::size_t>(std::max(end - begin, 0));
    matrix_.assign(static_cast<std::size_t>(last - first) * size * size, 0.0f);
    std::vector<HeadStatsAccumulator> stats(static_cast<std::size_t>(last - first));
    const auto rows = session_->attention_rows(
        layer, first, last, begin, end, [&](int h, int query, std::span<const float> row) {
          const auto at = static_cast<std::size_t>(h - first);
          stats[at].add(row);
          float* out = matrix_.data() + at * size * size + static_cast<std::size_t>(query - begin) * size;
          std::copy(row.begin() + begin, row.end(), out);
        });
    if (!rows) return failure(rows.error());
    std::vector<float> numbers;
    for (const HeadStatsAccumulator& acc : stats) {
      const HeadStats s = acc.mean();
      numbers.insert(numbers.end(), {static_cast<float>(s.entropy_bits), static_cast<float>(s.sink),
                                     static_cast<float>(s.previous)});
    }
    val result = val::object();
    result.set("begin", begin);
    result.set("size", static_cast<int>(size));
    result.set("matrix",
               val(emscripten::typed_memory_view(matrix_.size(), matrix_.data())));  // the glue copies it
    result.set("stats", array_to_js(numbers, "Float32Array"));
    return result;
  }

  // What the inspection trace holds and may hold: positions computed, the first one still kept, and its
  // memory (per position, now, and the budget).
  val trace_info() const {
    if (!session_) return no_model();
    const ResidualTrace& r = session_->residual_trace();
    val result = val::object();
    result.set("positions", session_->position());
    result.set("firstKept", std::min(r.first_kept(), session_->position()));
    result.set("bytesPerPosition", static_cast<double>(r.bytes_per_position()));
    result.set("bytesHeld", static_cast<double>(r.bytes_held()));
    result.set("budgetBytes", static_cast<double>(r.budget_bytes()));
    result.set("capacityPositions", static_cast<double>(r.capacity_positions()));
    return result;
  }

  // The k most likely next tokens after the last step: [{id, logit, probability}], probabilities at
  // temperature 1 over the whole vocabulary.
  val top_tokens(int k) const {
    if (!session_) return no_model();
    if (session_->position() == 0)
      return failure(ErrorCode::InvalidState, "nothing has been computed yet: call step() first");
    if (k < 0) return failure(ErrorCode::BadArgument, "k must be >= 0, found ", k);
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

  // Back to position 0 with no generation under way (the trace is cleared too).
  void reset() {
    if (!generator_) return;
    generator_->stop();
    session_->reset();
  }

 private:
  val reason_to_js() const {
    const StopReason reason = generator_->stop_reason();
    return reason == StopReason::None ? val::null() : val(std::string(to_string(reason)));
  }

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
  SamplerSettings settings_;            // what the next start() samples with
  Sampler sampler_{SamplerSettings{}};  // re-seeded from settings_ by each start()
  std::optional<Generator>
      generator_;  // over session_, sampler_ and tokenizer_; declared last, so destroyed first
  std::vector<float> matrix_;
};

EMSCRIPTEN_BINDINGS(glassbox) {
  emscripten::function("version", &module_version);
  emscripten::function("buildDescription", &module_build_description);
  emscripten::function("samplerDefaults", &sampler_defaults);
  emscripten::function("errorCodes", &error_codes);
  emscripten::function("memoryBytes", &memory_bytes);
  emscripten::function("traceBudgetBytes", &trace_budget_bytes);
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
      .function("stop", &Engine::stop)
      .function("sequence", &Engine::sequence)
      .function("attention", &Engine::attention)
      .function("traceInfo", &Engine::trace_info)
      .function("topTokens", &Engine::top_tokens)
      .function("reset", &Engine::reset);
}

}  // namespace glassbox::wasm
