// Bytes that are plainly no binary model or tokenizer at all: an empty file, or a web page that a server sent
// where a file was expected (a wrong address, a login or error page, a page saved instead of the file it
// links to). Read as a llama2.c header, such bytes give nonsense like "dim must be in 1..65536, found
// 1868833084"; named for what they are, the person knows what to fix.
#pragma once

#include <optional>
#include <string>

#include "glassbox/bytes.hpp"

namespace glassbox {

// What the bytes are when they are plainly not a model or tokenizer ("the file is empty (0 bytes)", "it is a
// web page (HTML): ..."), or nothing when they may be one.
std::optional<std::string> foreign_bytes(const Bytes& bytes);

// True when the first byte other than a UTF-8 byte-order mark and white space is '{' (tokenizer.json,
// config.json).
bool looks_like_json(const Bytes& bytes);

}  // namespace glassbox
