// Embind registration of the Engine (engine.hpp): the JS names of its methods, which engine.js wraps into the
// API of engine.d.ts. The methods themselves are defined by feature in the bind_*.cpp files; the module's
// free functions are registered in module_functions.cpp.
#include <emscripten/bind.h>

#include "engine.hpp"

namespace glassbox::wasm {

EMSCRIPTEN_BINDINGS(glassbox_engine) {
  emscripten::class_<Engine>("Engine")
      .constructor<>()
      .constructor<int>()
      .function("threads", &Engine::threads)
      // the model (bind_model.cpp)
      .function("allocateUpload", &Engine::allocate_upload)
      .function("clearUpload", &Engine::clear_upload)
      .function("load", &Engine::load)
      .function("formats", &Engine::formats)
      .function("info", &Engine::info)
      // an encoder's tasks (bind_encoder.cpp)
      .function("embed", &Engine::embed)
      .function("fillMask", &Engine::fill_mask)
      .function("encoderAttention", &Engine::encoder_attention)
      .function("setEncoderHeadScales", &Engine::set_encoder_head_scales)
      // the vocabulary (bind_tokenizer.cpp)
      .function("pieces", &Engine::pieces)
      .function("tokenize", &Engine::tokenize)
      .function("piece", &Engine::piece)
      .function("chatInfo", &Engine::chat_info)
      // generation (bind_generation.cpp)
      .function("setSampler", &Engine::set_sampler)
      .function("start", &Engine::start)
      .function("startTokens", &Engine::start_tokens)
      .function("step", &Engine::step)
      .function("stop", &Engine::stop)
      .function("sequence", &Engine::sequence)
      .function("reset", &Engine::reset)
      // attention and the next-token distribution (bind_attention.cpp)
      .function("attention", &Engine::attention)
      .function("traceInfo", &Engine::trace_info)
      .function("topTokens", &Engine::top_tokens)
      .function("samplingPipeline", &Engine::sampling_pipeline_at_last)
      .function("attentionDetail", &Engine::attention_step_by_step)
      .function("logitLens", &Engine::logit_lens)
      .function("residualNorms", &Engine::residual_norms)
      // heads: measurement and ablation (bind_heads.cpp)
      .function("measureHeads", &Engine::measure_heads_all)
      .function("measureBegin", &Engine::measure_begin)
      .function("measureStep", &Engine::measure_step)
      .function("ablate", &Engine::ablate)
      .function("clearAblation", &Engine::clear_ablation)
      .function("headScales", &Engine::head_scales)
      // positions (bind_positions.cpp)
      .function("positionInfo", &Engine::position_info)
      .function("ropeAngles", &Engine::rope_angles)
      .function("ropeDots", &Engine::rope_dots)
      .function("headQuery", &Engine::head_query)
      // the attention lab (bind_attention_lab.cpp)
      .function("attentionLab", &Engine::attention_lab)
      // the whole model (bind_inspect.cpp)
      .function("anatomy", &Engine::anatomy)
      .function("flops", &Engine::flops)
      .function("inspectJson", &Engine::inspect_document)
      // cost against length (bind_length_cost.cpp)
      .function("lengthCostPlan", &Engine::length_cost_plan)
      .function("lengthCost", &Engine::length_cost);
}

}  // namespace glassbox::wasm
