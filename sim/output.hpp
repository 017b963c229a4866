#pragma once
// Output files (DESIGN section 8): atomic writes, the timeline trial records (JSON and JSON
// Lines), and dmesg lines in the kernel's format.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/system.hpp"

namespace nvmesim {

/// An output could not be written (exit status 3).
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A file written to a temporary name in the target's folder and renamed into place by commit(),
/// so that a reader never sees half a file. Destroying it uncommitted removes the temporary (and a
/// second SIGINT/SIGTERM removes it too, see sim/signals.hpp).
class AtomicFile {
 public:
  /// Throws IoError when the folder is missing or not writable, or when `path` exists and is not
  /// a regular file (a device such as /dev/full or /dev/null, a folder, a FIFO): renaming over it
  /// would replace it.
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(const std::string& s) { write(s.data(), s.size()); }
  void write(const char* data, size_t n);
  /// Flushes, syncs and renames. Throws IoError (disk full, file size limit, ...) and removes the
  /// temporary; the target is then left as it was. Write errors are remembered and reported here.
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, tmp_;
  static constexpr size_t kBufferBytes = 1 << 16;
  std::unique_ptr<char[]> buffer_;  // declared before f_ is closed in the destructor body
  std::FILE* f_ = nullptr;
  int failed_errno_ = 0;  ///< errno of the first failed write, 0 while all went well
  int slot_ = -1;         ///< register_temp_file slot
};

/// Appends `s` as a JSON string literal (quoted, escaped) to `out`.
void append_json_string(std::string& out, const std::string& s);

/// True when the trials of `v` report `namespace_ns` (time to the first usable namespace): some
/// controller supports ready independent of media (CAP.CRIMS).
bool variant_reports_namespace(const Variant& v);

/// Appends one trial as a JSON object. With `events`, the events and dmesg lines of a detailed
/// trial are included. With `variant_name` (JSON Lines), the record names its variant.
void append_trial_json(std::string& out, const TrialRequest& req, const TrialResult& res,
                       double probe_start_s, bool events, const std::string* variant_name);

/// "[    0.543457] " for a line printed `t_ps` after driver init, with driver init at
/// `probe_start_s` seconds of the kernel's clock (boot.probe_start_s). printk's "[%5lu.%06lu] ".
std::string dmesg_prefix(double probe_start_s, int64_t t_ps);

}  // namespace nvmesim
