// Bytes that are plainly no binary model or tokenizer at all: an empty file, a web page that a server sent
// where a file was expected (a wrong address, a login or error page, a page saved instead of the file it
// links to), a Git LFS pointer standing in for the real file, or (where a model was expected) any other text.
// Read as a llama2.c header, such bytes give nonsense like "dim must be in 1..65536, found 1868833084"; named
// for what they are, the person knows what to fix. This is the one place these rules live: the CLI and the
// page both get them through open_model.
#pragma once

#include <optional>
#include <string>

#include "glassbox/bytes.hpp"

namespace glassbox {

enum class Expected { Model, Tokenizer };

// What the bytes are when they are plainly not the file expected ("the file is empty (0 bytes)", "it is a web
// page (HTML): ..."), or nothing when they may be one. Text in general only rules out a model: a tokenizer
// may be text (tokenizer.json).
std::optional<std::string> foreign_bytes(const Bytes& bytes, Expected expected);

// True when the first byte other than a UTF-8 byte-order mark and white space is '{' (tokenizer.json,
// config.json).
bool looks_like_json(const Bytes& bytes);

}  // namespace glassbox
