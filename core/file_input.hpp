#pragma once
// Input files as every reader of nvmesim opens them (scenarios, sweeps and their base, sweep
// manifests, point files, kernel logs): opened without blocking, refused unless they are regular
// files, and read within a size limit (issue 16 item 5: a FIFO as an input blocked forever in
// open(); /dev/zero was read until the limit). Pure C++ (POSIX).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.hpp"

namespace nvmesim {

/// Largest input file read whole into memory (scenario, sweep, base scenario, manifest): 16 MiB.
inline constexpr size_t kMaxInputBytes = size_t{16} << 20;

/// A file opened for reading as an input.
///
/// The constructor opens `path` with O_NONBLOCK (so that a FIFO without a writer cannot block
/// open()), fstat()s the descriptor (the file that was opened, not whatever the name points to
/// later) and refuses anything but a regular file; it then clears O_NONBLOCK. Errors:
/// - InputError "PATH: cannot open: REASON" (missing file, no permission, ...);
/// - InputError "PATH: cannot read: it is a folder, not a file";
/// - InputError "PATH: cannot read: it is a FIFO (named pipe) / a character device / ... , not a
///   regular file; nvmesim reads its inputs from regular files (copy it into one)".
/// Reads that fail (EIO) throw IoError "PATH: read error: REASON" (exit status 3).
class InputFile {
 public:
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  /// The size fstat() reported at open, in bytes (0 for files of /proc, which have no size).
  uint64_t size_at_open() const { return size_; }

  /// Reads at most `n` bytes into `buf` (after what read_line() has buffered); returns the count,
  /// 0 at the end of the file. Throws IoError on a read error.
  size_t read(char* buf, size_t n);

  /// The rest of the file, at most `max_bytes` of it. Throws InputError "PATH: the file is larger
  /// than the limit of N bytes (... MiB)" when there is more (checked against the size at open
  /// before anything is read, and while reading for files that grow or report no size).
  std::string read_all(size_t max_bytes);

  /// Reads the next line into `line` (without its '\n'); false at the end of the file (a last
  /// line without '\n' is still returned). At most `max_line_bytes` of a line are kept: the rest of
  /// a longer line is read and dropped (constant memory whatever the line length), and `*cut`
  /// (when given) is set to true.
  bool read_line(std::string& line, size_t max_line_bytes, bool* cut = nullptr);

 private:
  bool fill();  ///< refills buf_ from the file; false at the end
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string buf_;     ///< bytes read ahead by read_line()
  size_t buf_pos_ = 0;  ///< the next unread byte of buf_
};

/// "a directory", "a character device", "a block device", "a FIFO", "a socket" or "not a regular
/// file", for a st_mode that is not a regular file's (messages about inputs and outputs).
const char* file_kind(unsigned mode);

/// Reads the whole input file `path` (at most `max_bytes`) through InputFile: every error above.
std::string read_input_file(const std::string& path, size_t max_bytes = kMaxInputBytes);

}  // namespace nvmesim
