// The spellings of the attention variants (glassbox/attention_variant.hpp) and their bounds.
#include "glassbox/attention_variant.hpp"

#include <charconv>
#include <vector>

#include "glassbox/error.hpp"

namespace glassbox {
namespace {

constexpr std::string_view kSpellings =
    "exact, window:W, global-window:G,W, linear, performer:M[:SEED] or low-rank:R";

// The text split at every `separator`.
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// A whole decimal number of `what` in [low, high].
template <class T>
Result<T> number(std::string_view text, std::string_view what, std::string_view variant, T low, T high) {
  T value{};
  const auto [end, failed] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || failed != std::errc() || end != text.data() + text.size())
    return error(ErrorCode::BadArgument, "attention '", variant, "': the ", what,
                 " must be a whole number, found '", text, "'");
  if (value < low || value > high)
    return error(ErrorCode::BadArgument, "attention '", variant, "': the ", what, " must be ", low, " to ",
                 high, ", found ", value);
  return value;
}

Result<void> arguments(std::string_view variant, const std::vector<std::string_view>& parts, std::size_t low,
                       std::size_t high, std::string_view form) {
  const std::size_t given = parts.size() - 1;
  if (given < low || given > high)
    return error(ErrorCode::BadArgument, "attention '", variant, "': write it as ", form);
  return ok();
}

Result<AttentionVariant> parse_variant_kind(std::string_view text);
std::string to_string_of_kind(const AttentionVariant& v);

}  // namespace

Result<void> check_attention_variant(const AttentionVariant& v) {
  const std::string spelled = to_string(v);
  if (v.first_layer < 0 || v.first_layer > kMaxVariantLayer || v.last_layer > kMaxVariantLayer ||
      (v.last_layer >= 0 && v.last_layer < v.first_layer) || v.last_layer < -1)
    return error(ErrorCode::BadArgument, "attention '", spelled,
                 "': the layers must be A-B with 0 <= A <= B, found ", v.first_layer, "-", v.last_layer);
  switch (v.kind) {
    case AttentionKind::Exact:
    case AttentionKind::Linear:
      return ok();
    case AttentionKind::GlobalWindow:
      if (v.global_keys < 1 || v.global_keys > kMaxAttentionWindow)
        return error(ErrorCode::BadArgument, "attention '", spelled, "': the global keys G must be 1 to ",
                     kMaxAttentionWindow, ", found ", v.global_keys);
      [[fallthrough]];
    case AttentionKind::Window:
      if (v.window < 1 || v.window > kMaxAttentionWindow)
        return error(ErrorCode::BadArgument, "attention '", spelled, "': the window W must be 1 to ",
                     kMaxAttentionWindow, " keys (a query always sees itself), found ", v.window);
      return ok();
    case AttentionKind::Performer:
      if (v.features < 1 || v.features > kMaxPerformerFeatures)
        return error(ErrorCode::BadArgument, "attention '", spelled, "': the features M must be 1 to ",
                     kMaxPerformerFeatures, ", found ", v.features);
      return ok();
    case AttentionKind::LowRank:
      if (v.rank < 1 || v.rank > kMaxLowRank)
        return error(ErrorCode::BadArgument, "attention '", spelled, "': the rank R must be 1 to ",
                     kMaxLowRank, ", found ", v.rank);
      return ok();
  }
  return error(ErrorCode::BadArgument, "attention: unknown kind");
}

// "@L" or "@A-B" after a variant: the layers it runs in.
Result<void> parse_layers(std::string_view layers, std::string_view text, AttentionVariant& v) {
  const std::vector<std::string_view> ends = split(layers, '-');
  if (ends.size() > 2)
    return error(ErrorCode::BadArgument, "attention '", text,
                 "': write its layers as @L, @A-B or @A- (e.g. window:8@2 or linear@1-3)");
  GLASSBOX_ASSIGN(v.first_layer, number(ends[0], "first layer", text, 0, kMaxVariantLayer));
  v.last_layer = v.first_layer;
  if (ends.size() == 2 && ends[1].empty()) {
    v.last_layer = -1;  // @A-: from layer A to the last
  } else if (ends.size() == 2) {
    GLASSBOX_ASSIGN(v.last_layer, number(ends[1], "last layer", text, v.first_layer, kMaxVariantLayer));
  }
  return ok();
}

