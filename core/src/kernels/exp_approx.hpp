// exp(x) for float lanes, our own so that every instruction set (and the scalar fallback of any platform's
// libm) gives the same bits: range reduction x = n*ln2 + r with |r| <= ln2/2, a degree-6 polynomial for e^r
// (the classic Cephes expf coefficients), then scaling by 2^n built directly in the exponent bits.
// Relative error is about 2 ulp over the whole range; results below e^-87.3 are 0, above e^88 saturate.
#pragma once

#include "simd.hpp"

namespace glassbox::kernels {

inline Batch exp_approx(Batch x) {
  const Batch kMaxInput(88.0f);   // keeps n <= 127 so 2^n stays a normal float
  const Batch kMinInput(-87.3f);  // below this e^x is under the smallest normal float
  const Batch kLog2e(1.44269504088896341f);
  const Batch kLn2High(0.693359375f);  // ln 2 split in two so n * kLn2High is exact
  const Batch kLn2Low(-2.12194440e-4f);

  // n = round-to-nearest-even(x / ln 2) without a float-to-int conversion (which WebAssembly's SSE emulation
  // does one lane at a time): adding 1.5 * 2^23 leaves n in the low mantissa bits, already rounded.
  const Batch kRoundingMagic(12582912.0f);

  const auto underflow = x < kMinInput;
  x = xsimd::min(xsimd::max(x, kMinInput), kMaxInput);
  const Batch shifted = x * kLog2e + kRoundingMagic;
  const Batch nf = shifted - kRoundingMagic;
  const IntBatch n = xsimd::bitwise_cast<IntBatch>(shifted) - xsimd::bitwise_cast<IntBatch>(kRoundingMagic);
  const Batch r = (x - nf * kLn2High) - nf * kLn2Low;

  Batch p(1.9875691500e-4f);
  p = p * r + Batch(1.3981999507e-3f);
  p = p * r + Batch(8.3334519073e-3f);
  p = p * r + Batch(4.1665795894e-2f);
  p = p * r + Batch(1.6666665459e-1f);
  p = p * r + Batch(5.0000001201e-1f);
  p = (p * (r * r) + r) + Batch(1.0f);

  const Batch two_to_n = xsimd::bitwise_cast<Batch>((n + IntBatch(127)) << 23);
  return xsimd::select(underflow, Batch(0.0f), p * two_to_n);
}

}  // namespace glassbox::kernels
