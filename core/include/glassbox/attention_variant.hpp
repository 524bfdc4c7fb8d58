// Which attention a run computes: the model's own (exact softmax), or one of the approximations the seeds
// discuss, each computed from the very q, k, v the exact path has (after RoPE), so that swapping one in shows
// what it keeps and what it loses on a trained model.
//   exact               softmax(q·k / sqrt(d)) over the keys the model's mask shows (the default)
//   window:W            exact softmax over the W most recent keys only, the query's own included (Longformer)
//   global-window:G,W   the first G positions are keys every query sees, plus the window (BigBird)
//   linear              phi(x) = elu(x) + 1 on q and k (before the 1/sqrt(d) scaling);
//                       out_t = sum_{s<=t} (phi(q_t)·phi(k_s)) v_s / sum_{s<=t} phi(q_t)·phi(k_s),
//                       kept as running sums: O(1) memory and O(d^2) work per token (Katharopoulos et al.)
//   performer:M[:SEED]  FAVOR+: M positive orthogonal random features whose dot products approximate
//                       exp(q·k / sqrt(d)), the same running sums (Choromanski et al.)
//   low-rank:R          each head's causal attention matrix truncated to its best rank R (SVD), the output
//                       computed from it (Linformer's premise). It needs the whole matrix, so only a prompt
//                       read in one forward pass takes it (score, inspect), never generation.
// Any of them may be confined to some layers with a suffix: window:8@2 (layer 2 only), linear@1-3 (layers 1
// to 3), low-rank:4@2- (layer 2 to the last); the other layers keep exact attention. Without one the variant runs in every layer.
// Window and global-window are masks: model/visible_keys.hpp states them with the model's own masks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "glassbox/result.hpp"

namespace glassbox {

enum class AttentionKind : uint8_t { Exact, Window, GlobalWindow, Linear, Performer, LowRank };

struct AttentionVariant {
  AttentionKind kind = AttentionKind::Exact;
  int window = 0;       // Window, GlobalWindow: keys a query sees counting back from itself (>= 1)
  int global_keys = 0;  // GlobalWindow: positions 0 .. G-1 every query sees (>= 1)
  int features = 0;     // Performer: random features M
  uint64_t seed = 0;    // Performer: the draw of the features
  int rank = 0;         // LowRank: R
  int first_layer = 0;  // the layers it runs in: first_layer .. last_layer (-1: to the last one)
  int last_layer = -1;

  bool is_exact() const { return kind == AttentionKind::Exact; }
  // Whether `layer` runs the variant (the others run exact attention).
  bool applies_to(int layer) const {
    return !is_exact() && layer >= first_layer && (last_layer < 0 || layer <= last_layer);
  }
  bool every_layer() const { return first_layer == 0 && last_layer < 0; }
  // Linear and Performer: attention through a feature map and running sums instead of a softmax row.
  bool uses_features() const { return kind == AttentionKind::Linear || kind == AttentionKind::Performer; }
  // LowRank needs a head's whole attention matrix, so it reads a prompt in one pass and cannot generate.
  bool needs_whole_prompt() const { return kind == AttentionKind::LowRank; }
};

// Bounds of the parameters (the parser and Session::create check them).
inline constexpr int kMaxAttentionWindow = 1 << 20;
inline constexpr int kMaxPerformerFeatures = 4096;
inline constexpr int kMaxLowRank = 4096;
inline constexpr int kMaxVariantLayer = 1 << 16;
inline constexpr uint64_t kDefaultPerformerSeed = 1;

// Reads the CLI's spelling: exact, window:W, global-window:G,W, linear, performer:M[:SEED], low-rank:R, each
// optionally followed by @L, @A-B or @A- (the layers it runs in). BadArgument naming what is wrong: an unknown
// kind, a missing or non-numeric parameter, a window of 0, M or R out of range, a layer range backwards.
// Whether the layers exist is the model's to say (Session::create).
Result<AttentionVariant> parse_attention_variant(std::string_view text);

// Checks a variant built in code the same way the parser checks a spelling.
Result<void> check_attention_variant(const AttentionVariant& variant);

// The spelling parse_attention_variant reads back ("window:8", "performer:64:1").
std::string to_string(const AttentionVariant& variant);

}  // namespace glassbox
