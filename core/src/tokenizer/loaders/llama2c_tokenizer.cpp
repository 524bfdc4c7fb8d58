// llama2.c's tokenizer.bin: int32 max_token_length, then for each token float32 score, int32 byte length and
// the bytes (no terminator). The token count is not stored: the entries run to the end of the file. By
// llama2.c's convention id 0 is <unk>, 1 is BOS and 2 is EOS, and SentencePiece's "▁" is already a space.
#include <cctype>
#include <cmath>

#include "formats/byte_reader.hpp"
#include "glassbox/formats.hpp"

namespace glassbox {
namespace {
constexpr int32_t kMaxTokenLength = 1 << 16;
}

Result<Tokenizer> read_llama2c_tokenizer(const Bytes& bytes) {
  const std::string& source = bytes.name();
  ByteReader reader(bytes);
  auto max_length = reader.read<int32_t>("max_token_length");
  if (!max_length) return max_length.error();
  if (*max_length <= 0 || *max_length > kMaxTokenLength)
    return error(ErrorCode::Malformed, source, ": max_token_length must be in 1..", kMaxTokenLength,
                 ", found ", *max_length);

  Vocabulary vocab;
  while (reader.remaining() > 0) {
    const std::size_t id = vocab.pieces.size();
    const std::string field = cat("token ", id);
    auto score = reader.read<float>(field + " score");
    if (!score) return score.error();
    if (!std::isfinite(*score))
      return error(ErrorCode::Malformed, source, ": ", field, " score must be finite, found ", *score);
    auto length = reader.read<int32_t>(field + " length");
    if (!length) return length.error();
    if (*length < 0 || *length > *max_length)
      return error(ErrorCode::Malformed, source, ": ", field, " length must be in 0..", *max_length,
                   " (max_token_length), found ", *length);
    auto piece = reader.read_bytes(static_cast<uint64_t>(*length), field + " bytes");
    if (!piece) return piece.error();

    vocab.pieces.emplace_back(*piece);
    vocab.scores.push_back(*score);
    const std::string& p = vocab.pieces.back();
    const auto hex = [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; };
    const bool byte_piece = p.size() == 6 && p.rfind("<0x", 0) == 0 && hex(p[3]) && hex(p[4]) && p[5] == '>';
    vocab.types.push_back(id == 0                ? TokenType::Unknown
                          : (id == 1 || id == 2) ? TokenType::Control
                          : byte_piece           ? TokenType::Byte
                                                 : TokenType::Normal);
  }
  if (vocab.pieces.size() < 3)
    return error(ErrorCode::Malformed, source,
                 ": a llama2.c tokenizer needs at least 3 tokens (<unk>, BOS, EOS), found ",
                 vocab.pieces.size());
  vocab.unk_id = 0;
  vocab.bos_id = 1;
  vocab.eos_id = 2;
  vocab.add_bos = true;
  vocab.add_space_prefix = true;
  return Tokenizer::create(std::move(vocab), source);
}

Result<Tokenizer> load_llama2c_tokenizer(const std::string& path) {
  auto bytes = map_file(path);
  if (!bytes) return bytes.error();
  return read_llama2c_tokenizer(**bytes);
}

Result<void> check_tokenizer_matches(const Tokenizer& tokenizer, const Model& model,
                                     const std::string& source) {
  // The encoders glassbox reads (BERT, nomic-bert's nomic-embed-text v1 and v1.5) read WordPiece text: a BPE
  // vocabulary of the same size would run, but as nonsense.
  const std::string& architecture = model.config.architecture;
  if (!model.config.causal && (architecture == "bert" || architecture == "nomic-bert") &&
      tokenizer.kind() != TokenizerKind::WordPiece)
    return error(ErrorCode::VocabMismatch, source, ": a ", architecture == "bert" ? "BERT" : architecture,
                 " model reads WordPiece tokens, but this tokenizer is ",
                 tokenizer.kind() == TokenizerKind::SentencePiece ? "SentencePiece" : "byte-level BPE",
                 " (is this the model's own tokenizer?)");
  const int tokens = tokenizer.vocab_size(), rows = model.config.vocab_size;
  const bool padded_format = model.config.architecture != "llama2.c";
  if (tokens == rows || (padded_format && tokens < rows)) return ok();
  return error(ErrorCode::VocabMismatch, source, ": the tokenizer has ", tokens,
               " tokens but the model's vocab_size is ", rows, " (is this the model's own tokenizer?)");
}

}  // namespace glassbox
