#include "core/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file_input.hpp"
#include "core/signals.hpp"

namespace nvmesim {

namespace {
// The temporaries' numbering (AtomicFile's constructor): the process it belongs to, and the next n.
pid_t g_temp_owner = 0;
unsigned g_temp_counter = 0;
}  // namespace

void AtomicFile::restart_temp_numbering() {
  g_temp_owner = ::getpid();
  g_temp_counter = 0;
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  const size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  if (base.empty() || base == "." || base == "..")
    throw IoError(path_ + ": not a file name; give a file to write, e.g. out.json");
  // The output is renamed over the target, so the target must be a regular file (or not exist):
  // renaming over /dev/full or /dev/null would replace the device node itself.
  struct stat st {};
  // A symbolic link would be replaced by the rename, not written through (attack of stop 25:
  // `-o /dev/stdout` replaced the system's link with a regular file).
  if (::lstat(path_.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::string to(4096, '\0');
    const ssize_t n = ::readlink(path_.c_str(), &to[0], to.size());
    to.resize(n > 0 ? static_cast<size_t>(n) : 0);
    throw IoError(path_ + ": cannot write an output here: it is a symbolic link (to " + to +
                  "), which the temporary file's rename would replace; give the file itself");
  }
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw IoError(path_ + ": cannot write an output here: it is " + file_kind(st.st_mode) +
                  "; outputs are written to a temporary file and renamed, so give a regular file");
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0) {
    const int e = errno;
    if (e == ENOENT) throw IoError(path_ + ": cannot create: the folder " + dir + " does not exist");
    throw IoError(path_ + ": cannot create: cannot use the folder " + dir + " (" + std::strerror(e) + ")");
  }
  if (!S_ISDIR(dst.st_mode)) throw IoError(path_ + ": cannot create: " + dir + " is not a folder");
  // Numbered from 0 in each process: a sweep worker forked from the sweep (sweep/worker_pool.cpp)
  // starts again at 0, so that its temporaries are the ".NAME.tmp.<pid>.<n>" that the sweep
  // removes when the worker is killed (n below 5), whatever the sweep itself wrote before.
  if (::getpid() != g_temp_owner) {
    g_temp_owner = ::getpid();
    g_temp_counter = 0;
  }
  tmp_ = (slash == std::string::npos ? "" : dir) + "." + base + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(g_temp_counter++);
  const int fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw IoError(path_ + ": cannot create a temporary file in " + dir + " (" + std::strerror(errno) + ")");
  f_ = ::fdopen(fd, "wb");
  if (!f_) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp_.c_str());
    throw IoError(path_ + ": cannot open the temporary file (" + std::strerror(e) + ")");
  }
  slot_ = register_temp_file(tmp_);
  // Each file has its own buffer: several outputs (timeline, trace, dmesg) are open at once.
  buffer_ = std::make_unique<char[]>(kBufferBytes);
  std::setvbuf(f_, buffer_.get(), _IOFBF, kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (f_) std::fclose(f_);
  if (f_ || finished_) ::unlink(tmp_.c_str());  // uncommitted: the target stays as it was
  unregister_temp_file(slot_);
}

void AtomicFile::write(const char* data, size_t n) {
  if (failed_errno_ != 0 || n == 0) return;
  errno = 0;
  if (std::fwrite(data, 1, n, f_) != n) failed_errno_ = errno ? errno : EIO;
}

void AtomicFile::finish() {
  if (!f_) throw IoError(path_ + ": already committed");
  int err = failed_errno_;
  if (err == 0 && std::fflush(f_) != 0) err = errno ? errno : EIO;
  if (err == 0 && ::fsync(::fileno(f_)) != 0 && errno != EINVAL) err = errno;
  if (std::fclose(f_) != 0 && err == 0) err = errno ? errno : EIO;
  f_ = nullptr;
  if (err != 0) {
    ::unlink(tmp_.c_str());
    unregister_temp_file(slot_);
    slot_ = -1;
    throw IoError(path_ + ": write failed (" + std::strerror(err) + "); nothing was written");
  }
  finished_ = true;
}

void AtomicFile::publish() {
  if (!finished_) throw IoError(path_ + ": " + (f_ ? "not finished" : "already committed"));
  finished_ = false;
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp_.c_str());
    unregister_temp_file(slot_);
    slot_ = -1;
    throw IoError(path_ + ": cannot rename into place (" + std::strerror(e) + "); nothing was written");
  }
  unregister_temp_file(slot_);
  slot_ = -1;
  // Make the rename itself durable (best effort: some file systems refuse fsync on folders).
  const size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash + 1);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace nvmesim
