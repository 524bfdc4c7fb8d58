// The module's free functions: what the module is (version, build, threads), the core's defaults and tables
// for the page (sampler defaults, error codes, head-role thresholds, the sinusoidal code), and its memory.
// What a file's first bytes are (the core's foreign-bytes rule). Nothing here holds state; the Engine
// (engine.hpp) does.
#include <emscripten/bind.h>
#include <emscripten/em_asm.h>
#include <emscripten/heap.h>

#include <span>

#include "js_values.hpp"

namespace glassbox::wasm {
namespace {

// What the module is, from the core (no second copy of any of it).
std::string module_version() {
  return version();
}

std::string module_build_description() {
  return build_description();
}

// The core's SamplerSettings{}: the one place the defaults are written.
val sampler_defaults() {
  return sampler_settings_to_js(SamplerSettings{});
}

// Every ErrorCode's stable name, in the core's order (engine.d.ts states the same list as a type).
val error_codes() {
  val list = val::array();
#define GLASSBOX_ERROR_NAME_TO_JS(name, text) list.call<void>("push", std::string(text));
  GLASSBOX_ERROR_CODES(GLASSBOX_ERROR_NAME_TO_JS)
#undef GLASSBOX_ERROR_NAME_TO_JS
  return list;
}

double largest_upload() {
  return kLargestUploadBytes;
}

double trace_budget_bytes() {
  return static_cast<double>(kTraceBudgetBytes);
}

// The WebAssembly memory's current size: it grows on demand (to 4 GiB) and never shrinks.
double memory_bytes() {
  return static_cast<double>(emscripten_get_heap_size());
}

// Whether this is the pthreads build (glassbox-engine-threads, CMakeLists.txt), which can run a session on
// several threads; the single-threaded build runs every session on one.
bool threaded_build() {
#if defined(__EMSCRIPTEN_PTHREADS__)
  return true;
#else
  return false;
#endif
}

}  // namespace

// Threads running for the module now: this one and the pthreads started (the session's thread pool). Read
// from Emscripten's own list rather than from what was asked for, so a thread that could not start (the
// Worker pool used up) shows.
int running_threads() {
#if defined(__EMSCRIPTEN_PTHREADS__)
  return 1 + EM_ASM_INT({ return PThread.runningWorkers.length; });
#else
  return 1;
#endif
}

namespace {

// The thresholds and definitions behind the head roles (glassbox/head_roles.hpp, effective_rank.hpp,
// measure_heads.hpp), for the page's help text.
val head_role_thresholds() {
  val result = val::object();
  result.set("induction", kInductionThreshold);
  result.set("previousToken", kPreviousTokenThreshold);
  result.set("sink", kSinkThreshold);
  result.set("local", kLocalThreshold);
  result.set("localWindow", kLocalWindow);
  result.set("broadFraction", kBroadFraction);
  result.set("effectiveRankThreshold", kEffectiveRankThreshold);
  result.set("rankWindow", kRankWindow);
  result.set("probeLength", InductionProbe{}.length);
  return result;
}

// The sinusoidal code of positions 0..positions-1, `dim` values each: a row-major Float32Array.
val sinusoidal_table(int positions, int dim) {
  if (positions < 1 || positions > 4096 || dim < 2 || dim > 8192)
    return failure(ErrorCode::BadArgument, "sinusoidal table: ", positions, " positions x ", dim,
                   " values is outside 1..4096 x 2..8192");
  std::vector<float> table(static_cast<std::size_t>(positions) * static_cast<std::size_t>(dim));
  for (int p = 0; p < positions; ++p)
    sinusoidal_code(
        p, std::span<float>(table).subspan(static_cast<std::size_t>(p) * static_cast<std::size_t>(dim),
                                           static_cast<std::size_t>(dim)));
  return array_to_js(table, "Float32Array");
}

// The core's foreign-bytes rule (glassbox/formats.hpp) on a file's first bytes, so the worker can stop a
// download of a web page or a Git LFS pointer at once: {kind, description}, or null when the bytes may be the
// file expected. `part`: "model" or "tokenizer".
val foreign_bytes_of(const val& head, const std::string& part) {
  const std::vector<uint8_t> bytes = emscripten::vecFromJSArray<uint8_t>(head);
  const auto found = foreign_bytes(std::as_bytes(std::span<const uint8_t>(bytes)),
                                   part == "tokenizer" ? Expected::Tokenizer : Expected::Model);
  if (!found) return val::null();
  val result = val::object();
  result.set("kind", std::string(found->kind));
  result.set("description", found->description);
  return result;
}

// Whether a file's first bytes are GGUF's magic: a GGUF carries its own tokenizer.
bool is_gguf_head(const val& head) {
  const std::vector<uint8_t> bytes = emscripten::vecFromJSArray<uint8_t>(head);
  return is_gguf(std::as_bytes(std::span<const uint8_t>(bytes)));
}

int foreign_bytes_head() {
  return static_cast<int>(kForeignBytesHead);
}

}  // namespace

EMSCRIPTEN_BINDINGS(glassbox_module) {
  emscripten::function("foreignBytes", &foreign_bytes_of);
  emscripten::function("isGguf", &is_gguf_head);
  emscripten::function("foreignBytesHead", &foreign_bytes_head);
  emscripten::function("version", &module_version);
  emscripten::function("headRoleThresholds", &head_role_thresholds);
  emscripten::function("sinusoidalTable", &sinusoidal_table);
  emscripten::function("buildDescription", &module_build_description);
  emscripten::function("samplerDefaults", &sampler_defaults);
  emscripten::function("errorCodes", &error_codes);
  emscripten::function("memoryBytes", &memory_bytes);
  emscripten::function("traceBudgetBytes", &trace_budget_bytes);
  emscripten::function("largestUpload", &largest_upload);
  emscripten::function("threadedBuild", &threaded_build);
}

}  // namespace glassbox::wasm
