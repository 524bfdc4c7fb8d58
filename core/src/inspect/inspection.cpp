// The inspection document (glassbox/inspection.hpp; schema in docs/inspect.md). One generation with the
// residual trace on, then each section read from what it recorded: attention rows and the logit lens are
// recomputed from the stored residual stream, bit for bit as the forward pass computed them.
#include "glassbox/inspection.hpp"

#include "glassbox/score.hpp"

#include <string>

#include "glassbox/anatomy.hpp"
#include "glassbox/encoder.hpp"
#include "glassbox/encoder_heads.hpp"
#include "glassbox/error.hpp"
#include "glassbox/generator.hpp"
#include "glassbox/json_writer.hpp"
#include "glassbox/measure_heads.hpp"
#include "glassbox/sampling_pipeline.hpp"
#include "glassbox/score.hpp"
#include "glassbox/session.hpp"
#include "glassbox/top_tokens.hpp"

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

void write_settings(JsonWriter& json, const InspectOptions& o) {
  json.key("settings").begin_object();
  json.key("steps").integer(o.steps);
  json.key("temperature").number(o.sampler.temperature);
  json.key("top_k").integer(o.sampler.top_k);
  json.key("top_p").number(o.sampler.top_p);
  json.key("seed").integer(static_cast<int64_t>(o.sampler.seed));
  json.key("ablate");
  write_head_scales(json, o.ablate);
  json.end_object();
}

// Each step's sampling pipeline: the distribution at temperature 1, after the temperature, after top-k and
// after top-p, for the most likely candidates, and the chosen token's final probability.
// The chosen token's logit split into its parts (glassbox/logit_attribution.hpp): heads [layer][head].
void write_attribution(JsonWriter& json, const LogitAttribution& a) {
  json.key("attribution").begin_object().key("token").integer(a.token).key("logit").number(a.logit);
  json.key("embedding").number(a.embedding).key("heads").begin_array();
  for (int layer = 0; layer < a.n_layers; ++layer) {
    json.begin_array();
    for (int head = 0; head < a.n_heads; ++head)
      json.number(a.head(layer, head));
    json.end_array();
  }
  json.end_array().key("mlp").begin_array();
  for (double m : a.mlp)
    json.number(m);
  json.end_array().key("bias").number(a.bias).end_object();
}

Result<void> write_steps(JsonWriter& json, const Session& session, const Run& run, const InspectOptions& o) {
  // A Post-LN model's logits are no sum of parts: its steps carry no attribution.
  const bool attributable = session.model().config.norm_placement != NormPlacement::PostNorm;
  json.key("steps").begin_array();
  for (const Run::Step& step : run.steps) {
    // The whole vocabulary, so that the chosen token's entry is there even when it ranks below the list.
    const SamplingPipeline pipeline =
        sampling_pipeline(step.logits, o.sampler, static_cast<int>(step.logits.size()));
    json.begin_object().key("position").integer(step.position).key("chosen").integer(step.chosen);
    for (const PipelineToken& t : pipeline.tokens)
      if (t.id == step.chosen) json.key("p_chosen").number(t.p_top_p);
    json.key("top_k_kept").integer(pipeline.top_k_kept).key("top_p_kept").integer(pipeline.top_p_kept);
    json.key("candidates").begin_array();
    const std::size_t shown = std::min(pipeline.tokens.size(), static_cast<std::size_t>(o.candidates));
    for (std::size_t i = 0; i < shown; ++i) {
      const PipelineToken& t = pipeline.tokens[i];
      json.begin_object().key("id").integer(t.id).key("logit").number(t.logit);
      json.key("p_t1").number(t.p_temperature_1).key("p_temperature").number(t.p_temperature);
      json.key("p_top_k").number(t.p_top_k).key("p_top_p").number(t.p_top_p).end_object();
    }
    json.end_array();
    if (attributable) {
      GLASSBOX_ASSIGN(const LogitAttribution attribution,
                      session.logit_attribution(step.position, step.chosen));
      write_attribution(json, attribution);
    }
    json.end_object();
  }
  json.end_array();
  return {};
}

