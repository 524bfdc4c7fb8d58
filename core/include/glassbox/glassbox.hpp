// The whole public API of the glassbox engine. See README.md for a tour.
#pragma once

#include "glassbox/ablation.hpp"
#include "glassbox/build.hpp"
#include "glassbox/bytes.hpp"
#include "glassbox/config.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/generator.hpp"
#include "glassbox/inspect.hpp"
#include "glassbox/model.hpp"
#include "glassbox/residual_trace.hpp"
#include "glassbox/result.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/session.hpp"
#include "glassbox/tensor.hpp"
#include "glassbox/tokenizer.hpp"
#include "glassbox/trace.hpp"
