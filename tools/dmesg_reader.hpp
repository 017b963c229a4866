#pragma once
// Reading real kernel logs (DESIGN section 9, `nvmesim dmesg`): the intervals between two kinds
// of lines, per controller, as nvmesim.dmesg/1. Pure C++ (no SystemC), so that tests and a fuzz
// target can call it directly.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nvmesim {

/// Default --from: driver init (`initcall nvme_init ...` with initcall_debug, or a debug print
/// naming nvme_init) or, when a log has no such line, the probe's `pci function` line.
inline constexpr const char* kDmesgDefaultFrom = R"(nvme_init|nvme nvme[0-9]+: pci function)";
/// Default --to: the probe's queues line (Linux 5.1+: "%d/%d/%d default/read/poll queues").
inline constexpr const char* kDmesgDefaultTo = R"(default/read/poll queues)";
/// Lines longer than printk's record limit (1024 bytes) are cut there before matching.
inline constexpr size_t kDmesgMaxLineBytes = 1024;

/// One interval found in a log. Times are the log's own clock in ns (seconds since boot for the
/// `[    0.543457]` prefix; since the epoch for ISO-8601 times).
struct DmesgInterval {
  std::string source;  ///< the log's name as given to the parser
  std::string ctrl;    ///< "nvme0", or "" for an interval between two driver-level lines
  int64_t start_ns = 0, end_ns = 0;
  size_t from_line = 0, to_line = 0;  ///< 1-based line numbers
  double duration_ms() const { return static_cast<double>(end_ns - start_ns) / 1e6; }
};

/// What parse_dmesg_text found.
struct DmesgParse {
  std::string source;                    ///< the log's name as given
  std::vector<DmesgInterval> intervals;  ///< in the order their end lines appear
  size_t lines = 0;                      ///< lines read
  size_t timed_lines = 0;                ///< lines with a timestamp
  size_t unmatched_to = 0;               ///< --to lines with no open interval
  size_t unclosed = 0;                   ///< intervals still open at the end of the log
};

/// Finds the intervals from a line matching `from_regex` to the next line matching `to_regex`
/// (ECMAScript regular expressions, searched anywhere in the message) in the kernel log `text`.
///
/// Lines: `[  714.456099] msg` (dmesg), `<6>[...] msg` (dmesg -r), syslog/kern.log lines with the
/// bracketed time after "kernel: ", journalctl -o short-monotonic (`[ 714.456099] host kernel: msg`),
/// and ISO-8601 times (dmesg --time-format=iso, journalctl -o short-iso-precise). Lines without a
/// timestamp (dmesg -t) cannot be timed and are skipped; a log in which a matching line has no
/// timestamp at all throws. CR-LF line ends are accepted.
///
/// Controllers are told apart by the first `nvmeN` in the message (`nvme nvme1: ...`,
/// `nvme1n1: p1`). A matching line without one (`initcall nvme_init ...`) is driver-level: as a
/// --from line it opens an interval for every controller (a new driver instance: a module reload
/// or a boot); a controller's own --from line opens (or restarts) that controller's interval
/// unless a driver-level line already opened it. A --to line closes its controller's interval;
/// a driver-level --to line closes every open one. A line matching both closes before it opens,
/// so consecutive intervals chain. Time may go backwards between blocks (concatenated boots).
///
/// Throws InputError("SOURCE: --from: ...") for a bad regular expression and
/// InputError("SOURCE: line N: ...") for a line matching --from or --to without a timestamp when
/// the log has no timed lines. Never throws for other content.
DmesgParse parse_dmesg_text(const std::string& text, const std::string& source,
                            const std::string& from_regex = kDmesgDefaultFrom,
                            const std::string& to_regex = kDmesgDefaultTo);

/// The nvmesim.dmesg/1 document for parses of one or more logs: schema, tool, from, to,
/// intervals [{source, ctrl, start_ns, end_ns, duration_ms, from_line, to_line}], summary of
/// duration_ms, and `empirical`: the durations as an empirical distribution (scenario syntax,
/// integer ns), ready for `--set PTR=...` or a scenario file.
nlohmann::ordered_json dmesg_json(const std::vector<DmesgParse>& parses, const std::string& from_regex,
                                  const std::string& to_regex);

/// The durations of `parses` as {"dist": "empirical", "samples": ["76461000ns", ...]}.
nlohmann::ordered_json dmesg_empirical(const std::vector<DmesgParse>& parses);

/// Serialises a nvmesim.dmesg/1 document with one interval per line (readable, diffable).
std::string dump_dmesg_json(const nlohmann::ordered_json& doc);

}  // namespace nvmesim
