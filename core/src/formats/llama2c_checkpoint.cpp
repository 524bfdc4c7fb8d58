// The llama2.c checkpoint format ("version 0", run.c's layout). After a 28-byte header of 7 int32 come the
// float32 weights, each group stacked over layers, all matrices row-major [out][in]:
//   token_embedding [vocab][dim]   rms_att [L][dim]   wq [L][dim][dim]   wk [L][kv_dim][dim]
//   wv [L][kv_dim][dim]            wo [L][dim][dim]   rms_ffn [L][dim]   w1 [L][hidden][dim]
//   w2 [L][dim][hidden]            w3 [L][hidden][dim]                   rms_final [dim]
//   freq_cis_real, freq_cis_imag [seq_len][head_size/2] (unused: RoPE tables are recomputed)
//   wcls [vocab][dim]   only when the header's vocab_size is negative (an unshared classifier)
#include "formats/byte_reader.hpp"
#include "glassbox/formats.hpp"

namespace glassbox {
namespace {

constexpr std::size_t kHeaderBytes = 7 * sizeof(int32_t);

// Hands out consecutive tensors of the weight area; sizes were checked against the file length before.
class TensorCursor {
 public:
  explicit TensorCursor(const std::byte* at) : at_(at) {}
  Tensor take(int64_t rows, int64_t cols) {
    Tensor t{DType::F32, at_, rows, cols};
    at_ += rows * cols * static_cast<int64_t>(sizeof(float));
    return t;
  }
  // Layer l's slice of a tensor stacked over n_layers.
  static Tensor layer(const Tensor& stacked, int l, int64_t rows, int64_t cols) {
    return Tensor{DType::F32, stacked.data + l * rows * cols * static_cast<int64_t>(sizeof(float)), rows,
                  cols};
  }

