// The CLI writes JSON with the core's writer (glassbox/json_writer.hpp), the one the inspection document uses.
#pragma once

#include "glassbox/json_writer.hpp"

namespace glassbox::cli {
using glassbox::json_quoted;
using glassbox::JsonWriter;
}  // namespace glassbox::cli