Result<AttentionVariant> parse_attention_variant(std::string_view full_text) {
  const std::size_t at = full_text.find('@');
  const std::string_view text = full_text.substr(0, at);
  GLASSBOX_ASSIGN(AttentionVariant v, parse_variant_kind(text));
  if (at != std::string_view::npos) {
    if (v.is_exact())
      return error(ErrorCode::BadArgument, "attention '", full_text,
                   "': exact attention is every layer's already; layers go with a variant (e.g. window:8@2)");
    GLASSBOX_TRY(parse_layers(full_text.substr(at + 1), full_text, v));
  }
  return v;
}

namespace {  // the kind and its parameters, without the layers

Result<AttentionVariant> parse_variant_kind(std::string_view text) {
  const std::vector<std::string_view> parts = split(text, ':');
  const std::string_view kind = parts[0];
  AttentionVariant v;
  if (kind == "exact" || kind == "linear") {
    GLASSBOX_TRY(arguments(text, parts, 0, 0, kind));
    v.kind = kind == "exact" ? AttentionKind::Exact : AttentionKind::Linear;
  } else if (kind == "window") {
    GLASSBOX_TRY(arguments(text, parts, 1, 1, "window:W (W keys, e.g. window:8)"));
    v.kind = AttentionKind::Window;
    GLASSBOX_ASSIGN(v.window, number(parts[1], "window W", text, 1, kMaxAttentionWindow));
  } else if (kind == "global-window") {
    const char* form = "global-window:G,W (G global keys and a window of W, e.g. global-window:1,8)";
    GLASSBOX_TRY(arguments(text, parts, 1, 1, form));
    const std::vector<std::string_view> sizes = split(parts[1], ',');
    if (sizes.size() != 2) return error(ErrorCode::BadArgument, "attention '", text, "': write it as ", form);
    v.kind = AttentionKind::GlobalWindow;
    GLASSBOX_ASSIGN(v.global_keys, number(sizes[0], "global keys G", text, 1, kMaxAttentionWindow));
    GLASSBOX_ASSIGN(v.window, number(sizes[1], "window W", text, 1, kMaxAttentionWindow));
  } else if (kind == "performer") {
    GLASSBOX_TRY(arguments(text, parts, 1, 2, "performer:M or performer:M:SEED (M random features)"));
    v.kind = AttentionKind::Performer;
    GLASSBOX_ASSIGN(v.features, number(parts[1], "features M", text, 1, kMaxPerformerFeatures));
    v.seed = kDefaultPerformerSeed;
    if (parts.size() == 3) {
      GLASSBOX_ASSIGN(v.seed, number<uint64_t>(parts[2], "seed", text, 0, UINT64_MAX));
    }
  } else if (kind == "low-rank") {
    GLASSBOX_TRY(arguments(text, parts, 1, 1, "low-rank:R (rank R, e.g. low-rank:4)"));
    v.kind = AttentionKind::LowRank;
    GLASSBOX_ASSIGN(v.rank, number(parts[1], "rank R", text, 1, kMaxLowRank));
  } else {
    return error(ErrorCode::BadArgument, "unknown attention '", text, "': expected ", kSpellings);
  }
  return v;
}

}  // namespace

std::string to_string(const AttentionVariant& v) {
  std::string layers;
  if (!v.every_layer())
    layers = v.last_layer == v.first_layer ? cat("@", v.first_layer)
             : v.last_layer < 0            ? cat("@", v.first_layer, "-")
                                           : cat("@", v.first_layer, "-", v.last_layer);
  return to_string_of_kind(v) + layers;
}

namespace {

std::string to_string_of_kind(const AttentionVariant& v) {
  switch (v.kind) {
    case AttentionKind::Exact:
      return "exact";
    case AttentionKind::Window:
      return cat("window:", v.window);
    case AttentionKind::GlobalWindow:
      return cat("global-window:", v.global_keys, ",", v.window);
    case AttentionKind::Linear:
      return "linear";
    case AttentionKind::Performer:
      return cat("performer:", v.features, ":", v.seed);
    case AttentionKind::LowRank:
      return cat("low-rank:", v.rank);
  }
  return "unknown";
}

}  // namespace

}  // namespace glassbox
