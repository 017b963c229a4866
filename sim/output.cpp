#include "sim/output.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/signals.hpp"

namespace nvmesim {

namespace {
const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}
}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  const size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  if (base.empty() || base == "." || base == "..")
    throw IoError(path_ + ": not a file name; give a file to write, e.g. out.json");
  // The output is renamed over the target, so the target must be a regular file (or not exist):
  // renaming over /dev/full or /dev/null would replace the device node itself.
  struct stat st {};
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
  static unsigned counter = 0;
  tmp_ = (slash == std::string::npos ? "" : dir) + "." + base + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(counter++);
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
  if (f_) {
    std::fclose(f_);
    ::unlink(tmp_.c_str());
  }
  unregister_temp_file(slot_);
}

void AtomicFile::write(const char* data, size_t n) {
  if (failed_errno_ != 0 || n == 0) return;
  errno = 0;
  if (std::fwrite(data, 1, n, f_) != n) failed_errno_ = errno ? errno : EIO;
}

void AtomicFile::commit() {
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

void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

std::string dmesg_prefix(double probe_start_s, int64_t t_ps) {
  const int64_t ns = std::llround(probe_start_s * 1e9) + t_ps / 1000;
  char buf[48];
  std::snprintf(buf, sizeof buf, "[%5lld.%06lld] ", static_cast<long long>(ns / 1000000000),
                static_cast<long long>((ns % 1000000000) / 1000));
  return buf;
}

namespace {
// std::to_chars: no locale, no format parsing (snprintf was 14% of a jsonl run under callgrind).
void append_int(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}
void append_hex(std::string& out, uint64_t v) {
  char buf[24] = {'"', '0', 'x'};
  const auto r = std::to_chars(buf + 3, buf + sizeof buf - 1, v, 16);
  *r.ptr = '"';
  out.append(buf, static_cast<size_t>(r.ptr + 1 - buf));
}
}  // namespace

bool variant_reports_namespace(const Variant& v) {
  for (const auto& c : v.controllers)
    if (c.cap.crims) return true;
  return false;
}

void append_trial_json(std::string& out, const TrialRequest& req, const TrialResult& res,
                       double probe_start_s, bool events, const std::string* variant_name) {
  out += '{';
  if (variant_name) {
    out += "\"record\":\"trial\",\"variant\":";
    append_json_string(out, *variant_name);
    out += ',';
  }
  out += "\"trial\":";
  append_int(out, static_cast<int64_t>(req.trial));
  out += ",\"status\":\"";
  out += to_string(res.status);
  out += "\",\"probe_ns\":";
  append_int(out, res.probe_ps / 1000);
  out += ",\"critical_path_ns\":";
  append_int(out, res.critical_path_ps / 1000);
  if (res.namespace_ps >= 0 && req.variant && variant_reports_namespace(*req.variant)) {
    out += ",\"namespace_ns\":";
    append_int(out, res.namespace_ps / 1000);
  }
  if (res.workload_ps >= 0) {
    out += ",\"workload_ns\":";
    append_int(out, res.workload_ps / 1000);
  }
  out += ",\"phases\":[";
  bool first = true;
  for (const Phase& p : res.recorder->phases()) {
    if (!first) out += ',';
    first = false;
    out += "{\"name\":\"";
    out += p.name;
    out += "\",\"ctrl\":";
    append_int(out, p.ctrl);
    out += ",\"start_ns\":";
    append_int(out, p.start_ps / 1000);
    out += ",\"end_ns\":";
    append_int(out, p.end_ps / 1000);
    out += ",\"polls\":";
    append_int(out, p.polls);
    out += ",\"sleeps\":";
    append_int(out, p.sleeps);
    out += '}';
  }
  out += ']';
  if (events && res.recorder->detailed()) {
    out += ",\"events\":[";
    first = true;
    for (const Event& e : res.recorder->events()) {
      if (!first) out += ',';
      first = false;
      out += "{\"t_ns\":";
      append_int(out, e.t_ps / 1000);
      if (e.dur_ps >= 0) {
        out += ",\"dur_ns\":";
        append_int(out, e.dur_ps / 1000);
      }
      out += ",\"ctrl\":";
      append_int(out, e.ctrl);
      out += ",\"src\":\"";
      out += to_string(e.src);
      out += "\",\"kind\":\"";
      out += to_string(e.kind);
      out += '"';
      if (e.reg) {
        out += ",\"reg\":\"";
        out += e.reg;
        out += '"';
      }
      if (e.has_value) {
        out += ",\"value\":";
        append_hex(out, e.value);
      }
      if (!e.detail.empty()) {
        out += ",\"detail\":";
        append_json_string(out, e.detail);
      }
      out += '}';
    }
    out += "],\"dmesg\":[";
    first = true;
    for (const Event& e : res.recorder->events()) {
      if (e.kind != EventKind::message) continue;
      if (!first) out += ',';
      first = false;
      append_json_string(out, dmesg_prefix(probe_start_s, e.t_ps) + e.detail);
    }
    out += ']';
  }
  out += '}';
}

}  // namespace nvmesim
