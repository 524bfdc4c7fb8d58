// Direct logit attribution: the logit of one token at one position split into what each part of the model
// wrote into the residual stream there. In a Pre-LN (or sandwich) model the stream leaving the last layer is
// a sum: the embedding, then each layer's attention output (the sum over its heads of each head's slice of
// the attention output through its columns of W_o, plus W_o's bias) and feed-forward output (the down
// projection, plus its bias). The final norm is linear once its scale at that position is held fixed
// (RMSNorm: divide by the position's rms and multiply by the weight; LayerNorm: centre each part first, then
// the same), and so is the unembedding, so the logit splits into one number per part, and they add up to it.
//
// What each number holds:
//   embedding  the stream entering layer 0: the token embedding (times sqrt(dim) where the model scales it),
//              the position embedding where the model adds one (learned, sinusoidal), and where the model
//              normalizes its embeddings (BLOOM) that norm's output, its bias included
//   heads      head h of layer l: W_o[:, slice h] o_h, o_h its attention output (after any ablation scale;
//              q, k and v biases inside it); with GQA the query head's slice
//   mlp        layer l's down projection of its hidden layer (gate and up biases inside it)
//   bias       the attention output biases and the down projections' biases of every layer, and the final
//              norm's bias (LayerNorm); glassbox's classifier has no bias of its own
// Sandwich models (Gemma) normalize each sub-block's output before adding it: that norm's scale, too, is held
// fixed at the position (its input's own statistics), so heads and biases still split.
// The logit is the model's own before any soft-cap (Gemma 2's cap * tanh(logit / cap) is not linear): the
// final-normed stream times the token's unembedding row, in double. Where a product's type rounds its input
// to 8 bits (the integer kernels), the heads' parts take W_o's input rounded so too, and add up to what the
// model computed; the classifier's own rounding is not taken (it is no sum of parts), so there `logit` is
// within that rounding (about 0.1% on the test models) of the logit the sampler saw.
// Post-LN models normalize the stream itself after every block, so no sum of parts reaches the classifier:
// they are refused (BadArgument).
#pragma once

#include <vector>

namespace glassbox {

struct LogitAttribution {
  int position = 0;
  int token = 0;
  int baseline_token = -1;  // logit_difference's second token (its parts subtracted); -1 for one token
  int n_layers = 0, n_heads = 0;
  double logit = 0.0;  // the model's logit before any soft-cap (a difference: of the two)
  double embedding = 0.0;
  std::vector<double> heads;  // [n_layers * n_heads], layer-major
  std::vector<double> mlp;    // [n_layers]
  double bias = 0.0;

  double head(int layer, int h) const { return heads[static_cast<std::size_t>(layer * n_heads + h)]; }
  // embedding + every head + every mlp + bias: the logit, up to float rounding.
  double sum_of_parts() const;
};

// The attribution of logit(a.token) - logit(b.token) at one position: part by part a - b (the split is
// linear). a and b must be of the same position and model.
LogitAttribution logit_difference(const LogitAttribution& a, const LogitAttribution& b);

}  // namespace glassbox
