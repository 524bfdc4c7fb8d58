// The one spelling of each architectural choice in a ModelConfig. to_string(...) prints it, the GGUF
// `glassbox` architecture stores it in its metadata (glassbox.norm, glassbox.rope.pairing, ...), and the GGUF
// reader parses it back. The independent NumPy reference (tests/reference) writes the same spellings into the
// GGUF files it makes, so these are a file format: change one only together with that writer.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

#include "glassbox/config.hpp"

namespace glassbox {

template <class T>
struct ChoiceName {
  T value;
  const char* name;
};

inline constexpr ChoiceName<NormKind> kNormKindNames[] = {
    {NormKind::RMSNorm, "rmsnorm"},
    {NormKind::LayerNorm, "layernorm"},
};
inline constexpr ChoiceName<NormPlacement> kNormPlacementNames[] = {
    {NormPlacement::PreNorm, "pre"},
    {NormPlacement::PostNorm, "post"},
    {NormPlacement::Sandwich, "sandwich"},
};
inline constexpr ChoiceName<PositionKind> kPositionKindNames[] = {
    {PositionKind::RoPE, "rope"},
    {PositionKind::Learned, "learned"},
    {PositionKind::Sinusoidal, "sinusoidal"},
    {PositionKind::None, "none"},
    {PositionKind::ALiBi, "alibi"},
};
inline constexpr ChoiceName<RopePairing> kRopePairingNames[] = {
    {RopePairing::Adjacent, "adjacent"},
    {RopePairing::HalfSplit, "half"},
};
inline constexpr ChoiceName<Activation> kActivationNames[] = {
    {Activation::SiLU, "silu"},
    {Activation::GELU, "gelu"},
    {Activation::ReLU, "relu"},
    {Activation::GELUExact, "gelu_erf"},
};
inline constexpr ChoiceName<Pooling> kPoolingNames[] = {
    {Pooling::None, "none"},
    {Pooling::Mean, "mean"},
    {Pooling::Cls, "cls"},
};

// The table for a choice type: choice_names<NormKind>().
template <class T>
constexpr std::span<const ChoiceName<T>> choice_names() {
  if constexpr (std::is_same_v<T, NormKind>) return kNormKindNames;
  if constexpr (std::is_same_v<T, NormPlacement>) return kNormPlacementNames;
  if constexpr (std::is_same_v<T, PositionKind>) return kPositionKindNames;
  if constexpr (std::is_same_v<T, RopePairing>) return kRopePairingNames;
  if constexpr (std::is_same_v<T, Activation>) return kActivationNames;
  if constexpr (std::is_same_v<T, Pooling>) return kPoolingNames;
}

template <class T>
constexpr const char* choice_name(T value) {
  for (const ChoiceName<T>& c : choice_names<T>())
    if (c.value == value) return c.name;
  return "?";
}

template <class T>
constexpr std::optional<T> parse_choice(std::string_view name) {
  for (const ChoiceName<T>& c : choice_names<T>())
    if (name == c.name) return c.value;
  return std::nullopt;
}

}  // namespace glassbox
