// glassbox train: trains a Llama- or GPT-2-architecture model on a text file, one training sequence per line,
// from a model file (fine-tuning) or from a JSON config (from scratch, with --tokenizer), and writes the
// result as an F32 GGUF file with its tokenizer. The core's Trainer (glassbox/train.hpp) does the work; this file reads
// the flags, prints each step and writes the files.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "commands.hpp"
#include "glassbox/train.hpp"
#include "json_writer.hpp"
#include "model_flags.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  std::string model;   // --model INIT, or
  std::string config;  // --config CONFIG.json with --tokenizer
  std::string tokenizer;
  std::string data;
  std::string output;
  std::string save_gradients;
  std::string schedule = "cosine";
  TrainingSettings settings{.threads = default_threads()};
  bool json = false;
};

Result<std::string> read_text_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error(ErrorCode::Io, what, " ", path, ": cannot open: ", std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return error(ErrorCode::Io, what, " ", path, ": read failed");
  return text.str();
}

Result<Trainer> make_trainer(const Options& o, const std::string& data) {
  if (!o.model.empty()) {
    GLASSBOX_ASSIGN(const LoadedModel loaded, open_model_files(o.model, o.tokenizer));
    return Trainer::from_model(*loaded.model, loaded.tokenizer, data, o.settings);
  }
  GLASSBOX_ASSIGN(const Tokenizer tokenizer, load_tokenizer(o.tokenizer));
  auto shared = std::make_shared<const Tokenizer>(std::move(tokenizer));
  GLASSBOX_ASSIGN(const std::string config_text, read_text_file(o.config, "the config"));
  GLASSBOX_ASSIGN(const ModelConfig config, read_training_config(config_text, o.config, *shared));
  return Trainer::from_config(config, shared, data, o.settings);
}

std::string clock_time(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char out[32];
  std::snprintf(out, sizeof out, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return out;
}

// One line per step. `note` (Trainer::weights_note, step 0 only) rides on the first step's object as a
// "note" field, so every line stays a step a script reads by its keys.
void print_json(const TrainingStepReport& r, const std::string& note) {
  JsonWriter json;
  json.begin_object().key("step").integer(r.step).key("loss").number(r.loss);
  json.key("lr").number(r.learning_rate).key("grad_norm").number(r.grad_norm);
  json.key("tokens_per_second").number(r.seconds > 0 ? r.tokens / r.seconds : 0.0);
  if (!note.empty()) json.key("note").string(note);
  json.end_object();
  std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
  std::fflush(stdout);
}

// One line on stderr, rewritten in place: a bar, the step, the loss, tokens/s and the time left at the
// average pace so far.
void print_progress(const TrainingStepReport& r, int steps, double elapsed, int tokens) {
  constexpr int kWidth = 20;
  const int done = r.step + 1;
  const int filled = done * kWidth / steps;
  const double eta = elapsed / done * (steps - done);
  std::fprintf(stderr, "\r[%s%s] step %d/%d  loss %.4f  lr %.2e  grad norm %.3f  %.0f tokens/s  ETA %s ",
               std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(kWidth - filled), '.').c_str(), done, steps, r.loss,
               r.learning_rate, r.grad_norm, elapsed > 0 ? tokens / elapsed : 0.0, clock_time(eta).c_str());
  if (done == steps) std::fputc('\n', stderr);
}

Result<void> train(Options o) {
  o.settings.schedule = o.schedule == "constant" ? LearningRateShape::Constant : LearningRateShape::Cosine;
  o.settings.keep_first_gradients = !o.save_gradients.empty();
  GLASSBOX_ASSIGN(const std::string data, read_text_file(o.data, "the training data"));
  GLASSBOX_ASSIGN(Trainer trainer, make_trainer(o, data));
  const std::string name = o.output.substr(o.output.find_last_of('/') + 1);
  // A quantized model trains from its dequantized weights: say so before the first step (--json: in it).
  if (!o.json && !trainer.weights_note().empty())
    std::fprintf(stderr, "%s\n", trainer.weights_note().c_str());
  double elapsed = 0;
  int tokens = 0;
  for (int step = 0; step < o.settings.steps; ++step) {
    Result<TrainingStepReport> report = trainer.step();
    if (!report) {
      if (!o.json) std::fputc('\n', stderr);
      // The trainer kept (or put back) the last good weights: they are the run's result.
      Result<void> written = trainer.write_gguf(o.output, name);
      if (!written)
        return error(report.error().code, report.error().message,
                     "; writing them failed: ", written.error().message);
      return error(report.error().code, report.error().message, "; wrote them to ", o.output);
    }
    if (step == 0 && !o.save_gradients.empty()) GLASSBOX_TRY(trainer.write_first_gradients(o.save_gradients));
    elapsed += report->seconds;
    tokens += report->tokens;
    if (o.json) {
      print_json(*report, step == 0 ? trainer.weights_note() : std::string());
    } else {
      print_progress(*report, o.settings.steps, elapsed, tokens);
    }
  }
  GLASSBOX_TRY(trainer.write_gguf(o.output, name));
  std::fprintf(stderr, "wrote %s after %d steps (%.1f s, %.0f tokens/s)\n", o.output.c_str(),
               o.settings.steps, elapsed, elapsed > 0 ? tokens / elapsed : 0.0);
  return ok();
}

}  // namespace

