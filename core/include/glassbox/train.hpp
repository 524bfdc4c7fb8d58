// Training a model on text: `glassbox train` and whoever else trains call this. A Trainer holds the
// weights (F32), AdamW's state and the data; each step() reads a batch of packed rows, computes the loss and
// the gradient of every weight (train/model_gradients.hpp: Llama- and GPT-2-architecture models), clips the
// gradients' global norm, and applies one AdamW update at the step's learning rate (warmup, then cosine or
// constant).
//
// Determinism: the same data, settings and seed give the same weights bit for bit, and so does any thread
// count: threads split a batch's rows, each row's gradient is computed alone, and the rows' gradients are
// summed in row order whatever thread computed them (tests/train_trainer_test.cpp checks 1 against 3).
//
// The loss a step reports is the mean negative log-probability of the batch's predicted tokens as
// score_tokens computes it (the one statement of the loss; rows' token counts weight them): with one line of
// data and batch 1, step 0 reports exactly `glassbox score`'s loss for that line. (For a quantized model,
// the score of its dequantized weights: the quantized model's own products round x to 8 bits where its
// weights have integer kernels, which moves stories260K-Q8_0's loss by 5.5e-3.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/config.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox {

enum class LearningRateShape { Cosine, Constant };

// The defaults are the CLI's.
struct TrainingSettings {
  int steps = 100;
  int batch = 4;                // rows per step (train/training_data.hpp: each row packs whole lines)
  int context = 0;              // tokens per row; 0: the model's context
  double learning_rate = 1e-3;  // the peak
  int warmup = 0;               // steps of linear warmup
  LearningRateShape schedule = LearningRateShape::Cosine;  // after the warmup, down to 0 at the last step
  double weight_decay = 0.0;                               // AdamW's, on matrices only (not norms or biases)
  double clip = 1.0;   // the gradients' largest global norm; 0: no clipping
  uint64_t seed = 42;  // the shuffle of the lines, and a --config model's first weights
  int threads = 1;
  bool keep_first_gradients = false;  // keep step 0's gradients (before clipping) for write_first_gradients
};

// Checks the ranges (steps, batch >= 1, learning rate finite and > 0, warmup in 0..steps, ...).
Result<void> validate(const TrainingSettings& settings);

struct TrainingStepReport {
  int step = 0;     // from 0
  double loss = 0;  // before this step's update
  double learning_rate = 0;
  double grad_norm = 0;  // the global norm before clipping
  int tokens = 0;        // tokens the step read (every row's)
  double seconds = 0;    // the step's wall time
  // Each layer's share of grad_norm: the norm of that layer's gradients alone (before clipping), so a
  // view can show which layers the update moves most.
  std::vector<double> layer_grad_norms;
};

class Trainer {
 public:
  // Fine-tuning: the model's weights copied out as F32. A 16-bit or quantized model (F16, Q8_0, Q4_0, the
  // K-quants: any type the engine reads) is trained from its dequantized weights, decoded by the engine's
  // own decoder, and says so (weights_note); the trainer's weights, optimizer state and written file are F32.
  static Result<Trainer> from_model(const Model& model, std::shared_ptr<const Tokenizer> tokenizer,
                                    std::string_view data, const TrainingSettings& settings);
  // From scratch: a config (read_training_config) with seeded random weights (train/training_config.hpp).
  static Result<Trainer> from_config(const ModelConfig& config, std::shared_ptr<const Tokenizer> tokenizer,
                                     std::string_view data, const TrainingSettings& settings);
  Trainer(Trainer&&) noexcept;
  Trainer& operator=(Trainer&&) noexcept;
  ~Trainer();

  // One step. An error leaves the weights as they were after the last step whose loss and gradients were
  // finite: a loss or gradient that is NaN or infinite stops the run with a message naming the step (and
  // when the update before it broke the weights, they are put back as they were before that update).
  Result<TrainingStepReport> step();
  int steps_done() const;

  // What the weights were trained from, for whoever shows the run: empty when every tensor was stored as
  // F32 (or the weights came from a config), else a sentence naming the stored types, as "trained from
  // dequantized weights: Q8_0 (37 tensors); 13 others were F32; the output is F32".
  const std::string& weights_note() const;

