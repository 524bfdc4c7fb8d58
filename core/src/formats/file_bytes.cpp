// Bytes from a memory-mapped file (natively) or from a buffer handed over by the caller (the browser).
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "glassbox/bytes.hpp"
#include "glassbox/error.hpp"

#if !defined(__EMSCRIPTEN__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace glassbox {
namespace {

class BufferBytes final : public Bytes {
 public:
  BufferBytes(std::vector<std::byte> buffer, std::string name)
      : Bytes(std::move(name)), buffer_(std::move(buffer)) {}
  const std::byte* data() const override { return buffer_.data(); }
  std::size_t size() const override { return buffer_.size(); }

 private:
  std::vector<std::byte> buffer_;
};

class MallocBytes final : public Bytes {
 public:
  MallocBytes(std::byte* data, std::size_t size, std::string name)
      : Bytes(std::move(name)), data_(data), size_(size) {}
  ~MallocBytes() override { std::free(data_); }
  const std::byte* data() const override { return data_; }
  std::size_t size() const override { return size_; }

 private:
  std::byte* data_;
  std::size_t size_;
};

#if !defined(__EMSCRIPTEN__)
class MappedBytes final : public Bytes {
 public:
  MappedBytes(void* address, std::size_t size, std::string name)
      : Bytes(std::move(name)), address_(address), size_(size) {}
  ~MappedBytes() override {
    if (address_) munmap(address_, size_);
  }
  const std::byte* data() const override { return static_cast<const std::byte*>(address_); }
  std::size_t size() const override { return size_; }

 private:
  void* address_;
  std::size_t size_;
};
#endif

}  // namespace

std::shared_ptr<const Bytes> bytes_from_buffer(std::vector<std::byte> buffer, std::string name) {
  return std::make_shared<BufferBytes>(std::move(buffer), std::move(name));
}

std::shared_ptr<const Bytes> bytes_from_malloc(std::byte* data, std::size_t size, std::string name) {
  return std::make_shared<MallocBytes>(data, size, std::move(name));
}

Result<std::shared_ptr<const Bytes>> map_file(const std::string& path) {
#if defined(__EMSCRIPTEN__)
  // No mmap in the browser: read the file (from Node's file system in tests) into one heap buffer.
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return error(ErrorCode::Io, path, ": cannot open: ", std::strerror(errno));
  // Sized once from the file's length: growing by doubling would leave freed copies behind in a heap that
  // never shrinks.
  std::fseek(file, 0, SEEK_END);
  const long length = std::ftell(file);
  std::fseek(file, 0, SEEK_SET);
  if (length < 0) {
    std::fclose(file);
    return error(ErrorCode::Io, path, ": cannot tell the file's size: ", std::strerror(errno));
  }
  std::vector<std::byte> buffer(static_cast<std::size_t>(length));
  const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), file);
  std::fclose(file);
  if (got != buffer.size())
    return error(ErrorCode::Io, path, ": read ", got, " of ", buffer.size(), " bytes");
  return bytes_from_buffer(std::move(buffer), path);
#else
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return error(ErrorCode::Io, path, ": cannot open: ", std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return error(ErrorCode::Io, path, ": not a regular file");
  }
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size == 0) {
    ::close(fd);
    return bytes_from_buffer({}, path);  // mmap of zero bytes fails; readers report the empty file
  }
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int mmap_errno = errno;
  ::close(fd);  // the mapping stays valid without the descriptor
  if (address == MAP_FAILED)
    return error(ErrorCode::Io, path, ": cannot memory-map: ", std::strerror(mmap_errno));
  return std::shared_ptr<const Bytes>(std::make_shared<MappedBytes>(address, size, path));
#endif
}

}  // namespace glassbox
