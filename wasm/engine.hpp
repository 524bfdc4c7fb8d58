// The Engine the page's Web Worker holds: one model, its tokenizer, one session and one generator over them,
// and the state of a head measurement under way. Its methods are the JS API's (wasm/engine.d.ts), defined by
// feature in the bind_*.cpp files and registered with Embind in bindings.cpp. They convert JS values to the
// core's and back, and nothing else: every rule is the core's (glassbox/*.hpp). Fallible calls return
// {error, code} (js_values.hpp) instead of throwing; engine.js turns that into a GlassboxError.
#pragma once

#include <emscripten/val.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glassbox/glassbox.hpp"
#include "glassbox/train.hpp"
#include "js_values.hpp"

namespace glassbox::wasm {

class Engine {
 public:
  // `threads`: how many threads each model's session computes with (1 in the single-threaded build,
  // whatever is asked; in the threaded build at most the module's Worker pool + 1).
  explicit Engine(int threads = 1) : threads_(std::max(1, threads)) {}
  int threads() const { return threads_; }

  // Threads per pass (bind_threads.cpp): the rule's choice and why, and the user's setting.
  val thread_choice(double tokens) const;
  val set_threads(double count, bool automatic);

  // The model (bind_model.cpp): uploads into the heap, loading, what the model is.
  val allocate_upload(int slot, double size, const std::string& name);
  void clear_upload(int slot);
  val load(const std::string& model_name, const std::string& tokenizer_name);
  val formats() const;
  val info() const;

  // An encoder's tasks (bind_encoder.cpp): sentence embeddings and their similarities, fill-mask.
  val embed(const val& texts, const std::string& pooling, bool normalize);
  val fill_mask(const std::string& text, int top_k);
  val encoder_attention(const val& texts, bool parse_special, int index);
  val set_encoder_head_scales(const val& scale_list);

  // The vocabulary (bind_tokenizer.cpp).
  val pieces(const val& ids) const;
  val tokenize(const std::string& text, bool add_bos, bool parse_special) const;
  val chat_info() const;
  val piece(int id) const;

  // Generation (bind_generation.cpp).
  val set_sampler(double temperature, double top_k, double top_p, double seed);
  val start(const std::string& prompt, double max_new_tokens, double max_steps);
  val start_tokens(const val& prompt, double max_new_tokens, double max_steps);
  val step();
  val stop();
  val sequence() const;
  void reset();

  // Attention and the next-token distribution, read from the generation's trace (bind_attention.cpp).
  val attention(int layer, int head, int begin, int end);
  val trace_info() const;
  val top_tokens(int k) const;
  val sampling_pipeline_at_last(int top_n) const;
  val attention_step_by_step(int layer, int head, int query) const;
  val logit_lens(int begin, int end, int k) const;
  val residual_norms(int begin, int end) const;

  // Heads: their statistics and roles, and ablation (bind_heads.cpp).
  val measure_heads_all(const val& ids) const;
  val measure_begin(const val& ids);
  val measure_step();
  val ablate(const val& scale_list, int position, const val& mean_list);
  val clear_ablation();
  val head_scales() const;

  // Positions: how the model encodes them (bind_positions.cpp).
  val position_info() const;
  val rope_angles(int position, int layer) const;
  val rope_dots(const val& q_list, const val& k_list, int positions, int layer) const;
  val head_query(int layer, int head, int position) const;

  // The attention lab: exact attention against an approximation on the same text (bind_attention_lab.cpp).
  val attention_lab(const val& ids, const std::string& variant, const val& options) const;

  // Circuits (bind_circuits.cpp): direct logit attribution, activation patching a few cells at a time.
  val logit_attribution(int position, int token, int baseline) const;
  val patch_begin(const val& clean, const val& corrupt, int target);
  val patch_step(int cells);
  void patch_cancel();

  // Neurons (bind_neurons.cpp): a layer's most active feed-forward neurons at a position.
  val top_neurons(const val& ids, int layer, int position, int k, int per_neuron) const;

  // Training (bind_train.cpp): a synthetic task's text, a run stepped one step per call, its held-out loss,
  // induction scores and GGUF bytes.
  val synthetic_task(const val& options) const;
  val train_begin(const std::string& config, const std::string& data, const val& options);
  val train_step();
  val train_held_out(const std::string& text) const;
  val train_induction() const;
  val train_gguf(const std::string& name) const;
  void train_end();

  // The model's anatomy and cost, and the CLI's inspection document (bind_inspect.cpp).
  val anatomy() const;
  val flops(int sequence_length) const;
  val inspect_document(const std::string& prompt, int steps, int candidates) const;

  // Cost against length: the variants measured, one measured point (bind_length_cost.cpp).
  val length_cost_plan() const;
  val length_cost(const std::string& attention, int length, int repeat) const;

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

  Result<Session> create_session(std::shared_ptr<const Model> model) const;
  // Makes what runs `model` (a session and a generator for a decoder, an Encoder for an encoder) and keeps
  // the model and tokenizer; what ran before must be gone (its threads are back in the module's pool).
  Result<void> start_running(std::shared_ptr<const Model> model, std::shared_ptr<const Tokenizer> tokenizer);
  // Why a session's call cannot run: no model, or the core's refusal of an encoder (use embed or fill-mask).
  val no_session() const;
  val reason_to_js() const;
  // The tokens the session has read: the prompt and the generated tokens fed back so far.
  std::vector<int> traced_tokens() const;
  // Why there are no next-token logits to read (no model, or no step computed yet); nothing when there are.
  std::optional<val> no_logits_yet() const;

  int threads_ = 1;
  // Auto (the rule picks per pass, at most `count`) unless the user chose a count; count 0: all threads_.
  struct ThreadSetting {
    int count = 0;
    bool automatic = true;
  } thread_setting_;
  Upload uploads_[2];
  std::shared_ptr<const Model> model_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::optional<Session> session_;                    // a decoder's; empty while an encoder is loaded
  std::optional<Encoder> encoder_;                    // an encoder's; empty while a decoder is loaded
  SamplerSettings settings_;                          // what the next start() samples with
  Sampler sampler_{SamplerSettings{}};                // re-seeded from settings_ by each start()
  std::optional<HeadMeasurement> measuring_;          // a measurement begun by measureBegin()
  std::optional<PatchingJob> patching_;               // activation patching begun by patchBegin()
  std::optional<Trainer> trainer_;                    // a training run begun by trainBegin()
  std::shared_ptr<const Tokenizer> train_tokenizer_;  // the run's (the model loaded when it began)
  std::vector<float> matrix_;  // attention()'s window, handed to JS as a view and copied there
  // Over session_, sampler_ and tokenizer_; declared last, so destroyed first.
  std::optional<Generator> generator_;
};

}  // namespace glassbox::wasm
