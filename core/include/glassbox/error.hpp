// What went wrong, as a value: a stable code a program can act on, and a message for a person that names the
// file, the field, the offset, expected versus found. Callers branch on the code (the page turns it into plain
// words, the CLI into an exit status); nobody parses the message.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

namespace glassbox {

// One table of every code: the enum value and the stable name that crosses into JS and JSON. Add a code by
// adding a line here; to_string, error_code_from_string and the list for the bindings follow from it.
#define GLASSBOX_ERROR_CODES(X)                                                                           \
  X(Io, "io")                            /* a file could not be opened, mapped or written */              \
  X(NotAModel, "not-a-model")            /* bytes that are no model format glassbox reads */              \
  X(NotATokenizer, "not-a-tokenizer")    /* bytes that are no tokenizer format glassbox reads */          \
  X(Truncated, "truncated")              /* the file ends before what its header announces */             \
  X(Malformed, "malformed")              /* a field breaks its format's rules or the engine's bounds */   \
  X(UnsupportedType, "unsupported-type") /* an element (quantization) type the engine cannot compute */   \
  X(UnsupportedArchitecture, "unsupported-architecture") /* a model family the forward pass lacks */      \
  X(TokenizerNeeded, "tokenizer-needed") /* a model without its own vocabulary was given no tokenizer */  \
  X(VocabMismatch, "vocab-mismatch")     /* the tokenizer does not fit the model's embedding rows */      \
  X(PromptEmpty, "prompt-empty")         /* no token to start from */                                     \
  X(PromptTooLong, "prompt-too-long")    /* more prompt tokens than the context holds */                  \
  X(ContextFull, "context-full")         /* every position of the session is used */                      \
  X(OutOfMemory, "out-of-memory")        /* the allocation a model or session needs cannot be made */     \
  X(BadArgument, "bad-argument")         /* a setting or argument outside its range */                    \
  X(InvalidState, "invalid-state")       /* a call out of order (no model loaded, next() before start) */ \
  X(NotRecorded, "not-recorded")         /* inspection data the trace did not keep (off, or over budget) */

enum class ErrorCode : uint8_t {
#define GLASSBOX_ERROR_ENUM(name, text) name,
  GLASSBOX_ERROR_CODES(GLASSBOX_ERROR_ENUM)
#undef GLASSBOX_ERROR_ENUM
};

// "prompt-too-long" for ErrorCode::PromptTooLong.
const char* to_string(ErrorCode code);
// The inverse of to_string; false when the name is unknown.
bool error_code_from_string(std::string_view name, ErrorCode* out);

struct Error {
  ErrorCode code = ErrorCode::Malformed;
  std::string message;
};

// Building messages: cat("file.bin: ", "dim", " is ", 0) without iostream boilerplate at every site.
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

// error(ErrorCode::Truncated, path, ": the header needs ", 28, " bytes, found ", size)
template <class... Parts>
Error error(ErrorCode code, const Parts&... parts) {
  return Error{code, cat(parts...)};
}

// The same message under another code (a reader's Malformed seen from a caller that knows it is NotAModel).
inline Error recode(Error e, ErrorCode code) {
  e.code = code;
  return e;
}

}  // namespace glassbox