// Every head's statistics over the tokens read, its induction score on the probe, and its role; then the
// count of each role.
Result<void> write_heads(JsonWriter& json, const Model& model, const Tokenizer& tokenizer,
                         std::span<const int> tokens, int threads) {
  GLASSBOX_ASSIGN(
      const std::vector<HeadReport> heads,
      measure_heads(model, tokens, {.threads = threads, .probe = induction_probe_for(tokenizer)}));
  json.key("heads").begin_array();
  for (const HeadReport& h : heads) {
    json.begin_object().key("layer").integer(h.layer).key("head").integer(h.head);
    json.key("entropy_bits")
        .number(h.entropy_bits)
        .key("uniform_entropy_bits")
        .number(h.uniform_entropy_bits);
    json.key("sink")
        .number(h.sink)
        .key("previous_token")
        .number(h.previous_token)
        .key("local")
        .number(h.local);
    json.key("induction").number(h.induction).key("effective_rank").integer(h.effective_rank);
    json.key("role").string(to_string(h.role)).end_object();
  }
  json.end_array();
  const RoleCounts counts = summarize_roles(heads);
  json.key("head_roles").begin_object();
  for (HeadRole r : kDecoderRoles)
    json.key(to_string(r)).integer(counts[r]);
  json.end_object();
  return {};
}

void write_component(JsonWriter& json, const char* name, const ComponentSize& size) {
  json.key(name).begin_object().key("parameters").integer(size.parameters).key("bytes").integer(size.bytes);
  json.end_object();
}

void write_anatomy(JsonWriter& json, const Model& model, int sequence_length) {
  const ModelAnatomy a = model_anatomy(model);
  json.key("anatomy").begin_object();
  json.key("components").begin_object();
  write_component(json, "token_embedding", a.token_embedding);
  write_component(json, "position_embedding", a.position_embedding);
  write_component(json, "token_types", a.token_types);
  write_component(json, "output", a.output);
  write_component(json, "masked_lm_head", a.masked_lm_head);
  write_component(json, "attention_q", a.attention_q);
  write_component(json, "attention_k", a.attention_k);
  write_component(json, "attention_v", a.attention_v);
  write_component(json, "attention_o", a.attention_o);
  write_component(json, "feed_forward", a.feed_forward);
  write_component(json, "norms", a.norms);
  write_component(json, "biases", a.biases);
  write_component(json, "total", a.total);
  json.end_object();
  json.key("bytes_read_per_token").integer(a.bytes_read_per_token);
  const TokenFlops f = flops_per_token(model.config, sequence_length);
  json.key("flops_per_token").begin_object().key("sequence_length").integer(sequence_length);
  json.key("attention_projections").integer(f.attention_projections);
  json.key("attention_scores").integer(f.attention_scores).key("feed_forward").integer(f.feed_forward);
  json.key("output").integer(f.output).key("total").integer(f.total).end_object();
  json.end_object();
}

// What the ablation did to the next-token distribution after the prompt: the same prompt through a session
// without it, compared with the ablated run's first step.
Result<void> write_ablation(JsonWriter& json, std::shared_ptr<const Model> model, const Run& run,
                            const InspectOptions& o) {
  if (o.ablate.empty() || run.steps.empty()) return {};
  std::vector<int> prompt;
  for (int i = 0; i < run.prompt_length; ++i)
    prompt.push_back(run.tokens[static_cast<std::size_t>(i)].id);
  GLASSBOX_ASSIGN(Session plain,
                  Session::create(model, {.threads = o.threads, .context_length = run.prompt_length}));
  GLASSBOX_ASSIGN(const std::span<const float> before, plain.prefill(prompt));
  GLASSBOX_ASSIGN(const DistributionChange change, compare_distributions(before, run.steps.front().logits));
  json.key("ablation").begin_object().key("position").integer(run.prompt_length - 1);
  json.key("kl_bits").number(change.kl_bits).key("top_before").integer(change.top_before);
  json.key("p_top_before").number(change.p_top_before).key("q_top_before").number(change.q_top_before);
  json.key("top_after").integer(change.top_after).key("q_top_after").number(change.q_top_after);
  json.end_object();
  return {};
}

// An attention variant against exact attention on the tokens the run read (docs/inspect.md).
Result<void> write_attention_variant(JsonWriter& json, std::shared_ptr<const Model> model,
                                     std::span<const int> read, const InspectOptions& o) {
  if (o.attention.is_exact() || read.size() < 2) return {};
  GLASSBOX_ASSIGN(const TextScore score,
                  score_tokens(std::move(model), read,
                               {.threads = o.threads, .attention = o.attention, .compare_to_exact = true}));
  json.key("attention_variant").begin_object().key("variant").string(to_string(o.attention));
  json.key("loss").number(score.loss);
  write_json_members(json, *score.against_exact);
  json.end_object();
  return {};
}

