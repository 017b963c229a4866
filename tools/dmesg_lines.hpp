#pragma once
// One line of a kernel log, split into its time and the kernel's message, in every format the
// dmesg reader accepts (tools/dmesg_reader.hpp lists them). Internal to tools/. Pure C++.
#include <cstdint>
#include <string>
#include <string_view>

namespace nvmesim::dmesg_detail {

/// A log line: its time in the log's own clock (ns), when it has one, and the message.
struct DmesgLine {
  bool timed = false;
  int64_t ns = 0;
  std::string msg;
  /// Non-empty when the line starts with an ISO-8601 or SPDK time of the right shape whose value
  /// is no time (hour 25, February 30, a year outside 1970-2200): what is wrong. The line is then
  /// untimed; the reader refuses it (DmesgScanner::line).
  std::string bad_time;
};

/// A DmesgLine whose message is a view into the line it was split from (valid while that line's
/// bytes are): the reader's per-line path, which copies nothing (issue 16 item 9's speed).
struct DmesgLineView {
  bool timed = false;
  int64_t ns = 0;
  std::string_view msg;
  std::string bad_time;  ///< as DmesgLine::bad_time (only filled on a damaged time)
};

/// Splits `raw` (one line, without its newline): /dev/kmsg records, "<6>" levels, "[  714.456099]"
/// times, ISO-8601 times (with the kernel's bracketed time inside preferred), syslog's
/// "kernel: [...]"; anything else is an untimed message.
DmesgLineView split_dmesg_line_view(std::string_view raw);
/// The same, with the message copied (for callers that keep lines).
DmesgLine split_dmesg_line(std::string_view raw);

/// The first "nvmeN" in `msg` that is not preceded by a letter, digit or '_', or "".
std::string controller_of(std::string_view msg);

}  // namespace nvmesim::dmesg_detail
