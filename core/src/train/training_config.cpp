#include "train/training_config.hpp"

#include <cmath>
#include <cstring>

#include "formats/json_fields.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/train.hpp"

namespace glassbox::train {
namespace {

constexpr const char* kKnownKeys[] = {"architecture", "dim",        "layers",  "heads",
                                      "kv_heads",     "hidden_dim", "context", "vocab_size",
                                      "tied",         "rope_theta", "norm_eps"};

}  // namespace
}  // namespace glassbox::train

namespace glassbox {

Result<ModelConfig> read_training_config(std::string_view json_text, const std::string& source,
                                         const Tokenizer& tokenizer) {
  json::Document doc;
  GLASSBOX_TRY(json::parse(json_text, source, doc));
  const json::Fields fields(source);
  if (!doc.IsObject()) return fields.fail("a training config must be a JSON object");
  for (auto member = doc.MemberBegin(); member != doc.MemberEnd(); ++member) {
    const std::string_view key = json::text_of(member->name);
    bool known = false;
    for (const char* k : train::kKnownKeys)
      known = known || key == k;
    if (!known)
      return fields.fail("unknown key \"", key,
                         "\" (a training config has: architecture, dim, layers, heads, kv_heads, hidden_dim, "
                         "context, and optionally vocab_size, tied, rope_theta, norm_eps)");
  }
  GLASSBOX_ASSIGN(const std::string architecture, fields.text(doc, "", "architecture", ""));
  ModelConfig c;
  if (architecture == "gpt2") {
    // GPT-2's blocks: LayerNorm (with biases), learned positions (a table of `context` rows), biases on every
    // projection, a plain GELU (tanh) feed-forward; what llama.cpp's gpt2 architecture reads.
    c.architecture = "gpt2";
    c.norm = NormKind::LayerNorm;
    c.position = PositionKind::Learned;
    c.activation = Activation::GELU;
    c.gated_ffn = false;
    if (doc.HasMember("rope_theta"))
      return fields.fail("\"rope_theta\" is for \"llama\" configs (a \"gpt2\" has learned positions)");
  } else if (architecture == "llama") {
    c.architecture = "llama";
  } else {
    return fields.fail("\"architecture\" must be \"llama\" or \"gpt2\", found \"", architecture, "\"");
  }
  const auto number = [&](const char* key, int& out) -> Result<void> {
    GLASSBOX_ASSIGN(const int64_t n, fields.whole_number(doc, "", key, 1, INT32_MAX));
    out = static_cast<int>(n);
    return ok();
  };
  GLASSBOX_TRY(number("dim", c.dim));
  GLASSBOX_TRY(number("layers", c.n_layers));
  GLASSBOX_TRY(number("heads", c.n_heads));
  GLASSBOX_TRY(number("kv_heads", c.n_kv_heads));
  GLASSBOX_TRY(number("hidden_dim", c.hidden_dim));
  GLASSBOX_TRY(number("context", c.max_seq_len));
  c.vocab_size = tokenizer.vocab_size();
  GLASSBOX_ASSIGN(const int64_t vocab,
                  fields.whole_number(doc, "", "vocab_size", 1, INT32_MAX, c.vocab_size));
  if (vocab != c.vocab_size)
    return error(ErrorCode::VocabMismatch, source, ": vocab_size ", vocab,
                 " does not fit the tokenizer, which has ", c.vocab_size,
                 " tokens (leave vocab_size out to take the tokenizer's)");
  GLASSBOX_ASSIGN(c.tied_embeddings, fields.flag(doc, "", "tied", true));
  GLASSBOX_ASSIGN(const std::optional<double> theta, fields.number(doc, "", "rope_theta"));
  if (theta) c.rope_theta = static_cast<float>(*theta);
  GLASSBOX_ASSIGN(const std::optional<double> eps, fields.number(doc, "", "norm_eps"));
  if (eps) {
    if (!(*eps > 0 && *eps < 1)) return fields.fail("\"norm_eps\" must be in (0, 1), found ", *eps);
    c.norm_eps = static_cast<float>(*eps);
  }
  if (c.n_heads > 0 && c.dim % c.n_heads == 0) c.head_dim = c.dim / c.n_heads;
  if (c.dim % c.n_heads != 0)
    return fields.fail("\"heads\" must divide \"dim\": dim ", c.dim, " is not a multiple of heads ",
                       c.n_heads);
  GLASSBOX_TRY(validate(c, source));
  GLASSBOX_TRY(train::check_trainable(c));
  return c;
}

}  // namespace glassbox

namespace glassbox::train {

ModelParameters<float> random_parameters(const ModelConfig& c, uint64_t seed) {
  const auto u = [](int v) { return static_cast<std::size_t>(v); };
  const std::size_t dim = u(c.dim), hidden = u(c.hidden_dim), q_dim = u(c.q_dim()), kv_dim = u(c.kv_dim());
  const bool biases = c.norm == NormKind::LayerNorm;
  const auto bias = [&](std::vector<float>& tensor, std::size_t n) {
    if (biases) tensor.resize(n);
  };
  ModelParameters<float> p;
  p.token_embedding.resize(u(c.vocab_size) * dim);
  if (c.position == PositionKind::Learned) p.position_embedding.resize(u(c.max_seq_len) * dim);
  p.layers.resize(u(c.n_layers));
  for (LayerParameters<float>& L : p.layers) {
    L.attn_norm.resize(dim);
    bias(L.attn_norm_bias, dim);
    L.wq.resize(q_dim * dim);
    L.wk.resize(kv_dim * dim);
    L.wv.resize(kv_dim * dim);
    bias(L.bq, q_dim), bias(L.bk, kv_dim), bias(L.bv, kv_dim);
    L.wo.resize(dim * q_dim);
    bias(L.bo, dim);
    L.ffn_norm.resize(dim);
    bias(L.ffn_norm_bias, dim);
    if (c.gated_ffn) {
      L.ffn_gate.resize(hidden * dim);
      bias(L.ffn_gate_bias, hidden);
    }
    L.ffn_up.resize(hidden * dim);
    bias(L.ffn_up_bias, hidden);
    L.ffn_down.resize(dim * hidden);
    bias(L.ffn_down_bias, dim);
  }
  p.final_norm.resize(dim);
  bias(p.final_norm_bias, dim);
  if (!c.tied_embeddings) p.output.resize(u(c.vocab_size) * dim);

  Rng rng(seed);
  const float bound = 0.02f * std::sqrt(3.0f);
  const float residual_scale = 1.0f / std::sqrt(2.0f * static_cast<float>(c.n_layers));
  const auto ends_with = [](const std::string& s, const char* tail) {
    const std::size_t n = std::strlen(tail);
    return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
  };
  p.for_each([&](const std::string& name, std::vector<float>& tensor) {
    if (names_bias(name)) return;  // 0, as resized
    if (names_norm_gain(name)) {
      std::fill(tensor.begin(), tensor.end(), 1.0f);
      return;
    }
    const float scale = ends_with(name, ".wo") || ends_with(name, ".ffn_down") ? residual_scale : 1.0f;
    for (float& w : tensor)
      w = (2.0f * rng.next_float() - 1.0f) * bound * scale;
  });
  return p;
}

}  // namespace glassbox::train
