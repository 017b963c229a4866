#pragma once
// Output files written atomically (DESIGN section 8: a reader never sees half a file; a failed
// or interrupted run leaves the target as it was). Pure C++ (POSIX).
#include <cstdio>
#include <memory>
#include <string>

#include "core/errors.hpp"

namespace nvmesim {

/// A file written to a temporary name in the target's folder and renamed into place by commit(),
/// so that a reader never sees half a file. Destroying it uncommitted removes the temporary (and a
/// second SIGINT/SIGTERM removes it too, see core/signals.hpp).
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
  /// Flushes, syncs and renames: finish() then publish(). Throws IoError (disk full, file size
  /// limit, ...) and removes the temporary; the target is then left as it was. Write errors are
  /// remembered and reported here.
  void commit() {
    finish();
    publish();
  }
  /// The first half of commit(): flushes, syncs and closes the temporary, so that only the rename
  /// is left (several outputs of one run are all finished before any is published). Throws
  /// IoError as commit() does.
  void finish();
  /// The second half of commit(): renames the finished temporary into place. Throws IoError.
  void publish();
  const std::string& path() const { return path_; }
  /// Numbers the next temporaries of this process from 0 again (".NAME.tmp.<pid>.<n>"). A sweep
  /// worker that runs several points (engine/runner.hpp, run_scenarios) calls it before each
  /// point's outputs, so that each point's temporaries are those the sweep removes when the
  /// worker is killed (n below 5), as for a worker of one point.
  static void restart_temp_numbering();

 private:
  std::string path_, tmp_;
  static constexpr size_t kBufferBytes = 1 << 16;
  std::unique_ptr<char[]> buffer_;  // declared before f_ is closed in the destructor body
  std::FILE* f_ = nullptr;
  int failed_errno_ = 0;  ///< errno of the first failed write, 0 while all went well
  int slot_ = -1;         ///< register_temp_file slot
  bool finished_ = false; ///< finish() succeeded: the temporary is closed, complete and synced
};

}  // namespace nvmesim