Command add_train_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("train",
                                        "Trains a Llama- or GPT-2-architecture model on a text file (one "
                                        "sequence per line) and writes it as GGUF");
  auto o = std::make_shared<Options>();
  TrainingSettings& s = o->settings;
  CLI::Option* model =
      app->add_option("--model", o->model,
                      "the model to start from (fine-tuning): GGUF, or llama2.c with --tokenizer")
          ->type_name("INIT");
  CLI::Option* config =
      app->add_option(
             "--config", o->config,
             "train from scratch: JSON {architecture: \"llama\" or \"gpt2\", dim, layers, heads, kv_heads, "
             "hidden_dim, context}, vocabulary from --tokenizer, seeded random weights")
          ->type_name("CONFIG.json");
  CLI::Option* tokenizer =
      app->add_option("--tokenizer", o->tokenizer,
                      "llama2.c tokenizer.bin, GGUF or tokenizer.json (required with --config)")
          ->type_name("T");
  model->excludes(config);
  config->needs(tokenizer);
  app->add_option("--data", o->data,
                  "UTF-8 text, one training sequence per line (read as generate reads a prompt)")
      ->type_name("TEXT")
      ->required();
  app->add_option("--steps", s.steps, "optimizer steps")
      ->type_name("N")
      ->required()
      ->check(CLI::PositiveNumber);
  app->add_option("--batch", s.batch, "rows per step, each packing whole lines up to the context")
      ->type_name("B")
      ->capture_default_str();
  app->add_option("--context", s.context, "tokens per row (default: the model's context)")->type_name("C");
  app->add_option("--lr", s.learning_rate, "peak learning rate")->type_name("LR")->capture_default_str();
  app->add_option("--warmup", s.warmup, "steps of linear warmup")->type_name("W")->capture_default_str();
  app->add_option("--schedule", o->schedule, "the learning rate after the warmup")
      ->type_name("cosine|constant")
      ->check(CLI::IsMember({"cosine", "constant"}))
      ->capture_default_str();
  app->add_option("--weight-decay", s.weight_decay, "AdamW's decoupled weight decay (not on norms or biases)")
      ->type_name("WD")
      ->capture_default_str();
  app->add_option("--clip", s.clip, "largest global norm of the gradients (0: no clipping)")
      ->type_name("C")
      ->capture_default_str();
  app->add_option("--seed", s.seed, "seeds the shuffle of the lines and a --config model's first weights")
      ->type_name("S")
      ->capture_default_str();
  app->add_option("--threads", s.threads, "threads for a batch's rows (the result is the same for any count)")
      ->type_name("N")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app->add_option("--output", o->output, "the GGUF file to write (F32, with the tokenizer)")
      ->type_name("OUT.gguf")
      ->required();
  app->add_option("--save-gradients", o->save_gradients,
                  "write step 0's gradients (before any update) as F32 safetensors, one tensor per model "
                  "tensor, named and shaped as the GGUF file stores it")
      ->type_name("G.safetensors");
  app->add_flag("--json", o->json,
                "print one JSON object per step: {step, loss, lr, grad_norm, tokens_per_second} (instead of "
                "the progress line on stderr); step 0's has a \"note\" when a quantized model is trained "
                "from its dequantized weights");
  app->callback([model, config] {
    if (model->count() == 0 && config->count() == 0)
      throw CLI::RequiredError("--model INIT or --config CONFIG.json (with --tokenizer)");
  });
  return {app, [o] { return train(*o); }};
}

}  // namespace glassbox::cli
