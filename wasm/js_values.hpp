// Moving values across the Embind boundary, shared by the engine's bindings (bind_*.cpp) and the module's
// free functions (module_functions.cpp). Fallible calls return {error, code} (the core's message and the
// stable name of its ErrorCode) instead of throwing; engine.js turns that into a GlassboxError.
#pragma once

#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "glassbox/glassbox.hpp"

namespace glassbox::wasm {

using emscripten::val;

// The page's memory budget for inspection traces. The views recompute attention rows and the logit lens
// from the residual stream (ResidualTrace), which costs (layers + 1) x dim floats per position: 1.5 KiB for
// stories260K, 39 KiB for a Llama-110M shape, 88 KiB for a 0.5B shape. 64 MiB keeps every position of the
// first two at their full contexts, and the newest ~750 positions of the 0.5B shape; older ones are dropped
// and the page says so. The full probability record would need n(n+1)/2 x layers x heads floats instead
// (2.8 GB for the 0.5B shape at 2,048 positions).
inline constexpr int64_t kTraceBudgetBytes = int64_t{64} << 20;

// Threads of the runs the views start beside the generation's session (the attention lab, neurons, patching):
// one, as head measurement does. Each such run starts a pool of its own; with the generation's thread count,
// tests/browser/memory.test.mjs saw the engine's WebAssembly memory grow 6-14 MiB with every load that read the
// neurons once (19 -> 83 MiB over ten), with one thread it stays flat (16 MiB). The generation's session keeps
// its one pool for the whole model.
inline constexpr int kSideThreads = 1;

// The largest file an upload slot takes: past it, more than the WebAssembly heap can hold (32-bit addresses,
// 4 GiB). One rule: Engine::allocate_upload refuses such a file, and the page (largestUpload()) marks a
// catalog entry past it before its download starts.
inline constexpr double kLargestUploadBytes = 4294967295.0;

// Threads running for the module now (module_functions.cpp).
int running_threads();

inline val failure(const Error& e) {
  val result = val::object();
  result.set("error", e.message);
  result.set("code", std::string(to_string(e.code)));
  return result;
}

template <class... Parts>
val failure(ErrorCode code, const Parts&... parts) {
  return failure(error(code, parts...));
}

inline val no_model() {
  return failure(ErrorCode::InvalidState, "no model is loaded");
}

inline val bytes_to_js(const std::string& bytes) {
  // A copy the JS side owns: a piece may be part of a UTF-8 character, so it travels as bytes.
  val view(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())));
  return val::global("Uint8Array").new_(view);
}

template <class T>
val array_to_js(const std::vector<T>& values, const char* type) {
  val view(emscripten::typed_memory_view(values.size(), values.data()));
  return val::global(type).new_(view);
}

// The shortest decimal that reads back as the same float, as a double: 0.9f crosses as 0.9, not as
// 0.89999997615814209 (a person sees these numbers in the page's controls).
inline double float_to_js(float value) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    const double parsed = std::strtod(text, nullptr);
    if (static_cast<float>(parsed) == value) return parsed;
  }
  return value;
}

// A JS number that must be a whole number in [0, limit]; false otherwise (NaN, fractions, negatives).
inline bool whole_number(double value, double limit) {
  return std::isfinite(value) && value >= 0 && value <= limit && std::floor(value) == value;
}

// [{id, logit, probability}], most likely first (glassbox/top_tokens.hpp).
inline val token_probabilities_to_js(const std::vector<TokenProbability>& tokens) {
  val result = val::array();
  for (const TokenProbability& t : tokens) {
    val entry = val::object();
    entry.set("id", t.id);
    entry.set("logit", t.logit);
    entry.set("probability", t.probability);
    result.call<void>("push", entry);
  }
  return result;
}

inline val sampler_settings_to_js(const SamplerSettings& s) {
  val result = val::object();
  result.set("temperature", float_to_js(s.temperature));
  result.set("topK", s.top_k);
  result.set("topP", float_to_js(s.top_p));
  result.set("seed", static_cast<double>(s.seed));
  return result;
}

}  // namespace glassbox::wasm
