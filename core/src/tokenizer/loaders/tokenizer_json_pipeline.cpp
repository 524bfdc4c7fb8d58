// tokenizer.json's text pipeline: which normalizer, pre_tokenizer and post_processor steps glassbox can
// honour and what they mean for the Vocabulary. Steps that would change the tokens in ways glassbox does not
// implement are refused with an error naming the step, never ignored.
#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "tokenizer/loaders/tokenizer_json.hpp"

namespace glassbox::tokenizer_json {
namespace {

// The pre-tokenizer regexes glassbox implements (tokenizer/pre_tokenizer.hpp), as tokenizer.json spells them.
constexpr std::pair<const char*, PreTokenizer> kKnownRegexes[] = {
    {R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)", PreTokenizer::Gpt2},
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     PreTokenizer::Llama3},
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     PreTokenizer::Qwen2},
};

// The "type" of a pipeline step ("" when absent).
Result<std::string> type_of(const Value& step, const std::string& path, const Fields& f) {
  return f.text(step, path, "type", "");
}

// The steps of a pre_tokenizer or normalizer: the items of a Sequence, or the step itself.
Result<std::vector<std::pair<const Value*, std::string>>> steps_of(const Value* node, const std::string& path,
                                                                   const char* list, const Fields& f) {
  std::vector<std::pair<const Value*, std::string>> steps;
  if (!node) return steps;
  GLASSBOX_ASSIGN(const std::string type, type_of(*node, path, f));
  if (type != "Sequence") {
    steps.emplace_back(node, path);
    return steps;
  }
  const Value* items = json::find(*node, list);
  if (!items || !items->IsArray()) return f.fail(path, ".", list, " must be an array");
  for (rapidjson::SizeType k = 0; k < items->Size(); ++k) {
    const Value& item = (*items)[k];
    const std::string item_path = json::item(json::join(path, list), k);
    if (!item.IsObject()) return f.fail(item_path, " must be an object");
    steps.emplace_back(&item, item_path);
  }
  return steps;
}

}  // namespace

bool mentions(const Value* step, std::string_view type) {
  if (!step || !step->IsObject()) return false;
  const Value* t = json::find(*step, "type");
  if (t && t->IsString() && json::text_of(*t) == type) return true;
  for (const char* list : {"pretokenizers", "normalizers", "decoders"}) {
    const Value* items = json::find(*step, list);
    if (!items || !items->IsArray()) continue;
    for (const Value& item : items->GetArray())
      if (mentions(&item, type)) return true;
  }
  return false;
}

Result<void> read_byte_level_pipeline(const Value* normalizer, const Value* pre, const Fields& f,
                                      Vocabulary& v) {
  auto normalizers = steps_of(normalizer, "normalizer", "normalizers", f);
  if (!normalizers) return normalizers.error();
  for (const auto& [step, path] : *normalizers) {
    auto type = type_of(*step, path, f);
    if (!type) return type.error();
    // Qwen2 asks for NFC. Like llama.cpp, glassbox does not normalize: this differs only on text that is not
    // in NFC already.
    if (*type != "NFC") return f.fail(path, ".type \"", *type, "\" is not supported with a byte-level model");
  }

  auto steps = steps_of(pre, "pre_tokenizer", "pretokenizers", f);
  if (!steps) return steps.error();
  bool split = false;
  bool byte_level = false;
  for (const auto& [step, path] : *steps) {
    auto type = type_of(*step, path, f);
    if (!type) return type.error();
    if (byte_level) return f.fail(path, ": nothing may follow the ByteLevel step");
    if (*type == "Split") {
      if (split) return f.fail(path, ": only one Split step is supported");
      split = true;
      auto pattern = f.object(*step, path, "pattern");
      if (!pattern) return pattern.error();
      auto regex = *pattern ? f.text(**pattern, path + ".pattern", "Regex", "") : Result<std::string>("");
      if (!regex) return regex.error();
      const auto known = std::find_if(std::begin(kKnownRegexes), std::end(kKnownRegexes),
                                      [&](const auto& r) { return *regex == r.first; });
      if (known == std::end(kKnownRegexes))
        return f.fail(path, ".pattern.Regex \"", *regex,
                      "\" is not a pre-tokenizer glassbox knows (GPT-2's, Llama 3's or Qwen2's)");
      v.pre_tokenizer = known->second;
      auto behavior = f.text(*step, path, "behavior", "");
      if (!behavior) return behavior.error();
      auto invert = f.flag(*step, path, "invert", false);
      if (!invert) return invert.error();
      if (*behavior != "Isolated" || *invert)
        return f.fail(path, ": only behavior \"Isolated\" without invert is supported");
    } else if (*type == "ByteLevel") {
      byte_level = true;
      // Hugging Face's defaults for absent fields.
      auto use_regex = f.flag(*step, path, "use_regex", true);
      if (!use_regex) return use_regex.error();
      auto prefix = f.flag(*step, path, "add_prefix_space", true);
      if (!prefix) return prefix.error();
      if (*prefix) return f.fail(path, ".add_prefix_space true is not supported");
      if (*use_regex && split) return f.fail(path, ".use_regex must be false after a Split step");
      if (!*use_regex && !split)
        return f.fail(path, ".use_regex false without a Split step is not supported");
      if (*use_regex) v.pre_tokenizer = PreTokenizer::Gpt2;
    } else {
      return f.fail(path, ".type \"", *type, "\" is not supported with a byte-level model");
    }
  }
  if (!byte_level) return f.fail("pre_tokenizer must end with a ByteLevel step");
  v.kind = TokenizerKind::ByteLevelBpe;
  v.add_space_prefix = false;
  return ok();
}

