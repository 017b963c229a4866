#pragma once
// A kernel log opened for reading line by line (`nvmesim dmesg`): opened without blocking and
// refused unless it is a regular file (issue 16 item 5: a FIFO blocked forever), read in blocks so
// that memory stays constant whatever the file's or a line's length (item 9). Pure C++ (POSIX).
//
// core/file_input.hpp's InputFile has the same open and read_line; this one adds read_line_view
// (no copy per line), which tools/dmesg_report.cpp uses through its alias `DmesgInput`.
#include <cstddef>
#include <string>
#include <string_view>

namespace nvmesim {

/// A log file opened for reading.
class LogFile {
 public:
  /// Opens `path` with O_NONBLOCK, fstat()s what was opened and refuses anything but a regular
  /// file. Throws InputError "PATH: cannot open: REASON" and "PATH: cannot read: it is a FIFO
  /// (named pipe) / a folder / ..., not a regular file".
  explicit LogFile(const std::string& path);
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;
  /// The next line (without its '\n') into `line`; false at the end (a last line without '\n' is
  /// still returned). At most `max_line_bytes` of a line are kept; the rest is read and dropped,
  /// and `*cut` (when given) is set. Throws IoError "PATH: read error: REASON" (exit status 3).
  bool read_line(std::string& line, size_t max_line_bytes, bool* cut = nullptr);
  /// As read_line, without copying a line that lies whole in the read buffer: `line` views the
  /// buffer (or an internal copy for a line spanning blocks) and stays valid until the next call.
  bool read_line_view(std::string_view& line, size_t max_line_bytes, bool* cut = nullptr);

 private:
  bool fill();
  std::string path_;
  int fd_ = -1;
  std::string buf_;
  size_t pos_ = 0;
  std::string long_;  ///< read_line_view's copy of a line that spans blocks
};

}  // namespace nvmesim
