// Helpers for the GGUF tests: a tiny valid llama-architecture model written with GgufWriter (whose
// hyper-parameters, extra keys and extra tensors a test can change), parsing from memory, and damaging bytes.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "formats/gguf.hpp"
#include "formats/gguf_writer.hpp"
#include "glassbox/formats.hpp"
#include "test_support.hpp"

namespace glassbox::test {

inline GgufValue gguf_integer(GgufType type, int64_t value) {
  GgufValue v;
  v.type = type;
  v.integer = value;
  return v;
}
inline GgufValue gguf_real(GgufType type, double value) {
  GgufValue v;
  v.type = type;
  v.real = value;
  return v;
}
inline GgufValue gguf_string(std::string value) {
  GgufValue v;
  v.type = GgufType::String;
  v.text = std::move(value);
  return v;
}

// A tiny, valid llama-architecture model: dim 8, 1 layer, 2 heads, vocab 4.
struct TinyLlama {
  int dim = 8, hidden = 16, heads = 2, kv_heads = 2, vocab = 4, layers = 1;
  int tensor_layers = -1;  // how many layers of tensors to write; -1: `layers`
  std::string architecture = "llama";
  uint32_t q_type = 0;  // ggml type of attn_q
  // Replaces the value of a metadata key the model writes ("llama.block_count"), or adds it.
  std::map<std::string, GgufValue> metadata;
  std::vector<std::string>
      extra_tensors;  // more float32 vectors of `dim` values (e.g. rope_factors_long.weight)
  std::map<std::string, std::vector<float>> extra_vectors;  // more float32 vectors with these values
  bool with_tokenizer = false;  // a 4-token SentencePiece vocabulary in tokenizer.ggml.*
  std::vector<std::vector<float>> storage;

  GgufWriter writer() {
    GgufWriter w;
    std::map<std::string, GgufValue> pending = metadata;
    const auto add = [&](const std::string& key, GgufValue fallback) {
      auto it = pending.find(key);
      if (it == pending.end()) return w.add(key, std::move(fallback));
      w.add(key, it->second);
      pending.erase(it);
    };
    const auto u32 = [](int64_t v) { return gguf_integer(GgufType::Uint32, v); };
    add("general.architecture", gguf_string(architecture));
    const std::string a = architecture + ".";
    add(a + "context_length", u32(16));
    add(a + "embedding_length", u32(dim));
    add(a + "feed_forward_length", u32(hidden));
    add(a + "block_count", u32(layers));
    add(a + "attention.head_count", u32(heads));
    add(a + "attention.head_count_kv", u32(kv_heads));
    add(a + "attention.layer_norm_rms_epsilon", gguf_real(GgufType::Float32, 1e-5));
    for (auto& [key, value] : pending)
      w.add(key, value);
    if (with_tokenizer) {
      w.add_string("tokenizer.ggml.model", "llama");
      w.add_string_array("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>",
                                                   "\xe2\x96\x81"
                                                   "a"});
      w.add_float32_array("tokenizer.ggml.scores", {0, 0, 0, -1});
      w.add_int32_array("tokenizer.ggml.token_type", {2, 3, 3, 1});
    }
    auto tensor = [&](const std::string& name, std::vector<uint64_t> dims, uint32_t type = 0,
                      std::vector<float> values = {}) {
      uint64_t n = 1;
      for (uint64_t d : dims)
        n *= d;
      if (values.empty()) values.assign(n, 0.5f);
      storage.push_back(std::move(values));
      const auto* data = reinterpret_cast<const std::byte*>(storage.back().data());
      w.add_tensor(name, dims, type, std::span<const std::byte>(data, n * 4));
    };
    const uint64_t d = static_cast<uint64_t>(dim), h = static_cast<uint64_t>(hidden);
    const uint64_t kv = static_cast<uint64_t>(dim / heads * kv_heads);
    tensor("token_embd.weight", {d, static_cast<uint64_t>(vocab)});
    for (int l = 0; l < (tensor_layers < 0 ? layers : tensor_layers); ++l) {
      const std::string b = "blk." + std::to_string(l) + ".";
      tensor(b + "attn_norm.weight", {d});
      tensor(b + "attn_q.weight", {d, d}, q_type);
      tensor(b + "attn_k.weight", {d, kv});
      tensor(b + "attn_v.weight", {d, kv});
      tensor(b + "attn_output.weight", {d, d});
      tensor(b + "ffn_norm.weight", {d});
      tensor(b + "ffn_gate.weight", {d, h});
      tensor(b + "ffn_up.weight", {d, h});
      tensor(b + "ffn_down.weight", {h, d});
    }
    tensor("output_norm.weight", {d});
    for (const std::string& name : extra_tensors)
      tensor(name, {d});
    for (const auto& [name, values] : extra_vectors)
      tensor(name, {values.size()}, 0, values);
    return w;
  }
  std::vector<std::byte> bytes() { return writer().to_bytes(); }
};

inline Result<GgufFile> parse(std::vector<std::byte> bytes) {
  return read_gguf(bytes_from_buffer(std::move(bytes), "t.gguf"));
}
inline Result<Model> model_of(std::vector<std::byte> bytes) {
  return read_gguf_model(bytes_from_buffer(std::move(bytes), "t.gguf"));
}

// Offset of the first occurrence of `text` in the file (to damage a specific field).
inline std::size_t find(const std::vector<std::byte>& bytes, const std::string& text) {
  const auto* begin = reinterpret_cast<const char*>(bytes.data());
  const std::string_view all(begin, bytes.size());
  const std::size_t at = all.find(text);
  EXPECT_NE(at, std::string_view::npos) << text;
  return at;
}

template <class T>
void poke(std::vector<std::byte>& bytes, std::size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

}  // namespace glassbox::test