Result<void> read_sentencepiece_pipeline(const Value* normalizer, const Value* pre, const Fields& f,
                                         Vocabulary& v) {
  bool prepend = false;
  auto normalizers = steps_of(normalizer, "normalizer", "normalizers", f);
  if (!normalizers) return normalizers.error();
  for (const auto& [step, path] : *normalizers) {
    auto type = type_of(*step, path, f);
    if (!type) return type.error();
    if (*type == "Prepend") {
      auto text = f.text(*step, path, "prepend", "");
      if (!text) return text.error();
      if (*text != kMarker) return f.fail(path, ".prepend must be \"", kMarker, "\"");
      prepend = true;
    } else if (*type == "Replace") {
      auto pattern = f.object(*step, path, "pattern");
      if (!pattern) return pattern.error();
      auto from = *pattern ? f.text(**pattern, path + ".pattern", "String", "") : Result<std::string>("");
      if (!from) return from.error();
      auto to = f.text(*step, path, "content", "");
      if (!to) return to.error();
      if (*from != " " || *to != kMarker)
        return f.fail(path, ": only Replace of \" \" with \"", kMarker, "\" is supported");
    } else {
      return f.fail(path, ".type \"", *type, "\" is not supported with a SentencePiece-style model");
    }
  }

  auto steps = steps_of(pre, "pre_tokenizer", "pretokenizers", f);
  if (!steps) return steps.error();
  for (const auto& [step, path] : *steps) {
    auto type = type_of(*step, path, f);
    if (!type) return type.error();
    if (*type != "Metaspace")
      return f.fail(path, ".type \"", *type, "\" is not supported with a SentencePiece-style model");
    auto replacement = f.text(*step, path, "replacement", kMarker);
    if (!replacement) return replacement.error();
    if (*replacement != kMarker) return f.fail(path, ".replacement must be \"", kMarker, "\"");
    // Older files say add_prefix_space, newer ones prepend_scheme ("first" and "always" are the same here:
    // glassbox does not split the text at special tokens).
    auto legacy = f.flag(*step, path, "add_prefix_space", true);
    if (!legacy) return legacy.error();
    auto scheme = f.text(*step, path, "prepend_scheme", *legacy ? "always" : "never");
    if (!scheme) return scheme.error();
    if (*scheme != "first" && *scheme != "always" && *scheme != "never")
      return f.fail(path, ".prepend_scheme \"", *scheme, "\" must be first, always or never");
    prepend = prepend || *scheme != "never";
    // Splitting at every "▁" would keep merges from crossing words, which SentencePiece does not do. Files
    // from before the split field existed always split.
    auto split = f.flag(*step, path, "split", true);
    if (!split) return split.error();
    if (*split) return f.fail(path, ".split true is not supported (SentencePiece merges across spaces)");
  }
  v.kind = TokenizerKind::SentencePiece;
  v.add_space_prefix = prepend;
  return ok();
}

