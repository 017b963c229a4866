#include "core/file_input.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nvmesim {

const char* file_kind(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

InputFile::InputFile(const std::string& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) throw InputError::in_source(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    throw InputError::in_source(path, std::string("cannot open: ") + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    if (S_ISDIR(st.st_mode)) throw InputError::in_source(path, "cannot read: it is a folder, not a file");
    throw InputError::in_source(path, std::string("cannot read: it is ") + file_kind(st.st_mode) +
                                          ", not a regular file; nvmesim reads its inputs from regular files "
                                          "(copy it into one)");
  }
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

size_t InputFile::read(char* buf, size_t n) {
  if (buf_pos_ < buf_.size()) {
    const size_t k = std::min(n, buf_.size() - buf_pos_);
    std::memcpy(buf, buf_.data() + buf_pos_, k);
    buf_pos_ += k;
    return k;
  }
  while (true) {
    const ssize_t r = ::read(fd_, buf, n);
    if (r >= 0) return static_cast<size_t>(r);
    if (errno == EINTR) continue;
    throw IoError(path_ + ": read error: " + std::strerror(errno));
  }
}

namespace {
std::string too_large(size_t max_bytes) {
  std::string s = "the file is larger than the limit of " + std::to_string(max_bytes) + " bytes";
  if (max_bytes >= (size_t{1} << 20) && max_bytes % (size_t{1} << 20) == 0)
    s += " (" + std::to_string(max_bytes >> 20) + " MiB)";
  return s;
}
}  // namespace

std::string InputFile::read_all(size_t max_bytes) {
  if (size_ > max_bytes) throw InputError::in_source(path_, too_large(max_bytes));
  std::string text;
  text.reserve(static_cast<size_t>(size_));
  char chunk[65536];
  while (const size_t n = read(chunk, sizeof chunk)) {
    if (n > max_bytes - text.size()) throw InputError::in_source(path_, too_large(max_bytes));
    text.append(chunk, n);
  }
  return text;
}

bool InputFile::fill() {
  buf_.resize(65536);
  buf_pos_ = 0;
  while (true) {
    const ssize_t r = ::read(fd_, &buf_[0], buf_.size());
    if (r >= 0) {
      buf_.resize(static_cast<size_t>(r));
      return r > 0;
    }
    if (errno == EINTR) continue;
    const int e = errno;
    buf_.clear();
    throw IoError(path_ + ": read error: " + std::strerror(e));
  }
}

bool InputFile::read_line(std::string& line, size_t max_line_bytes, bool* cut) {
  line.clear();
  if (cut) *cut = false;
  bool any = false;
  while (true) {
    if (buf_pos_ >= buf_.size() && !fill()) return any;
    any = true;
    const char* start = buf_.data() + buf_pos_;
    const size_t avail = buf_.size() - buf_pos_;
    const void* nl = std::memchr(start, '\n', avail);
    const size_t len = nl ? static_cast<size_t>(static_cast<const char*>(nl) - start) : avail;
    const size_t keep = std::min(len, max_line_bytes - std::min(max_line_bytes, line.size()));
    line.append(start, keep);
    if (keep < len && cut) *cut = true;
    buf_pos_ += nl ? len + 1 : len;
    if (nl) return true;
  }
}

std::string read_input_file(const std::string& path, size_t max_bytes) {
  InputFile f(path);
  return f.read_all(max_bytes);
}

}  // namespace nvmesim
