// The inspection document (glassbox/inspection.hpp; schema in docs/inspect.md). One generation with the
// residual trace on, then each section read from what it recorded: attention rows and the logit lens are
// recomputed from the stored residual stream, bit for bit as the forward pass computed them.
#include "glassbox/inspection.hpp"

#include <string>

#include "glassbox/error.hpp"
#include "glassbox/generator.hpp"
#include "glassbox/inspect.hpp"
#include "glassbox/json_writer.hpp"
#include "glassbox/session.hpp"

namespace glassbox {
namespace {

// What one run recorded, besides the session itself.
struct Run {
  std::vector<EncodedToken> tokens;  // prompt then generated, with byte spans in `text`
  std::string text;                  // the prompt, then every generated token's text
  int prompt_length = 0;
  struct Step {
    int position;
    int chosen;
    std::vector<float> logits;
  };
  std::vector<Step> steps;
  std::string stop_reason;
};

Result<Run> generate(Session& session, const Tokenizer& tokenizer, std::string_view prompt,
                     const InspectOptions& options) {
  Run run;
  run.text = std::string(prompt);
  // The prompt's tokens as Generator::start_text would encode them (Tokenizer::encode_prompt), with spans.
  run.tokens = tokenizer.encode(prompt, tokenizer.adds_bos() || prompt.empty());
  std::vector<int> ids;
  for (const EncodedToken& t : run.tokens)
    ids.push_back(t.id);
  if (static_cast<int>(ids.size()) + options.steps > options.max_tokens)
    return error(ErrorCode::BadArgument, "inspect: ", ids.size(), " prompt tokens and ", options.steps,
                 " steps make more than the ", options.max_tokens,
                 " tokens an inspection writes out in full; shorten the prompt or take fewer steps");
  run.prompt_length = static_cast<int>(ids.size());

  Sampler sampler(options.sampler);
  Generator generator(session, sampler, tokenizer);
  GLASSBOX_TRY(generator.start(ids, {.max_new_tokens = options.steps}));  // checks the prompt
  if (options.steps == 0) {  // the prompt alone (a limit of 0 would mean none to the generator)
    GLASSBOX_TRY(session.prefill(ids));
    run.stop_reason = to_string(StopReason::Length);
    return run;
  }
  while (!generator.finished()) {
    GLASSBOX_ASSIGN(const GeneratedToken token, generator.next());
    const auto begin = static_cast<int>(run.text.size());
    run.text += token.text;
    run.tokens.push_back({token.id, begin, static_cast<int>(run.text.size())});
    const std::span<const float> logits = generator.last_logits();
    run.steps.push_back({token.position, token.id, {logits.begin(), logits.end()}});
  }
  run.stop_reason = to_string(generator.stop_reason());
  // The generator samples the last token without reading it; read it too, so that attention and the logit
  // lens cover every token (unless the context is full).
  if (!run.steps.empty() && session.position() < session.context_length())
    GLASSBOX_TRY(session.step(run.steps.back().chosen));
  return run;
}

void write_model(JsonWriter& json, const ModelConfig& c) {
  json.key("model").begin_object();
  json.key("architecture").string(c.architecture);
  json.key("layers").integer(c.n_layers);
  json.key("heads").integer(c.n_heads);
  json.key("kv_heads").integer(c.n_kv_heads);
  json.key("head_dim").integer(c.head_dim);
  json.key("dim").integer(c.dim);
  json.key("hidden_dim").integer(c.hidden_dim);
  json.key("vocab_size").integer(c.vocab_size);
  json.key("context_length").integer(c.max_seq_len);
  json.key("position").string(to_string(c.position));
  json.end_object();
}

void write_tokens(JsonWriter& json, const Tokenizer& tokenizer, const Run& run) {
  json.key("tokens").begin_array();
  for (const EncodedToken& t : run.tokens) {
    json.begin_object().key("id").integer(t.id).key("piece").string(tokenizer.piece(t.id));
    json.key("bytes").begin_array().integer(t.byte_begin).integer(t.byte_end).end_array();
    json.end_object();
  }
  json.end_array();
}

// [layer][head][query][key], zero above the diagonal, for every position the session read.
Result<void> write_attention(JsonWriter& json, const Session& session) {
  const ModelConfig& c = session.model().config;
  const int n = session.position();
  std::vector<float> matrix(static_cast<std::size_t>(c.n_heads) * n * n);
  json.key("attention").begin_array();
  for (int layer = 0; layer < c.n_layers; ++layer) {
    std::fill(matrix.begin(), matrix.end(), 0.0f);
    GLASSBOX_TRY(session.attention_rows(
        layer, 0, c.n_heads, 0, n, [&](int head, int query, std::span<const float> row) {
          std::copy(row.begin(), row.end(),
                    matrix.begin() + (static_cast<std::ptrdiff_t>(head) * n + query) * n);
        }));
    json.begin_array();
    for (int head = 0; head < c.n_heads; ++head) {
      json.begin_array();
      for (int query = 0; query < n; ++query)
        json.numbers(std::span<const float>(matrix).subspan((static_cast<std::size_t>(head) * n + query) * n,
                                                            static_cast<std::size_t>(n)));
      json.end_array();
    }
    json.end_array();
  }
  json.end_array();
  return {};
}

// [layer][position]: the token layer `layer`'s output predicts for position + 1, and its probability. The
// last layer's entry is the model's own prediction.
Result<void> write_logit_lens(JsonWriter& json, const Session& session) {
  const ModelConfig& c = session.model().config;
  std::vector<float> logits(static_cast<std::size_t>(c.vocab_size));
  json.key("logit_lens").begin_array();
  for (int layer = 0; layer < c.n_layers; ++layer) {
    json.begin_array();
    for (int position = 0; position < session.position(); ++position) {
      // The residual leaving layer `layer` is the one entering layer + 1.
      GLASSBOX_TRY(session.layer_logits(layer + 1, position, logits));
      const TokenProbability top = top_tokens(logits, 1).front();
      json.begin_object().key("id").integer(top.id).key("probability").number(top.probability).end_object();
    }
    json.end_array();
  }
  json.end_array();
  return {};
}

}  // namespace

Result<std::string> inspect_json(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                                 std::string_view prompt, const InspectOptions& options) {
  if (options.steps < 0)
    return error(ErrorCode::BadArgument, "inspect: steps must be >= 0, found ", options.steps);
  GLASSBOX_ASSIGN(const std::vector<float> scales, head_scale_table(model->config, options.ablate));
  const int context = std::min(model->config.max_seq_len, options.max_tokens);
  GLASSBOX_ASSIGN(Session session, Session::create(model, {.threads = options.threads,
                                                           .context_length = context,
                                                           .trace_residuals = true}));
  GLASSBOX_TRY(session.set_head_scales(scales));
  GLASSBOX_ASSIGN(const Run run, generate(session, tokenizer, prompt, options));

  JsonWriter json;
  json.begin_object();
  write_model(json, model->config);
  json.key("text").string(run.text);
  write_tokens(json, tokenizer, run);
  json.key("prompt_length").integer(run.prompt_length);
  json.key("stop_reason").string(run.stop_reason);
  GLASSBOX_TRY(write_attention(json, session));
  GLASSBOX_TRY(write_logit_lens(json, session));
  json.end_object();
  return std::string(json.text());
}

}  // namespace glassbox
