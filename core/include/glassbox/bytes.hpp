// The bytes of a model or tokenizer file. Natively a file is memory-mapped (the OS pages weights in on
// demand and shares them between processes); in the browser the bytes are one buffer in the WASM heap.
// Either way tensors are views into these bytes, never copies.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "glassbox/result.hpp"

namespace glassbox {

class Bytes {
 public:
  virtual ~Bytes() = default;
  virtual const std::byte* data() const = 0;
  virtual std::size_t size() const = 0;
  // Where the bytes came from (a path or a name the caller gave); error messages start with it.
  const std::string& name() const { return name_; }

 protected:
  explicit Bytes(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
};

// Memory-maps a file read-only. Errors name the path and the system's reason.
Result<std::shared_ptr<const Bytes>> map_file(const std::string& path);

// Takes ownership of a buffer already in memory.
std::shared_ptr<const Bytes> bytes_from_buffer(std::vector<std::byte> buffer, std::string name);

// Takes ownership of a std::malloc'ed block (the browser path: a download written straight into the WASM
// heap, where a failed malloc returns null instead of aborting as a failed std::vector would).
std::shared_ptr<const Bytes> bytes_from_malloc(std::byte* data, std::size_t size, std::string name);

}  // namespace glassbox