 private:
  const std::byte* at_;
};

int64_t expected_floats(const ModelConfig& c, bool shared_classifier) {
  const int64_t dim = c.dim, hidden = c.hidden_dim, layers = c.n_layers, kv_dim = c.kv_dim();
  const int64_t vocab = c.vocab_size, head_size = c.head_dim;
  int64_t n = vocab * dim;                                   // token_embedding
  n += layers * dim;                                         // rms_att
  n += layers * (dim * dim + 2 * kv_dim * dim + dim * dim);  // wq, wk, wv, wo
  n += layers * dim;                                         // rms_ffn
  n += layers * 3 * hidden * dim;                            // w1, w2, w3
  n += dim;                                                  // rms_final
  n += 2 * int64_t{c.max_seq_len} * (head_size / 2);         // freq_cis_real, freq_cis_imag
  if (!shared_classifier) n += vocab * dim;                  // wcls
  return n;
}

}  // namespace

Result<Model> read_llama2c_checkpoint(std::shared_ptr<const Bytes> bytes) {
  const std::string& source = bytes->name();
  ByteReader reader(*bytes);
  if (bytes->size() < kHeaderBytes)
    return error(ErrorCode::NotAModel, source, ": not a llama2.c checkpoint: the header needs ", kHeaderBytes,
                 " bytes, the file has ", bytes->size());

  static constexpr const char* kFields[7] = {"dim",        "hidden_dim", "n_layers", "n_heads",
                                             "n_kv_heads", "vocab_size", "seq_len"};
  int32_t header[7];
  for (int i = 0; i < 7; ++i) {
    auto value = reader.read<int32_t>(kFields[i]);
    if (!value) return value.error();
    header[i] = *value;
  }

  Model model;
  ModelConfig& c = model.config;
  c.architecture = "llama2.c";
  c.dim = header[0];
  c.hidden_dim = header[1];
  c.n_layers = header[2];
  c.n_heads = header[3];
  c.n_kv_heads = header[4];
  // A negative vocab_size is llama2.c's flag for "the classifier is not shared with the embedding".
  const bool shared_classifier = header[5] > 0;
  if (header[5] == INT32_MIN)  // the one negative int32 without a positive counterpart
    return error(ErrorCode::Malformed, source,
                 ": vocab_size must be a token count (negative: with a separate classifier), found ",
                 header[5]);
  c.vocab_size = header[5] < 0 ? -header[5] : header[5];
  c.max_seq_len = header[6];
  c.head_dim = c.n_heads > 0 ? c.dim / c.n_heads : 0;
  c.norm = NormKind::RMSNorm;
  c.norm_eps = 1e-5f;
  c.position = PositionKind::RoPE;
  c.rope_pairing = RopePairing::Adjacent;
  c.rope_theta = 10000.0f;
  c.activation = Activation::SiLU;
  c.gated_ffn = true;
  c.tied_embeddings = shared_classifier;
  GLASSBOX_TRY(validate(c, source));

  const int64_t expected_bytes = static_cast<int64_t>(kHeaderBytes) +
                                 expected_floats(c, shared_classifier) * static_cast<int64_t>(sizeof(float));
  const int64_t file_bytes = static_cast<int64_t>(bytes->size());
  // Too few bytes: the file ends early. Too many: nothing was cut off, the header is not this file's.
  if (expected_bytes != file_bytes)
    return error(expected_bytes > file_bytes ? ErrorCode::Truncated : ErrorCode::Malformed, source,
                 ": file size disagrees with the header: dim ", c.dim, ", hidden_dim ", c.hidden_dim,
                 ", n_layers ", c.n_layers, ", n_heads ", c.n_heads, ", n_kv_heads ", c.n_kv_heads,
                 ", vocab_size ", header[5], ", seq_len ", c.max_seq_len, ": they need ", expected_bytes,
                 " bytes, the file has ", bytes->size(),
                 " (a truncated file, or a header from another model)");

  const int64_t dim = c.dim, hidden = c.hidden_dim, kv_dim = c.kv_dim(), L = c.n_layers;
  TensorCursor cursor(bytes->data() + kHeaderBytes);
  ModelWeights& w = model.weights;
  w.token_embedding = cursor.take(c.vocab_size, dim);
  const Tensor rms_att = cursor.take(L, dim);
  const Tensor wq = cursor.take(L * dim, dim);
  const Tensor wk = cursor.take(L * kv_dim, dim);
  const Tensor wv = cursor.take(L * kv_dim, dim);
  const Tensor wo = cursor.take(L * dim, dim);
  const Tensor rms_ffn = cursor.take(L, dim);
  const Tensor w1 = cursor.take(L * hidden, dim);
  const Tensor w2 = cursor.take(L * dim, hidden);
  const Tensor w3 = cursor.take(L * hidden, dim);
  w.final_norm = cursor.take(1, dim);
  cursor.take(2 * int64_t{c.max_seq_len}, c.head_dim / 2);  // the RoPE tables, recomputed by the session
  w.output = shared_classifier ? w.token_embedding : cursor.take(c.vocab_size, dim);

  w.layers.resize(static_cast<std::size_t>(L));
  for (int l = 0; l < L; ++l) {
    LayerWeights& layer = w.layers[static_cast<std::size_t>(l)];
    layer.attn_norm = TensorCursor::layer(rms_att, l, 1, dim);
    layer.wq = TensorCursor::layer(wq, l, dim, dim);
    layer.wk = TensorCursor::layer(wk, l, kv_dim, dim);
    layer.wv = TensorCursor::layer(wv, l, kv_dim, dim);
    layer.wo = TensorCursor::layer(wo, l, dim, dim);
    layer.ffn_norm = TensorCursor::layer(rms_ffn, l, 1, dim);
    layer.ffn_gate = TensorCursor::layer(w1, l, hidden, dim);
    layer.ffn_down = TensorCursor::layer(w2, l, dim, hidden);
    layer.ffn_up = TensorCursor::layer(w3, l, hidden, dim);
  }
  model.storage.push_back(std::move(bytes));
  return model;
}

Result<Model> load_llama2c_checkpoint(const std::string& path) {
  auto bytes = map_file(path);
  if (!bytes) return bytes.error();
  return read_llama2c_checkpoint(std::move(*bytes));
}

}  // namespace glassbox
