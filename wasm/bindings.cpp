// Embind bindings: the engine as the browser's Web Worker sees it. Everything model-specific lives in the
// core, and so do the generation rules (glassbox::Generator: prompt checks, end conditions, why it stopped);
// this file only moves bytes and numbers across the boundary. Fallible calls return {error, code} (the
// core's message and the stable name of its ErrorCode) instead of throwing, and engine.js turns that into a
// GlassboxError: a C++ exception or a JS throw from inside WASM would skip destructors and leak.
#include <emscripten/bind.h>
#include <emscripten/em_asm.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <algorithm>
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
#include "js_values.hpp"

namespace glassbox::wasm {
namespace {

// One model, its tokenizer, one session and one generator over them. The worker owns exactly one Engine.
class Engine {
 public:
  // `threads`: how many threads each model's session computes with (1 in the single-threaded build,
  // whatever is asked; in the threaded build at most the module's Worker pool + 1).
  explicit Engine(int threads = 1) : threads_(std::max(1, threads)) {}

  int threads() const { return threads_; }

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
    if (size > kLargestUploadBytes)
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
    // The old session goes before the new one is made: its threads return to the module's Worker pool, which
    // holds one session's worth (a thread that cannot start would be a thread fewer). The generator refers to
    // the session, the sampler and the tokenizer: it goes first, and comes back last.
    generator_.reset();
    session_.reset();
    auto session = create_session(loaded->model);
    if (!session) {
      // The model loaded before stays usable, with a fresh session (made once already with these options).
      if (model_) {
        if (auto again = create_session(model_)) {
          session_.emplace(std::move(*again));
          generator_.emplace(*session_, sampler_, *tokenizer_);
        }
      }
      return failure(session.error());
    }
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
    result.set("normPlacement", std::string(to_string(c.norm_placement)));
    result.set("slidingWindow", c.sliding_window);
    val sliding = val::array();
    for (int l = 0; l < c.n_layers; ++l)
      sliding.call<void>("push", c.slides(l));
    result.set("slidingLayers", sliding);
    result.set("parameters", static_cast<double>(model_->parameter_count()));
    result.set("weightBytes", static_cast<double>(model_->weight_bytes()));
    result.set("bosId", tokenizer_->bos_id());
    result.set("eosId", tokenizer_->eos_id());
    result.set("engine", std::string(build_description()));
    result.set("threads", running_threads());
    return result;
  }

