#include "tools/log_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/signals.hpp"

namespace nvmesim {

namespace {
const char* kind(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}
constexpr size_t kBlockBytes = size_t{1} << 16;
}  // namespace

LogFile::LogFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw InputError::in_source(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string what = ::fstat(fd_, &st) == 0 ? kind(st.st_mode) : "not a regular file";
    ::close(fd_);
    fd_ = -1;
    throw InputError::in_source(path, "cannot read: it is " + what +
                                          ", not a regular file; nvmesim dmesg reads logs from regular files "
                                          "(e.g. dmesg > boot.dmesg)");
  }
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
}

LogFile::~LogFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool LogFile::fill() {
  buf_.erase(0, pos_);
  pos_ = 0;
  const size_t have = buf_.size();
  buf_.resize(have + kBlockBytes);
  ssize_t n;
  do {
    n = ::read(fd_, &buf_[have], kBlockBytes);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    const int e = errno;
    buf_.resize(have);
    throw IoError(path_ + ": read error: " + std::strerror(e));
  }
  buf_.resize(have + static_cast<size_t>(n));
  return n > 0;
}

bool LogFile::read_line(std::string& line, size_t max_line_bytes, bool* cut) {
  line.clear();
  if (cut) *cut = false;
  bool any = false;
  for (;;) {
    if (pos_ >= buf_.size()) {
      // One line may span many blocks (a file of no newline): SIGINT/SIGTERM are looked at per
      // block, not only per line (attack of stop 25: 4 GB without a newline read on for 10 s).
      if (any && stop_requested()) throw Interrupted(stop_signal());
      if (!fill()) return any;
    }
    any = true;
    const char* start = buf_.data() + pos_;
    const size_t avail = buf_.size() - pos_;
    const void* nl = std::memchr(start, '\n', avail);
    const size_t len = nl ? static_cast<size_t>(static_cast<const char*>(nl) - start) : avail;
    const size_t keep = std::min(len, max_line_bytes - std::min(max_line_bytes, line.size()));
    line.append(start, keep);
    if (keep < len && cut) *cut = true;
    pos_ += len + (nl ? 1 : 0);
    if (nl) return true;
  }
}

bool LogFile::read_line_view(std::string_view& line, size_t max_line_bytes, bool* cut) {
  if (pos_ < buf_.size()) {
    const char* start = buf_.data() + pos_;
    const size_t avail = buf_.size() - pos_;
    if (const void* nl = std::memchr(start, '\n', avail)) {
      const size_t len = static_cast<size_t>(static_cast<const char*>(nl) - start);
      if (cut) *cut = len > max_line_bytes;
      line = std::string_view(start, std::min(len, max_line_bytes));
      pos_ += len + 1;
      return true;
    }
  }
  // The line goes past the buffer (or the buffer is used up): read_line assembles it.
  const bool any = read_line(long_, max_line_bytes, cut);
  line = long_;
  return any;
}

}  // namespace nvmesim
