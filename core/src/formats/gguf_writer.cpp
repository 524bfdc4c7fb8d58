#include "formats/gguf_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "glassbox/error.hpp"

namespace glassbox {
namespace {

GgufValue scalar(GgufType type) {
  GgufValue v;
  v.type = type;
  return v;
}

GgufValue array(GgufType element, std::vector<GgufValue> items) {
  GgufValue v = scalar(GgufType::Array);
  v.element_type = element;
  v.items = std::move(items);
  return v;
}

// Appends little-endian values to any byte sink (a vector in memory, or a buffered file).
template <class Sink>
struct Out {
  Sink& sink;
  template <class T>
  void put(T value) {
    sink.append(reinterpret_cast<const std::byte*>(&value), sizeof value);
  }
  void put_string(const std::string& s) {
    put<uint64_t>(s.size());
    sink.append(reinterpret_cast<const std::byte*>(s.data()), s.size());
  }
  void put_value(const GgufValue& v) {
    switch (v.type) {
      case GgufType::Uint8:
        put<uint8_t>(static_cast<uint8_t>(v.integer));
        break;
      case GgufType::Int8:
        put<int8_t>(static_cast<int8_t>(v.integer));
        break;
      case GgufType::Uint16:
        put<uint16_t>(static_cast<uint16_t>(v.integer));
        break;
      case GgufType::Int16:
        put<int16_t>(static_cast<int16_t>(v.integer));
        break;
      case GgufType::Uint32:
        put<uint32_t>(static_cast<uint32_t>(v.integer));
        break;
      case GgufType::Int32:
        put<int32_t>(static_cast<int32_t>(v.integer));
        break;
      case GgufType::Uint64:
        put<uint64_t>(static_cast<uint64_t>(v.integer));
        break;
      case GgufType::Int64:
        put<int64_t>(v.integer);
        break;
      case GgufType::Float32:
        put<float>(static_cast<float>(v.real));
        break;
      case GgufType::Float64:
        put<double>(v.real);
        break;
      case GgufType::Bool:
        put<uint8_t>(v.boolean ? 1 : 0);
        break;
      case GgufType::String:
        put_string(v.text);
        break;
      case GgufType::Array:
        put<uint32_t>(static_cast<uint32_t>(v.element_type));
        put<uint64_t>(v.items.size());
        for (const GgufValue& item : v.items)
          put_value(item);
        break;
    }
  }
  void pad_to(uint64_t written, uint64_t alignment) {
    static const std::byte zeros[64] = {};
    const uint64_t padding = (alignment - written % alignment) % alignment;
    sink.append(zeros, static_cast<std::size_t>(padding));
  }
};

struct VectorSink {
  std::vector<std::byte> bytes;
  void append(const std::byte* p, std::size_t n) { bytes.insert(bytes.end(), p, p + n); }
  uint64_t size() const { return bytes.size(); }
};

struct FileSink {
  std::FILE* file;
  uint64_t written = 0;
  bool failed = false;
  void append(const std::byte* p, std::size_t n) {
    if (n && std::fwrite(p, 1, n, file) != n) failed = true;
    written += n;
  }
  uint64_t size() const { return written; }
};

uint64_t align_up(uint64_t offset, uint64_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

}  // namespace

void GgufWriter::add_string(std::string key, std::string value) {
  GgufValue v = scalar(GgufType::String);
  v.text = std::move(value);
  add(std::move(key), std::move(v));
}

void GgufWriter::add_uint32(std::string key, uint32_t value) {
  GgufValue v = scalar(GgufType::Uint32);
  v.integer = value;
  add(std::move(key), std::move(v));
}

void GgufWriter::add_float32(std::string key, float value) {
  GgufValue v = scalar(GgufType::Float32);
  v.real = value;
  add(std::move(key), std::move(v));
}

void GgufWriter::add_bool(std::string key, bool value) {
  GgufValue v = scalar(GgufType::Bool);
  v.boolean = value;
  add(std::move(key), std::move(v));
}

void GgufWriter::add_bool_array(std::string key, const std::vector<bool>& values) {
  std::vector<GgufValue> items;
  for (bool b : values) {
    GgufValue v = scalar(GgufType::Bool);
    v.boolean = b;
    items.push_back(std::move(v));
  }
  add(std::move(key), array(GgufType::Bool, std::move(items)));
}

void GgufWriter::add_string_array(std::string key, const std::vector<std::string>& values) {
  std::vector<GgufValue> items;
  items.reserve(values.size());
  for (const std::string& s : values) {
    GgufValue v = scalar(GgufType::String);
    v.text = s;
    items.push_back(std::move(v));
  }
  add(std::move(key), array(GgufType::String, std::move(items)));
}

void GgufWriter::add_float32_array(std::string key, const std::vector<float>& values) {
  std::vector<GgufValue> items;
  for (float f : values) {
    GgufValue v = scalar(GgufType::Float32);
    v.real = f;
    items.push_back(std::move(v));
  }
  add(std::move(key), array(GgufType::Float32, std::move(items)));
}

void GgufWriter::add_int32_array(std::string key, const std::vector<int32_t>& values) {
  std::vector<GgufValue> items;
  for (int32_t i : values) {
    GgufValue v = scalar(GgufType::Int32);
    v.integer = i;
    items.push_back(std::move(v));
  }
  add(std::move(key), array(GgufType::Int32, std::move(items)));
}

void GgufWriter::add_tensor(std::string name, std::vector<uint64_t> dims, uint32_t ggml_type,
                            std::span<const std::byte> data, std::shared_ptr<const void> owner) {
  tensors_.push_back({std::move(name), std::move(dims), ggml_type, data, std::move(owner)});
}

template <class Sink>
void GgufWriter::emit(Sink& sink) const {
  Out<Sink> out{sink};
  sink.append(reinterpret_cast<const std::byte*>("GGUF"), 4);
  out.template put<uint32_t>(3);
  out.template put<uint64_t>(tensors_.size());
  out.template put<uint64_t>(metadata_.size());
  for (const auto& [key, value] : metadata_) {
    out.put_string(key);
    out.template put<uint32_t>(static_cast<uint32_t>(value.type));
    out.put_value(value);
  }
  uint64_t offset = 0;
  for (const PendingTensor& t : tensors_) {
    out.put_string(t.name);
    out.template put<uint32_t>(static_cast<uint32_t>(t.dims.size()));
    for (uint64_t d : t.dims)
      out.template put<uint64_t>(d);
    out.template put<uint32_t>(t.ggml_type);
    out.template put<uint64_t>(offset);
    offset = align_up(offset + t.data.size(), alignment_);
  }
  out.pad_to(sink.size(), alignment_);
  for (const PendingTensor& t : tensors_) {
    sink.append(t.data.data(), t.data.size());
    out.pad_to(t.data.size(), alignment_);
  }
}

std::vector<std::byte> GgufWriter::to_bytes() const {
  VectorSink sink;
  emit(sink);
  return std::move(sink.bytes);
}

Result<void> GgufWriter::write_file(const std::string& path) const {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) return error(ErrorCode::Io, path, ": cannot create: ", std::strerror(errno));
  FileSink sink{file};
  emit(sink);
  const bool closed = std::fclose(file) == 0;
  if (sink.failed || !closed) return error(ErrorCode::Io, path, ": write failed: ", std::strerror(errno));
  return ok();
}

}  // namespace glassbox
