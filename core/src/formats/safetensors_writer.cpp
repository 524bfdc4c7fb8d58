#include "formats/safetensors_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "glassbox/json_writer.hpp"

namespace glassbox {

std::vector<std::byte> safetensors_bytes(const std::vector<SafetensorsF32>& tensors) {
  JsonWriter json;
  json.begin_object();
  uint64_t offset = 0;
  for (const SafetensorsF32& t : tensors) {
    const uint64_t bytes = t.values.size() * sizeof(float);
    json.key(t.name).begin_object().key("dtype").string("F32").key("shape").begin_array();
    for (uint64_t d : t.shape)
      json.integer(static_cast<int64_t>(d));
    json.end_array().key("data_offsets").begin_array();
    json.integer(static_cast<int64_t>(offset)).integer(static_cast<int64_t>(offset + bytes));
    json.end_array().end_object();
    offset += bytes;
  }
  json.end_object();
  std::string header(json.text());
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<std::byte> out(8 + header.size() + offset);
  const uint64_t length = header.size();
  for (int i = 0; i < 8; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<std::byte>((length >> (8 * i)) & 0xFF);
  std::memcpy(out.data() + 8, header.data(), header.size());
  std::byte* data = out.data() + 8 + header.size();
  for (const SafetensorsF32& t : tensors) {
    // Little-endian floats: the byte order of every machine glassbox builds for (x86, ARM, WebAssembly).
    std::memcpy(data, t.values.data(), t.values.size() * sizeof(float));
    data += t.values.size() * sizeof(float);
  }
  return out;
}

Result<void> write_safetensors(const std::string& path, const std::vector<SafetensorsF32>& tensors) {
  const std::vector<std::byte> bytes = safetensors_bytes(tensors);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) return error(ErrorCode::Io, path, ": cannot create: ", std::strerror(errno));
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) return error(ErrorCode::Io, path, ": write failed: ", std::strerror(errno));
  return ok();
}

}  // namespace glassbox
