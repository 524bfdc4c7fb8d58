// The Engine's neuron view (glassbox/neurons.hpp): a layer's most active feed-forward neurons at a position of
// a text, and where in the text each fires most. In a session of its own: the generation is untouched.
#include "engine.hpp"

namespace glassbox::wasm {

// {layer, position, gated, top: [{neuron, activation, pre, up}], peaks: [[{position, activation}]]}.
val Engine::top_neurons(const val& ids, int layer, int position, int k, int per_neuron) const {
  if (!model_) return no_model();
  const std::vector<int> tokens = emscripten::vecFromJSArray<int>(ids);
  // It reads the text again in a run of its own: within the inspection trace's budget, or not at all.
  const int64_t bytes = glassbox::top_neurons_bytes(model_->config, static_cast<int>(tokens.size()));
  if (bytes > kTraceBudgetBytes)
    return failure(ErrorCode::BadArgument,
                   "the neuron view reads the text up to the step again on its own, which for ",
                   tokens.size(), " tokens of this model takes ", bytes >> 20, " MiB, more than its ",
                   kTraceBudgetBytes >> 20, " MiB: select an earlier step");
  auto r = glassbox::top_neurons(model_, tokens, layer, position, k, per_neuron, kSideThreads);
  if (!r) return failure(r.error());
  val top = val::array();
  for (const NeuronActivation& a : r->top) {
    val entry = val::object();
    entry.set("neuron", a.neuron);
    entry.set("activation", a.activation);
    entry.set("pre", a.pre);
    entry.set("up", a.up);
    top.call<void>("push", entry);
  }
  val peaks = val::array();
  for (const auto& list : r->peaks) {
    val js = val::array();
    for (const NeuronReport::Peak& p : list) {
      val entry = val::object();
      entry.set("position", p.position);
      entry.set("activation", p.activation);
      js.call<void>("push", entry);
    }
    peaks.call<void>("push", js);
  }
  val result = val::object();
  result.set("layer", r->layer);
  result.set("position", r->position);
  result.set("gated", r->gated);
  result.set("top", top);
  result.set("peaks", peaks);
  return result;
}

}  // namespace glassbox::wasm
