// The sampling flags of `generate`: --temperature, --top-k, --top-p and --seed. Their defaults and their
// ranges are the core's (SamplerSettings{} and validate() in glassbox/sampler.hpp); the CLI only names them.
#pragma once

#include "glassbox/sampler.hpp"

namespace CLI {
class App;
}

namespace glassbox::cli {

// Adds the flags, storing their values in `settings`; a flag that is absent leaves its field at the value
// `settings` had, which --help shows as the default.
void add_sampler_flags(CLI::App& app, SamplerSettings& settings);

}  // namespace glassbox::cli
