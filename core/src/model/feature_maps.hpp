// The feature maps of linear and Performer attention: what phi does to a head's query or key before
// kernels/feature_attention.hpp sums them. Both give positive features, so every implied attention weight
// phi(q)·phi(k) is positive and the normalizer never vanishes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace glassbox {

// Linear attention's phi(x) = elu(x) + 1: x + 1 where x > 0, e^x elsewhere (Katharopoulos et al.).
void elu_plus_one(float* out, const float* x, std::size_t n);

// FAVOR+ (Performer's positive orthogonal random features), M of them for a head of d values:
//   phi(x)_i = exp(w_i·x' - |x'|^2 / 2) / sqrt(M),   x' = x / d^(1/4)   (so that q'·k' = q·k / sqrt(d)),
// whose dot products estimate the softmax kernel without bias: E[phi(q)·phi(k)] = exp(q·k / sqrt(d)). The w_i
// come in blocks of d mutually orthogonal Gaussian directions (Gram-Schmidt of a Gaussian matrix), each
// scaled to the length of an independent Gaussian vector: orthogonal features have a lower variance than
// independent ones. The same seed draws the same [features][head_dim] matrix on every platform.
std::vector<float> performer_projection(int features, int head_dim, uint64_t seed);

// phi(x) into out[features], divided by a factor e^m that keeps exp in range, whose log m it returns: for a
// query m = max_i w_i·x', a factor common to the numerator and the denominator of the attention output, so it
// cancels; for a key m = max_i w_i·x' - |x'|^2 / 2, which differs from key to key, so the running sums must
// carry it (model/forward.cpp rescales them as the largest m grows: the online softmax's trick).
// Without it a key of large norm has every feature underflow to 0 in float.
float performer_features(float* out, const float* x, const float* projection, std::size_t features,
                         std::size_t head_dim, bool query);

}  // namespace glassbox
