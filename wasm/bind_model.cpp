// The Engine's model: uploads written straight into the WASM heap, loading, and what the model is.
#include <cstdint>
#include <cstdio>

#include "engine.hpp"

namespace glassbox::wasm {

// Returns the buffer's address, or an error: bad-argument for a slot other than 0 or 1, not-a-model or
// not-a-tokenizer for an empty file, out-of-memory when the heap cannot grow that far.
val Engine::allocate_upload(int slot, double size, const std::string& name) {
  if (slot < 0 || slot > 1)
    return failure(ErrorCode::BadArgument, name, ": upload slot ", slot, " does not exist (0 or 1)");
  uploads_[slot] = Upload{};
  if (!(size >= 1))
    return failure(slot == 0 ? ErrorCode::NotAModel : ErrorCode::NotATokenizer, name, ": the file is empty");
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
void Engine::clear_upload(int slot) {
  if (slot >= 0 && slot <= 1) uploads_[slot] = Upload{};
}

// Loads the model from upload slot 0 and, when `tokenizer_name` is not empty, the tokenizer from slot 1;
// with an empty name the tokenizer comes from the model file itself (GGUF). Takes ownership of the buffers
// (no copies). On failure the previously loaded model, if any, stays usable.
val Engine::load(const std::string& model_name, const std::string& tokenizer_name) {
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
  // What ran the old model goes before the new one is made: its threads return to the module's Worker pool,
  // which holds one session's worth (a thread that cannot start would be a thread fewer). The generator
  // refers to the session, the sampler and the tokenizer: it goes first, and comes back last.
  generator_.reset();
  session_.reset();
  encoder_.reset();
  if (auto started = start_running(std::move(loaded->model), std::move(loaded->tokenizer)); !started) {
    // The model loaded before stays usable, run afresh (it was started once already with these options).
    if (model_) (void)start_running(model_, tokenizer_);
    return failure(started.error());
  }
  return info();
}

Result<void> Engine::start_running(std::shared_ptr<const Model> model,
                                   std::shared_ptr<const Tokenizer> tokenizer) {
  if (model->config.causal) {
    GLASSBOX_ASSIGN(Session session, create_session(model));
    session_.emplace(std::move(session));
  } else {
    GLASSBOX_ASSIGN(Encoder encoder, Encoder::create(model, {.threads = threads_}));
    encoder_.emplace(std::move(encoder));
  }
  model_ = std::move(model);
  tokenizer_ = std::move(tokenizer);
  if (session_) generator_.emplace(*session_, sampler_, *tokenizer_);
  return ok();
}

val Engine::no_session() const {
  if (model_ && encoder_) return failure(create_session(model_).error());
  return no_model();
}

Result<Session> Engine::create_session(std::shared_ptr<const Model> model) const {
  GLASSBOX_ASSIGN(Session session,
                  Session::create(std::move(model), {.threads = threads_,
                                                     .auto_threads = true,
                                                     .trace_residuals = true,
                                                     .residual_budget_bytes = kTraceBudgetBytes}));
  // The page's thread setting (bind_threads.cpp); by default each pass uses the threads that pay for it.
  session.use_threads(thread_setting_.count > 0 ? thread_setting_.count : threads_,
                      thread_setting_.automatic);
  return session;
}

// The model formats this build reads.
val Engine::formats() const {
  val list = val::array();
  for (const char* f : {"llama2c", "gguf"})
    list.call<void>("push", std::string(f));
  return list;
}

val Engine::info() const {
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
  result.set("contextLength", session_ ? session_->context_length() : c.max_seq_len);
  // An encoder reads whole texts: the page offers fill-mask (where the file has the MLM head and the
  // vocabulary a [MASK]) and sentence similarity instead of generation.
  result.set("encoder", !c.causal);
  result.set("maskedLm", encoder_ && encoder_->has_masked_lm_head() && tokenizer_->mask_id() >= 0);
  result.set("pooling", std::string(to_string(c.pooling)));
  result.set("normalizeEmbedding", c.normalize_embedding);
  result.set("norm", std::string(to_string(c.norm)));
  result.set("position", std::string(to_string(c.position)));
  result.set("activation", std::string(to_string(c.activation)));
  result.set("gatedFfn", c.gated_ffn);
  result.set("tiedEmbeddings", c.tied_embeddings);
  result.set("normPlacement", std::string(to_string(c.norm_placement)));
  result.set("finalNorm", model_->weights.final_norm.present());
  result.set("qkNorm", c.qk_norm);
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

}  // namespace glassbox::wasm