// An encoder's document: its text read once, no steps, full attention rows (docs/inspect.md, "Encoders").
Result<std::string> encoder_inspect_json(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                                         std::string_view prompt, const InspectOptions& options) {
  Run run;
  run.text = std::string(prompt);
  run.tokens = tokenizer.encode(prompt, tokenizer.adds_bos());
  std::vector<int> ids;
  for (const EncodedToken& t : run.tokens)
    ids.push_back(t.id);
  if (static_cast<int>(ids.size()) > options.max_tokens)
    return error(ErrorCode::BadArgument, "inspect: ", ids.size(), " tokens make more than the ",
                 options.max_tokens, " tokens an inspection writes out in full; shorten the text");
  run.prompt_length = static_cast<int>(ids.size());
  run.stop_reason = "none";
  GLASSBOX_ASSIGN(Encoder encoder, Encoder::create(model, {.threads = options.threads}));
  GLASSBOX_ASSIGN(const std::vector<float> scales, head_scale_table(model->config, options.ablate));
  GLASSBOX_TRY(encoder.set_head_scales(scales));  // the attention of the ablated run, as a decoder's
  AttentionTrace attention;
  GLASSBOX_TRY(encoder.encode(std::span(&ids, 1), attention));

  const ModelConfig& c = model->config;
  const int n = run.prompt_length;
  JsonWriter json;
  json.begin_object();
  write_model(json, c);
  write_settings(json, options);
  json.key("text").string(run.text);
  write_tokens(json, tokenizer, run);
  json.key("prompt_length").integer(n);
  json.key("stop_reason").string(run.stop_reason);
  json.key("steps").begin_array().end_array();
  json.key("attention").begin_array();
  for (int layer = 0; layer < c.n_layers; ++layer) {
    json.begin_array();
    for (int head = 0; head < c.n_heads; ++head) {
      json.begin_array();
      for (int query = 0; query < n; ++query)
        json.numbers(attention.row(layer, head, query));
      json.end_array();
    }
    json.end_array();
  }
  json.end_array();
  json.key("logit_lens").begin_array().end_array();
  const std::vector<EncoderHeadReport> heads = measure_encoder_heads(attention, tokenizer, ids);
  std::vector<HeadRole> roles;
  json.key("heads").begin_array();
  for (const EncoderHeadReport& h : heads) {
    roles.push_back(h.role);
    json.begin_object().key("layer").integer(h.layer).key("head").integer(h.head);
    json.key("entropy_bits").number(h.stats.entropy_bits);
    json.key("uniform_entropy_bits").number(h.stats.uniform_entropy_bits);
    json.key("sink").number(h.stats.sink).key("previous_token").number(h.stats.previous);
    json.key("next_token").number(h.next).key("separator").number(h.separator);
    json.key("punctuation").number(h.punctuation).key("local").number(h.stats.local);
    json.key("role").string(to_string(h.role)).end_object();
  }
  json.end_array();
  const RoleCounts counts = count_roles(roles);
  json.key("head_roles").begin_object();
  for (HeadRole r : kEncoderRoles)
    json.key(to_string(r)).integer(counts[r]);
  json.end_object();
  write_anatomy(json, *model, n);
  json.end_object();
  return std::string(json.text());
}

}  // namespace

Result<std::string> inspect_json(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                                 std::string_view prompt, const InspectOptions& options) {
  if (model && !model->config.causal) return encoder_inspect_json(model, tokenizer, prompt, options);
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
  write_settings(json, options);
  json.key("text").string(run.text);
  write_tokens(json, tokenizer, run);
  json.key("prompt_length").integer(run.prompt_length);
  json.key("stop_reason").string(run.stop_reason);
  GLASSBOX_TRY(write_steps(json, session, run, options));
  GLASSBOX_TRY(write_attention(json, session));
  GLASSBOX_TRY(write_logit_lens(json, session));
  std::vector<int> read;  // the tokens the session read: all of them, or all but the last
  for (int i = 0; i < session.position(); ++i)
    read.push_back(run.tokens[static_cast<std::size_t>(i)].id);
  GLASSBOX_TRY(write_heads(json, *model, tokenizer, read, options.threads));
  write_anatomy(json, *model, session.position());
  GLASSBOX_TRY(write_ablation(json, model, run, options));
  GLASSBOX_TRY(write_attention_variant(json, model, read, options));
  json.end_object();
  return std::string(json.text());
}

}  // namespace glassbox