  // {ids: Int32Array, begins: Int32Array, ends: Int32Array, pieces: Uint8Array[]}: each token's id, the
  // input byte span it covers, and its vocabulary piece as bytes.
  // With `parse_special` the spellings of special tokens in the text become those tokens (a rendered chat).
  val tokenize(const std::string& text, bool add_bos, bool parse_special) const {
    if (!tokenizer_) return no_model();
    const std::vector<EncodedToken> tokens =
        tokenizer_->encode(text, add_bos, parse_special ? SpecialTokens::Parse : SpecialTokens::AsText);
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

  // What a chat needs of the vocabulary: {template, bosId, eosId, addsBos, endIds, specialIds} (the
  // template's Jinja source, "" when the model has none; whether a prompt starts with BOS; the ids that end a
  // turn; the ids spelled as special tokens).
  val chat_info() const {
    if (!tokenizer_) return no_model();
    std::vector<int32_t> special(tokenizer_->special_ids().begin(), tokenizer_->special_ids().end());
    std::sort(special.begin(), special.end());
    const std::vector<int> ends = tokenizer_->end_ids();
    val result = val::object();
    result.set("template", tokenizer_->chat_template());
    result.set("bosId", tokenizer_->bos_id());
    result.set("eosId", tokenizer_->eos_id());
    result.set("addsBos", tokenizer_->adds_bos());
    result.set("endIds", array_to_js(std::vector<int32_t>(ends.begin(), ends.end()), "Int32Array"));
    result.set("specialIds", array_to_js(special, "Int32Array"));
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

  // Starts a conversation's next turn from token ids (a chat rendered and tokenized with special tokens):
  // Generator::extend keeps the positions the session already ran when the ids extend them. Returns
  // {ids, kept}: the ids and how many positions were kept.
  val start_tokens(const val& prompt, double max_new_tokens, double max_steps) {
    if (!generator_) return no_model();
    if (!whole_number(max_new_tokens, 2147483647.0) || !whole_number(max_steps, 2147483647.0))
      return failure(ErrorCode::BadArgument,
                     "generation limits must be whole numbers >= 0 (0: none), found maxTokens ",
                     max_new_tokens, ", maxSteps ", max_steps);
    const std::vector<int> ids = emscripten::vecFromJSArray<int>(prompt);
    sampler_ = Sampler(settings_);
    const GenerationLimits limits{.max_new_tokens = static_cast<int>(max_new_tokens),
                                  .max_steps = static_cast<int>(max_steps)};
    auto kept = generator_->extend(ids, limits);
    if (!kept) return failure(kept.error());
    val result = val::object();
    result.set("ids", array_to_js(std::vector<int32_t>(ids.begin(), ids.end()), "Int32Array"));
    result.set("kept", *kept);
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
    // Where each query row's visible keys begin (the core's sliding-window rule; 0 on a global layer), so
    // that the page draws a window's mask as a mask rather than as weights of zero.
    std::vector<int> first_visible;
    for (int query = begin; query < begin + static_cast<int>(size); ++query)
      first_visible.push_back(c.first_visible_key(layer, query));
    result.set("firstVisible", array_to_js(first_visible, "Int32Array"));
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
    if (auto not_yet = no_logits_yet()) return *not_yet;
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

  // --- see inside, part 2: head statistics and roles, head ablation, positions, anatomy ------------------
  // Head statistics are measured in a session of their own (one thread, so the threaded build's Worker pool
  // is not asked for more), never in the generation's: measuring leaves the text, the trace and the
  // generator as they were. measureHeads() is the core's measure_heads in one call; measureBegin() and
  // measureStep() compute the same numbers one head per call (the SVD of the effective rank costs tens of
  // milliseconds a head), so the worker can report progress and answer other requests in between.

  // The core's measure_heads over `ids` with the tokenizer's induction probe: {heads, roles}.
  val measure_heads_all(const val& ids) const {
    if (!model_) return no_model();
    const std::vector<int> tokens = emscripten::vecFromJSArray<int>(ids);
    auto reports = measure_heads(*model_, tokens, {.threads = 1, .probe = induction_probe_for(*tokenizer_)});
    if (!reports) return failure(reports.error());
    return head_reports_to_js(*reports);
  }

  // Starts measuring every head over `ids`: runs them through a private session. {total}: the steps
  // measureStep() takes (one per head, then one for the induction probe).
  val measure_begin(const val& ids) {
    if (!model_) return no_model();
    measuring_.reset();
    const std::vector<int> tokens = emscripten::vecFromJSArray<int>(ids);
    const ModelConfig& c = model_->config;
    if (tokens.empty()) return failure(ErrorCode::BadArgument, "measure heads: no tokens");
    const int n = static_cast<int>(tokens.size());
    if (n > c.max_seq_len)
      return failure(ErrorCode::PromptTooLong, "measure heads: ", n, " tokens exceed the model's context of ",
                     c.max_seq_len);
    Measuring m{.model = model_, .probe = induction_probe_for(*tokenizer_), .tokens = tokens};
    const int probe_positions = static_cast<int>(m.probe.prefix.size()) + 2 * m.probe.length;
    auto session =
        Session::create(model_, {.threads = 1,
                                 .context_length = std::min(c.max_seq_len, std::max(n, probe_positions)),
                                 .trace_residuals = true});
    if (!session) return failure(session.error());
    m.session.emplace(std::move(*session));
    if (auto read = m.session->prefill(tokens); !read) return failure(read.error());
    measuring_.emplace(std::move(m));
    val result = val::object();
    result.set("total", c.n_layers * c.n_heads + 1);
    return result;
  }

  // One step of the measurement begun by measureBegin(): {done, completed, total}, with {heads, roles} when
  // done. Each head's numbers as measure_heads computes them: the statistics over every row, the effective
  // rank of the last kRankWindow positions, then the induction probe for all heads at once.
  val measure_step() {
    if (!measuring_) return failure(ErrorCode::InvalidState, "measure heads: measureBegin() was not called");
    Measuring& m = *measuring_;
    const ModelConfig& c = m.model->config;
    const int heads = c.n_layers * c.n_heads;
    const int n = static_cast<int>(m.tokens.size());
    if (m.next < heads) {
      const int layer = m.next / c.n_heads, head = m.next % c.n_heads;
      const int window = std::min(n, kRankWindow), window_start = n - window;
      HeadStatsAccumulator stats;
      std::vector<float> rows(static_cast<std::size_t>(window) * static_cast<std::size_t>(window), 0.0f);
      auto read = m.session->attention_rows(
          layer, head, head + 1, 0, n, [&](int, int query, std::span<const float> row) {
            stats.add(row);
            if (query < window_start) return;
            std::copy(row.begin() + window_start, row.end(),
                      rows.begin() + static_cast<std::ptrdiff_t>(query - window_start) * window);
          });
      if (!read) {
        measuring_.reset();
        return failure(read.error());
      }
      m.reports.push_back(head_report(layer, head, stats.mean(), effective_rank(rows, window)));
      ++m.next;
      val result = val::object();
      result.set("done", false);
      result.set("completed", m.next);
      result.set("total", heads + 1);
      return result;
    }
    auto induction = induction_scores(*m.session, m.probe);
    if (!induction) {
      measuring_.reset();
      return failure(induction.error());
    }
    for (std::size_t i = 0; i < m.reports.size(); ++i) {
      HeadReport& r = m.reports[i];
      r.induction = (*induction)[i];
      r.role = classify_head({.entropy_bits = r.entropy_bits,
                              .sink = r.sink,
                              .previous = r.previous_token,
                              .local = r.local,
                              .uniform_entropy_bits = r.uniform_entropy_bits},
                             r.induction);
    }
    val result = head_reports_to_js(m.reports);
    result.set("done", true);
    result.set("completed", heads + 1);
    result.set("total", heads + 1);
    measuring_.reset();
    return result;
  }

  // Ablation: `scales` ([layer * heads + head], 0 = off) multiply the heads' outputs in the generation's own
  // session, which reads its tokens again so that the trace (and every view) shows the ablated run, and so
  // does the next generation, until clearAblation(). Returns how the next-token distribution at the last
  // position changed (the core's compare_distributions, against the run without any ablation).
  val ablate(const val& scale_list) {
    if (!session_) return no_model();
    const std::vector<float> scales = emscripten::vecFromJSArray<float>(scale_list);
    const std::vector<int> tokens = traced_tokens();
    if (tokens.empty())
      return failure(ErrorCode::InvalidState, "nothing has been computed yet: generate some text first");
    if (auto valid = head_scale_check(scales); !valid) return failure(valid.error());
    generator_->stop();
    if (!session_->head_scales().empty()) {
      if (auto ok = session_->set_head_scales({}); !ok) return failure(ok.error());
      if (auto again = read_again(tokens); !again) return failure(again.error());
    }
    const std::vector<float> before(session_->logits().begin(), session_->logits().end());
    if (auto ok = session_->set_head_scales(scales); !ok) return failure(ok.error());
    if (auto again = read_again(tokens); !again) return failure(again.error());
    auto change = compare_distributions(before, session_->logits());
    if (!change) return failure(change.error());
    val result = val::object();
    result.set("position", static_cast<int>(tokens.size()) - 1);
    result.set("klBits", change->kl_bits);
    result.set("topBefore", change->top_before);
    result.set("pTopBefore", change->p_top_before);
    result.set("qTopBefore", change->q_top_before);
    result.set("topAfter", change->top_after);
    result.set("qTopAfter", change->q_top_after);
    return result;
  }

  // Every head as trained again; the tokens are read again without the ablation. Returns whether one was on.
  val clear_ablation() {
    if (!session_) return no_model();
    if (session_->head_scales().empty()) return val(false);
    generator_->stop();
    if (auto ok = session_->set_head_scales({}); !ok) return failure(ok.error());
    if (const std::vector<int> tokens = traced_tokens(); !tokens.empty())
      if (auto again = read_again(tokens); !again) return failure(again.error());
    return val(true);
  }

  // The ablation's table as the session holds it (empty: none).
  val head_scales() const {
    if (!session_) return no_model();
    const std::span<const float> s = session_->head_scales();
    return array_to_js(std::vector<float>(s.begin(), s.end()), "Float32Array");
  }

  // How the model encodes positions: {kind, theta, rotaryDim, headDim, pairing, dim, maxSeqLen, freqFactors,
  // qkNorm, slidingWindow, slidingLayers, thetaSliding}.
  val position_info() const {
    if (!model_) return no_model();
    const ModelConfig& c = model_->config;
    val result = val::object();
    result.set("kind", std::string(to_string(c.position)));
    result.set("theta", float_to_js(c.rope_theta));
    result.set("rotaryDim", c.rotary_dim());
    result.set("headDim", c.head_dim);
    result.set("pairing", std::string(to_string(c.rope_pairing)));
    result.set("dim", c.dim);
    result.set("maxSeqLen", c.max_seq_len);
    result.set("freqFactors", array_to_js(c.rope_freq_factors, "Float32Array"));
    result.set("qkNorm", c.qk_norm);
    int sliding = 0;
    for (int l = 0; l < c.n_layers; ++l)
      sliding += c.slides(l) ? 1 : 0;
    result.set("slidingWindow", c.sliding_window);
    result.set("slidingLayers", sliding);
    result.set("thetaSliding",
               float_to_js(c.rope_theta_sliding > 0.0f ? c.rope_theta_sliding : c.rope_theta));
    return result;
  }

  // RoPE's angle for every pair at `position` in `layer` (radians, not reduced; layer -1: a global one): a
  // Float64Array of rotaryDim / 2.
  val rope_angles(int position, int layer) const {
    if (!model_) return no_model();
    const ModelConfig& c = model_->config;
    if (c.position != PositionKind::RoPE)
      return failure(ErrorCode::BadArgument, "the model's positions are ", to_string(c.position),
                     ", not rope");
    if (position < 0 || position > 1 << 20)
      return failure(ErrorCode::BadArgument, "position ", position, " is outside 0..", 1 << 20);
    std::vector<double> angles;
    for (int pair = 0; pair < c.rotary_dim() / 2; ++pair)
      angles.push_back(rope_angle(c, pair, position, layer));
    return array_to_js(angles, "Float64Array");
  }

  // q · k rotated to every pair of positions (glassbox/positions.hpp): [m][n], a Float32Array positions^2.
  val rope_dots(const val& q_list, const val& k_list, int positions, int layer) const {
    if (!model_) return no_model();
    const std::vector<float> q = emscripten::vecFromJSArray<float>(q_list);
    const std::vector<float> k = emscripten::vecFromJSArray<float>(k_list);
    auto dots = rope_dot_products(model_->config, q, k, positions, layer);
    if (!dots) return failure(dots.error());
    return array_to_js(*dots, "Float32Array");
  }

  // One head's query vector at `position` before RoPE turned it (Session::attention_detail), head_dim values.
  val head_query(int layer, int head, int position) const {
    if (!session_) return no_model();
    auto detail = session_->attention_detail(layer, head, position);
    if (!detail) return failure(detail.error());
    return array_to_js(detail->query_unrotated, "Float32Array");
  }

  // Parameters and bytes per component, and bytes read per token (glassbox/anatomy.hpp).
  val anatomy() const {
    if (!model_) return no_model();
    const ModelAnatomy a = model_anatomy(*model_);
    val components = val::object();
    const auto put = [&](const char* name, const ComponentSize& size) {
      val entry = val::object();
      entry.set("parameters", static_cast<double>(size.parameters));
      entry.set("bytes", static_cast<double>(size.bytes));
      components.set(name, entry);
    };
    put("tokenEmbedding", a.token_embedding);
    put("positionEmbedding", a.position_embedding);
    put("attentionQ", a.attention_q);
    put("attentionK", a.attention_k);
    put("attentionV", a.attention_v);
    put("attentionO", a.attention_o);
    put("feedForward", a.feed_forward);
    put("norms", a.norms);
    put("biases", a.biases);
    put("output", a.output);
    val result = val::object();
    result.set("components", components);
    result.set("parameters", static_cast<double>(a.total.parameters));
    result.set("bytes", static_cast<double>(a.total.bytes));
    result.set("bytesReadPerToken", static_cast<double>(a.bytes_read_per_token));
    return result;
  }

  // FLOPs of one token at position sequenceLength - 1, by part.
  val flops(int sequence_length) const {
    if (!model_) return no_model();
    if (sequence_length < 1 || sequence_length > 1 << 24)
      return failure(ErrorCode::BadArgument, "sequence length ", sequence_length, " is outside 1..", 1 << 24);
    const TokenFlops f = flops_per_token(model_->config, sequence_length);
    val result = val::object();
    result.set("sequenceLength", sequence_length);
    result.set("attentionProjections", static_cast<double>(f.attention_projections));
    result.set("attentionScores", static_cast<double>(f.attention_scores));
    result.set("feedForward", static_cast<double>(f.feed_forward));
    result.set("output", static_cast<double>(f.output));
    result.set("total", static_cast<double>(f.total));
    return result;
  }

  // --- see inside, part 1: the sampling pipeline, attention step by step, the logit lens, export ----------

  // The sampler's pipeline over the logits the newest token was drawn from (glassbox/sampling_pipeline.hpp),
  // with the settings of the generation under way: {vocabSize, topKKept, topPKept, tokens: [{id, logit,
  // pTemperature1, pTemperature, pTopK, pTopP, keptByTopK, keptByTopP}]}, the `top_n` highest logits first.
  val sampling_pipeline_at_last(int top_n) const {
    if (auto not_yet = no_logits_yet()) return *not_yet;
    if (top_n < 0) return failure(ErrorCode::BadArgument, "top_n must be >= 0, found ", top_n);
    const SamplingPipeline p = sampling_pipeline(session_->logits(), sampler_.settings(), top_n);
    val tokens = val::array();
    for (const PipelineToken& t : p.tokens) {
      val entry = val::object();
      entry.set("id", t.id);
      entry.set("logit", t.logit);
      entry.set("pTemperature1", t.p_temperature_1);
      entry.set("pTemperature", t.p_temperature);
      entry.set("pTopK", t.p_top_k);
      entry.set("pTopP", t.p_top_p);
      entry.set("keptByTopK", t.kept_by_top_k);
      entry.set("keptByTopP", t.kept_by_top_p);
      tokens.call<void>("push", entry);
    }
    val result = val::object();
    result.set("vocabSize", p.vocab_size);
    result.set("topKKept", p.top_k_kept);
    result.set("topPKept", p.top_p_kept);
    result.set("tokens", tokens);
    return result;
  }

  // One head's attention at one query with every number of the formula (Session::attention_detail): the
  // same floats the forward pass used. Arrays are Float32Array; keyRows and valueRows are [keys][headDim].
  val attention_step_by_step(int layer, int head, int query) const {
    if (!session_) return no_model();
    auto d = session_->attention_detail(layer, head, query);
    if (!d) return failure(d.error());
    val result = val::object();
    result.set("layer", d->layer);
    result.set("head", d->head);
    result.set("query", d->query);
    result.set("kvHead", d->kv_head);
    result.set("headDim", d->head_dim);
    result.set("keys", d->keys);
    result.set("firstVisibleKey", d->first_visible_key);
    result.set("scale", d->scale);
    result.set("headScale", d->head_scale);
    result.set("queryUnrotated", array_to_js(d->query_unrotated, "Float32Array"));
    result.set("q", array_to_js(d->q, "Float32Array"));
    result.set("ropeAngles", array_to_js(d->rope_angles, "Float32Array"));
    result.set("keyRows", array_to_js(d->key_rows, "Float32Array"));
    result.set("dots", array_to_js(d->dots, "Float32Array"));
    result.set("scores", array_to_js(d->scores, "Float32Array"));
    result.set("probabilities", array_to_js(d->probabilities, "Float32Array"));
    result.set("valueRows", array_to_js(d->value_rows, "Float32Array"));
    result.set("output", array_to_js(d->output, "Float32Array"));
    return result;
  }

  // The logit lens over positions [begin, end): for every layer 0..n_layers (n_layers: the model's own
  // logits) and position, the `k` most likely next tokens. {layers: n_layers + 1, begin, size, k, ids:
  // Int32Array, probabilities: Float32Array, logits: Float32Array}, each [layer][position][k].
  val logit_lens(int begin, int end, int k) const {
    if (!session_) return no_model();
    const ModelConfig& c = session_->model().config;
    if (begin < 0 || end < begin || end > session_->position())
      return failure(ErrorCode::BadArgument, "logit lens: positions ", begin, "..", end, " are outside 0..",
                     session_->position());
    if (k < 1 || k > c.vocab_size)
      return failure(ErrorCode::BadArgument, "logit lens: k must be 1..", c.vocab_size, ", found ", k);
    std::vector<float> logits(static_cast<std::size_t>(c.vocab_size));
    std::vector<int32_t> ids;
    std::vector<float> probabilities, top_logits;
    for (int layer = 0; layer <= c.n_layers; ++layer)
      for (int position = begin; position < end; ++position) {
        if (auto ok = session_->layer_logits(layer, position, logits); !ok) return failure(ok.error());
        for (const TokenProbability& t : glassbox::top_tokens(logits, k)) {
          ids.push_back(t.id);
          probabilities.push_back(t.probability);
          top_logits.push_back(t.logit);
        }
      }
    val result = val::object();
    result.set("layers", c.n_layers + 1);
    result.set("begin", begin);
    result.set("size", end - begin);
    result.set("k", k);
    result.set("ids", array_to_js(ids, "Int32Array"));
    result.set("probabilities", array_to_js(probabilities, "Float32Array"));
    result.set("logits", array_to_js(top_logits, "Float32Array"));
    return result;
  }

  // The inspection document of `glassbox inspect --json` (glassbox/inspection.hpp) for `prompt` and `steps`
  // sampled tokens, with the sampler settings of setSampler() and the session's ablation. Computed in a
  // session of its own: the generation, its trace and its text stay as they were.
  val inspect_document(const std::string& prompt, int steps, int candidates) const {
    if (!model_) return no_model();
    InspectOptions options{.steps = steps, .sampler = settings_, .candidates = candidates};
    const ModelConfig& c = model_->config;
    const std::span<const float> scales = session_->head_scales();
    for (int i = 0; i < static_cast<int>(scales.size()); ++i)
      if (scales[static_cast<std::size_t>(i)] != 1.0f)
        options.ablate.push_back(
            {.layer = i / c.n_heads, .head = i % c.n_heads, .scale = scales[static_cast<std::size_t>(i)]});
    auto document = inspect_json(model_, *tokenizer_, prompt, options);
    if (!document) return failure(document.error());
    return val(*document);
  }

 private:
  Result<Session> create_session(std::shared_ptr<const Model> model) const {
    return Session::create(
        std::move(model),
        {.threads = threads_, .trace_residuals = true, .residual_budget_bytes = kTraceBudgetBytes});
  }

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

  // Why there are no next-token logits to read (no model, or no step computed yet); nothing when there are.
  std::optional<val> no_logits_yet() const {
    if (!session_) return no_model();
    if (session_->position() == 0)
      return failure(ErrorCode::InvalidState, "nothing has been computed yet: call step() first");
    return std::nullopt;
  }

  // --- see inside, part 2 (private) ---
  struct Measuring {
    std::shared_ptr<const Model> model;  // the model measured (a load meanwhile does not change it)
    InductionProbe probe;
    std::vector<int> tokens;
    std::optional<Session> session;
    std::vector<HeadReport> reports;
    int next = 0;  // layer * n_heads + head of the next head to measure
  };

  static val head_reports_to_js(const std::vector<HeadReport>& reports) {
    val heads = val::array();
    for (const HeadReport& h : reports) {
      val entry = val::object();
      entry.set("layer", h.layer);
      entry.set("head", h.head);
      entry.set("entropyBits", h.entropy_bits);
      entry.set("uniformEntropyBits", h.uniform_entropy_bits);
      entry.set("sink", h.sink);
      entry.set("previousToken", h.previous_token);
      entry.set("local", h.local);
      entry.set("effectiveRank", h.effective_rank);
      entry.set("induction", h.induction);
      entry.set("role", std::string(to_string(h.role)));
      heads.call<void>("push", entry);
    }
    const RoleCounts counts = summarize_roles(reports);
    val roles = val::object();
    for (int r = 0; r < kHeadRoleCount; ++r)
      roles.set(to_string(static_cast<HeadRole>(r)), counts.counts[static_cast<std::size_t>(r)]);
    val result = val::object();
    result.set("heads", heads);
    result.set("roles", roles);
    return result;
  }

  // The tokens the session has read: the prompt and the generated tokens fed back so far.
  std::vector<int> traced_tokens() const {
    if (!generator_) return {};
    const std::span<const int> tokens = generator_->tokens();
    const std::size_t traced = std::min(tokens.size(), static_cast<std::size_t>(session_->position()));
    return {tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(traced)};
  }

  // A table's length and values, checked before anything changes.
  Result<void> head_scale_check(const std::vector<float>& scales) const {
    const ModelConfig& c = model_->config;
    if (scales.size() != static_cast<std::size_t>(c.n_layers) * static_cast<std::size_t>(c.n_heads))
      return error(ErrorCode::BadArgument, "head scales: ", scales.size(), " values for a model of ",
                   c.n_layers, " layers x ", c.n_heads, " heads");
    for (float s : scales)
      if (!std::isfinite(s)) return error(ErrorCode::BadArgument, "head scales: ", s, " is not finite");
    return {};
  }

  // The session reads `tokens` again from position 0 (with its current head scales).
  Result<void> read_again(const std::vector<int>& tokens) {
    session_->reset();
    GLASSBOX_TRY(session_->prefill(tokens));
    return {};
  }

  std::optional<Measuring> measuring_;  // a measurement begun by measureBegin()

  int threads_ = 1;
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

}  // namespace

EMSCRIPTEN_BINDINGS(glassbox_engine) {
  emscripten::class_<Engine>("Engine")
      .constructor<>()
      .constructor<int>()
      .function("threads", &Engine::threads)
      .function("allocateUpload", &Engine::allocate_upload)
      .function("clearUpload", &Engine::clear_upload)
      .function("load", &Engine::load)
      .function("formats", &Engine::formats)
      .function("pieces", &Engine::pieces)
      .function("info", &Engine::info)
      .function("tokenize", &Engine::tokenize)
      .function("piece", &Engine::piece)
      .function("chatInfo", &Engine::chat_info)
      .function("startTokens", &Engine::start_tokens)
      .function("setSampler", &Engine::set_sampler)
      .function("start", &Engine::start)
      .function("step", &Engine::step)
      .function("stop", &Engine::stop)
      .function("sequence", &Engine::sequence)
      .function("attention", &Engine::attention)
      .function("traceInfo", &Engine::trace_info)
      .function("topTokens", &Engine::top_tokens)
      .function("reset", &Engine::reset)
      // see inside, part 2
      .function("measureHeads", &Engine::measure_heads_all)
      .function("measureBegin", &Engine::measure_begin)
      .function("measureStep", &Engine::measure_step)
      .function("ablate", &Engine::ablate)
      .function("clearAblation", &Engine::clear_ablation)
      .function("headScales", &Engine::head_scales)
      .function("positionInfo", &Engine::position_info)
      .function("ropeAngles", &Engine::rope_angles)
      .function("ropeDots", &Engine::rope_dots)
      .function("headQuery", &Engine::head_query)
      .function("anatomy", &Engine::anatomy)
      .function("flops", &Engine::flops)
      .function("samplingPipeline", &Engine::sampling_pipeline_at_last)
      .function("attentionDetail", &Engine::attention_step_by_step)
      .function("logitLens", &Engine::logit_lens)
      .function("inspectJson", &Engine::inspect_document);
}

}  // namespace glassbox::wasm
