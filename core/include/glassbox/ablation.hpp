// Head ablation: switching attention heads off, or scaling them, to see what they contribute. A head's
// output (its attention-weighted sum of value rows) is multiplied by the head's scale before the output
// projection mixes the heads back into the residual stream; 0 removes the head, 1 leaves it as trained.
// Session::set_head_scales takes the table; the functions here read a person's spec into one and measure
// what the ablation changed.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "glassbox/config.hpp"
#include "glassbox/json_writer.hpp"
#include "glassbox/result.hpp"

namespace glassbox {

class Session;

struct HeadScale {
  int layer = 0;
  int head = 0;
  float scale = 0.0f;
};

// Reads "L.H" (head H of layer L off) and "L.H=S" (scaled by S), comma-separated, e.g. "0.3,1.0=0.5".
// Layers and heads count from 0, as everywhere in glassbox. Fails with bad-argument, naming the item.
Result<std::vector<HeadScale>> parse_head_scales(std::string_view spec);

// The list as JSON, [{layer, head, scale}]: what an inspection document's settings.ablate and fill-mask's
// `ablate` write.
void write_head_scales(JsonWriter& json, std::span<const HeadScale> scales);

// The table Session::set_head_scales takes: [n_layers][n_heads] factors, 1 except where `scales` says
// otherwise. Fails with bad-argument on a layer or head the model does not have, or a scale that is not
// finite.
Result<std::vector<float>> head_scale_table(const ModelConfig& config, std::span<const HeadScale> scales);

// The one check of a table before it is used (Session::set_head_scales, the page's ablate()): exactly
// n_layers * n_heads values, every one finite. Fails with bad-argument naming the lengths, or the head whose
// scale is not a finite number.
Result<void> check_head_scale_table(const ModelConfig& config, std::span<const float> table);

// The table a forward pass applies: empty for no ablation (an empty table, or every scale 1, which the
// forward pass then skips at no cost), else `table` itself. Fails as check_head_scale_table does. Session and
// Encoder both set their ablation through it.
Result<std::vector<float>> head_scales_in_force(const ModelConfig& config, std::span<const float> table);

// head_scale_table's inverse: the heads of `table` whose scale is not 1, in layer-major order (what an
// inspection document's ablation lists). Fails as check_head_scale_table does.
Result<std::vector<HeadScale>> scaled_heads(const ModelConfig& config, std::span<const float> table);

// How an ablation changed the next-token distribution: the distribution before (p) and after (q) it, both
// softmax at temperature 1 of the logits given.
struct DistributionChange {
  double kl_bits = 0;       // KL(p || q) = sum p log2(p / q): bits lost describing p with q; 0 when equal
  int top_before = 0;       // p's most likely token
  double p_top_before = 0;  // ... its probability under p
  double q_top_before = 0;  // ... and under q
  int top_after = 0;        // q's most likely token
  double q_top_after = 0;   // ... its probability under q
};
// Fails with bad-argument when the two differ in length or are empty.
Result<DistributionChange> compare_distributions(std::span<const float> logits_before,
                                                 std::span<const float> logits_after);

// An ablation's effect: the next-token distribution at the measured position, and at every position the
// session's residual trace holds.
struct AblationEffect {
  DistributionChange change;                    // at the measured position
  int first_position = 0;                       // by_position[i] is position first_position + i
  std::vector<DistributionChange> by_position;  // every position kept in the trace (none when it is off)
};

// An ablation's effect in a caller's session (the page's generation): `session` has read `tokens` from
// position 0 (with or without an ablation in force). It reads them again without any ablation where one was
// on, for the baseline, then again with `table` (check_head_scale_table) and with the heads listed in
// `mean_heads` (layer * n_heads + head) replaced by their mean output over `tokens` in the model as trained
// (mean ablation: the head writes that one vector at every position; its scale in `table` is ignored). It
// compares the next-token distributions at `measured_position` (the logits after that token; -1, the
// default: the last token, the one a generation continues from; another position is read from the trace, as
// the logit lens reads it), and at every position the residual trace keeps (the baseline's last rows kept
// aside, so the positions cost one unembedding each per run). The session is left holding `tokens` read with
// the ablation, so its trace shows the ablated run and the next generation uses it. Fails with bad-argument
// on a table that does not fit, a head outside the model or a position outside the tokens, invalid-state when
// the session's position is not tokens.size() (or no tokens), and as prefill does; a table or position
// refused changes nothing.
Result<AblationEffect> ablate_session(Session& session, std::span<const int> tokens,
                                      std::span<const float> table, int measured_position = -1,
                                      std::span<const int> mean_heads = {});

}  // namespace glassbox