Result<void> read_wordpiece_pipeline(const Value* normalizer, const Value* pre, const Fields& f,
                                     Vocabulary& v) {
  WordPieceOptions& o = v.wordpiece;
  // Without a normalizer the text is taken as it is.
  o.clean_text = o.handle_chinese_chars = o.lowercase = o.strip_accents = false;
  GLASSBOX_ASSIGN(const auto normalizers, steps_of(normalizer, "normalizer", "normalizers", f));
  bool nfd = false;
  bool strip = false;
  for (const auto& [step, path] : normalizers) {
    GLASSBOX_ASSIGN(const std::string type, type_of(*step, path, f));
    if (type == "BertNormalizer") {
      // Hugging Face's defaults for absent fields; strip_accents null follows lowercase.
      GLASSBOX_ASSIGN(o.clean_text, f.flag(*step, path, "clean_text", true));
      GLASSBOX_ASSIGN(o.handle_chinese_chars, f.flag(*step, path, "handle_chinese_chars", true));
      GLASSBOX_ASSIGN(const bool lowercase, f.flag(*step, path, "lowercase", true));
      GLASSBOX_ASSIGN(const bool strip_accents, f.flag(*step, path, "strip_accents", lowercase));
      o.lowercase = o.lowercase || lowercase;
      o.strip_accents = o.strip_accents || strip_accents;
    } else if (type == "Lowercase") {
      o.lowercase = true;
    } else if (type == "NFD") {
      nfd = true;
    } else if (type == "StripAccents") {
      strip = true;
    } else {
      return f.fail(path, ".type \"", type, "\" is not supported with a WordPiece model");
    }
  }
  // StripAccents drops nonspacing marks only; after NFD that is BertNormalizer's strip_accents. Either alone
  // would leave text glassbox does not produce (decomposed characters, or precomposed ones kept).
  if (nfd != strip)
    return f.fail("normalizer: NFD and StripAccents are supported only together (BERT's strip_accents)");
  o.strip_accents = o.strip_accents || (nfd && strip);

  GLASSBOX_ASSIGN(const auto steps, steps_of(pre, "pre_tokenizer", "pretokenizers", f));
  if (steps.size() != 1) return f.fail("pre_tokenizer must be a BertPreTokenizer with a WordPiece model");
  GLASSBOX_ASSIGN(const std::string type, type_of(*steps[0].first, steps[0].second, f));
  if (type != "BertPreTokenizer")
    return f.fail(steps[0].second, ".type \"", type, "\" is not supported with a WordPiece model (glassbox ",
                  "reads BertPreTokenizer)");
  v.kind = TokenizerKind::WordPiece;
  v.add_space_prefix = false;
  return ok();
}

Result<void> read_post_processor(const Value* node, const std::string& path, const Fields& f, Specials& s) {
  if (!node) return ok();
  auto type = type_of(*node, path, f);
  if (!type) return type.error();
  if (*type == "Sequence") {
    auto items = f.array(*node, path, "processors");
    if (!items) return items.error();
    if (!*items) return ok();
    for (rapidjson::SizeType k = 0; k < (*items)->Size(); ++k) {
      const Value& item = (**items)[k];
      const std::string item_path = json::item(path + ".processors", k);
      if (!item.IsObject()) return f.fail(item_path, " must be an object");
      GLASSBOX_TRY(read_post_processor(&item, item_path, f, s));
    }
  } else if (*type == "TemplateProcessing") {
    auto single = f.array(*node, path, "single");
    if (!single) return single.error();
    if (!*single) return ok();
    bool after_text = false;
    for (rapidjson::SizeType k = 0; k < (*single)->Size(); ++k) {
      const Value& item = (**single)[k];
      if (json::find(item, "Sequence")) {
        after_text = true;
        continue;
      }
      const Value* special = json::find(item, "SpecialToken");
      if (!special) continue;
      auto id = f.text(*special, json::item(path + ".single", k) + ".SpecialToken", "id", "");
      if (!id) return id.error();
      if (!after_text && s.bos.empty()) {
        s.bos = *id;
        s.add_bos = true;
      } else if (after_text && s.eos.empty()) {
        s.eos = *id;
        s.eos_after_text = true;
      }
    }
  } else if (*type == "RobertaProcessing" || *type == "BertProcessing") {
    for (const char* key : {"cls", "sep"}) {
      const Value* pair = json::find(*node, key);
      if (!pair || !pair->IsArray() || pair->Empty() || !(*pair)[0].IsString())
        return f.fail(path, ".", key, " must be [token, id]");
      (key[0] == 'c' ? s.bos : s.eos) = json::text_of((*pair)[0]);
    }
    s.add_bos = true;
    s.eos_after_text = true;
  }
  return ok();
}

}  // namespace glassbox::tokenizer_json