  // The weights as they are now, as a model the engine runs (views: valid while the trainer lives).
  std::shared_ptr<const Model> model() const;
  // The weights as an F32 GGUF file with the tokenizer (export_gguf: a llama or gpt2 GGUF that
  // llama.cpp reads).
  Result<void> write_gguf(const std::string& path, const std::string& name) const;
  // The same file's bytes (for a page, which has no file system).
  Result<std::vector<std::byte>> gguf_bytes(const std::string& name) const;
  // Step 0's gradients (keep_first_gradients) as F32 safetensors: one tensor per model tensor, named and
  // shaped as the GGUF file stores it ("blk.0.attn_q.weight" [rows, cols]), element i the derivative of
  // step 0's loss by stored element i.
  Result<void> write_first_gradients(const std::string& path) const;

  struct State;

 private:
  explicit Trainer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// A config for Trainer::from_config, from JSON: {"architecture": "llama", "dim": 64, "layers": 2,
// "heads": 4, "kv_heads": 4, "hidden_dim": 128, "context": 64}, with optional "vocab_size" (must equal the
// tokenizer's: VocabMismatch otherwise), "tied" (the classifier is the token embedding; default true),
// "rope_theta" (10000, llama only) and "norm_eps" (1e-5). "llama": RMSNorm, Pre-LN, RoPE on adjacent pairs
// (llama.cpp's "llama" layout, so the trained file is a plain llama GGUF), SwiGLU, no biases. "gpt2":
// LayerNorm with biases, Pre-LN, learned positions (a table of `context` rows), biases on q, k, v, the output
// projection and the feed-forward, a plain GELU (tanh) feed-forward (a gpt2 GGUF). Both: head_dim =
// dim / heads. An unknown key is an error (a typo would otherwise train another model than meant). Messages
// start with `source`.
Result<ModelConfig> read_training_config(std::string_view json_text, const std::string& source,
                                         const Tokenizer& tokenizer);

// The mean next-token loss (nats per token) of `model` on held-out text: each non-blank line encoded as the
// training data is (Tokenizer::encode_prompt) and scored alone (score_tokens), the lines' predicted tokens
// pooled. Lines longer than the model's context are cut to it. BadArgument when no line predicts a token.
Result<double> held_out_loss(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                             std::string_view text);

// Built-in synthetic tasks to train on, one training line each (train/synthetic_tasks.cpp states them):
//   copy:     `length` fresh random words, then the same words again ("twelve random words, then the same
//             twelve again"). Each word is 1 to 4 random pieces of the vocabulary glued together, so the
//             distance in tokens to the copy varies and only the earlier occurrence tells what comes next:
//             what an induction head does (a model trained on one-token words copies by position instead).
//   counting: consecutive numbers from a random start, "17 18 19 20 21", `length` of them.
//   brackets: a random balanced sequence of `length` pairs of ( ) [ ] { }, spaced: "( [ ] ) { }".
// With max_tokens > 0 a line that the tokenizer reads as more tokens (BOS included) is drawn again, so the
// lines fit a context. Seeded with the sampler's Rng: the same seed gives the same lines everywhere.
enum class SyntheticTask { Copy, Counting, Brackets };
struct SyntheticTaskSettings {
  SyntheticTask task = SyntheticTask::Copy;
  int lines = 1000;
  int length = 8;  // words (copy: of each half), numbers, or pairs of brackets
  uint64_t seed = 1;
  int max_tokens = 0;  // 0: no bound
};
// "copy", "counting", "brackets"; BadArgument naming the known ones otherwise.
Result<SyntheticTask> synthetic_task_named(std::string_view name);
const char* to_string(SyntheticTask task);
// The lines, joined with '\n' (a training text). BadArgument for lines or length out of range (1..1000000,
// 2..512), a vocabulary without ordinary tokens (copy), or a max_tokens that lines rarely fit.
Result<std::string> synthetic_task_text(const Tokenizer& tokenizer, const SyntheticTaskSettings& settings);

}  // namespace glassbox
