#pragma once
// Reading kernel logs (DESIGN section 9, `nvmesim dmesg`): the intervals between two kinds of
// lines, per controller, one line at a time (constant memory whatever the log's size). Pure C++
// (no SystemC), so that tests and a fuzz target can call it directly. The summaries and the
// nvmesim.dmesg/2 document are in tools/dmesg_report.hpp.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvmesim {

/// Default --from: driver init (`initcall nvme_init ...` with initcall_debug, or a debug print
/// naming nvme_init) or, when a log has no such line, the probe's `pci function` line (Linux);
/// FreeBSD's bus attach line (`nvme0: <Generic NVMe Device> mem ... on pci0`); SPDK's first
/// controller state (`nvme_ctrlr.c:...: *DEBUG*: [0000:04:00.0] setting state to delay init ...`,
/// a debug build run with `-L nvme`).
inline constexpr const char* kDmesgDefaultFrom =
    R"(nvme_init\b|nvme nvme[0-9]+: pci function|^nvme[0-9]+: <[^>]*>.* on pci[0-9]+|)"
    R"(_nvme_ctrlr_set_state: \*DEBUG\*: \[[^\]]+\] setting state to delay init)";
/// Default --to: an nvme controller's queues line (Linux 5.0+: "nvme nvmeN: %d/%d/%d default/read/poll
/// queues"; virtio_blk prints the same words, and its line must not end an nvme interval);
/// FreeBSD's first disk on a controller (`nvd0: <MODEL> NVMe namespace`, no controller named:
/// it ends every open interval; or nda(4)'s `nda0 at nvme0 bus 0 ...`); SPDK's `setting state to
/// ready`.
inline constexpr const char* kDmesgDefaultTo =
    R"(nvme nvme[0-9]+: [0-9]+/[0-9]+/[0-9]+ default/read/poll queues|^nvd[0-9]+: <[^>]*> NVMe namespace|)"
    R"(^nda[0-9]+ at nvme[0-9]+ bus|_nvme_ctrlr_set_state: \*DEBUG\*: \[[^\]]+\] setting state to ready)";
/// Lines longer than printk's record limit (1024 bytes) are cut there before matching.
inline constexpr size_t kDmesgMaxLineBytes = 1024;
/// The boot marker that `nvmesim run --dmesg` writes before each simulated boot:
/// `# nvmesim boot {"variant":"5.6 msleep(100)","trial":0}` (the rest of the line is JSON, so a
/// variant name cannot break out of it). A marker starts a new boot: intervals still open are
/// counted as unclosed, the clock may start again, and the following intervals belong to that
/// variant and trial.
inline constexpr std::string_view kDmesgBootMarker = "# nvmesim boot ";
/// Longest marker line read (a variant name is part of it); other lines are cut at
/// kDmesgMaxLineBytes. The line reader keeps this much of any line.
inline constexpr size_t kDmesgMaxMarkerBytes = size_t{64} << 10;
/// Most controllers (nvmeN names) with an interval open at once, and most variants (boot
/// markers) in one log: the limits of a scenario (1024 controllers, 1000 variants).
inline constexpr size_t kDmesgMaxOpenControllers = 1024;
inline constexpr size_t kDmesgMaxVariants = 1000;

/// One interval found in a log. Times are the log's own clock in ns (seconds since boot for the
/// `[    0.543457]` prefix; since the epoch for ISO-8601 times); end_ns >= start_ns always.
struct DmesgInterval {
  std::string source;   ///< the log's name as given to the reader
  std::string variant;  ///< the boot marker's variant, "" in a log without markers
  int64_t trial = -1;   ///< the boot marker's trial, -1 in a log without markers
  std::string ctrl;     ///< "nvme0", or "" for an interval between two driver-level lines
  int64_t start_ns = 0, end_ns = 0;
  size_t from_line = 0, to_line = 0;  ///< 1-based line numbers
  int64_t duration_ns() const { return end_ns - start_ns; }
  double duration_ms() const { return static_cast<double>(end_ns - start_ns) / 1e6; }
};

/// The --from and --to regular expressions, compiled with RE2 (linear time in the line's length
/// whatever the pattern: no backtracking, so no ReDoS; issue 16 item 6). RE2 syntax: ECMAScript's
/// without backreferences and lookaround. Searched anywhere in the message.
class DmesgPatterns {
 public:
  /// Throws InputError("--from: ...") / ("--to: ...") for a pattern that is not valid UTF-8 or
  /// not a valid RE2 expression.
  DmesgPatterns(const std::string& from_regex, const std::string& to_regex);
  ~DmesgPatterns();
  DmesgPatterns(DmesgPatterns&&) noexcept;
  bool is_from(std::string_view msg) const;
  bool is_to(std::string_view msg) const;
  const std::string& from() const { return from_text_; }
  const std::string& to() const { return to_text_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string from_text_, to_text_;
};

/// What one log gave, besides its intervals.
struct DmesgCounts {
  size_t lines = 0;          ///< lines read
  size_t timed_lines = 0;    ///< lines with a timestamp
  size_t from_matches = 0;   ///< timed lines matching --from
  size_t to_matches = 0;     ///< timed lines matching --to
  size_t intervals = 0;      ///< intervals reported
  size_t unmatched_to = 0;   ///< --to lines with no open interval
  size_t unclosed = 0;       ///< intervals still open at the end of the log or of a boot
  size_t backwards = 0;      ///< open intervals dropped because the time went backwards
  size_t boots = 0;          ///< boot markers read (0 for a real log)
  size_t skipped_boots = 0;  ///< boots of another variant than the one selected
  size_t freebsd_attach_lines = 0;  ///< timed --from lines of FreeBSD's (`nvme0: ...`)
  size_t freebsd_disk_lines = 0;    ///< timed --to lines of a FreeBSD disk (`nvd0: ...`, `nda0 at nvme0 ...`)
};

/// Reads one kernel log line by line and reports each interval from a line matching --from to
/// the next line matching --to, per controller.
///
/// Lines: `[  714.456099] msg` (dmesg; FreeBSD's with kern.msgbuf_show_timestamp 1 or 2: `[714] msg`,
/// `[714.456099] msg`), `[2023-04-17 19:10:08.630485] msg` (SPDK's log, a local time read as UTC), `<6>[...] msg` (dmesg -r), syslog/kern.log lines with the
/// bracketed time after "kernel: ", journalctl -o short-monotonic (`[ 714.456099] host kernel: msg`),
/// ISO-8601 times (dmesg --time-format=iso, journalctl -o short-iso-precise), /dev/kmsg records,
/// and nvmesim's boot markers. Lines without a timestamp (dmesg -t) cannot be timed and are
/// skipped; a log in which a matching line has no timestamp at all throws. CR-LF line ends are
/// accepted.
///
/// Controllers are told apart by the first `nvmeN` in the message (`nvme nvme1: ...`,
/// `nvme1n1: p1`, FreeBSD's `nvme1: ...`) or, in a message without one, SPDK's PCI address
/// (`*DEBUG*: [0000:04:00.0] ...`, `Failed to initialize SSD: 0000:04:00.0`). A matching line without one (`initcall nvme_init ...`) is driver-level: as a
/// --from line it opens an interval for every controller (a new driver instance: a module reload
/// or a boot); a controller's own --from line opens (or restarts) that controller's interval
/// unless a driver-level line already opened it. A --to line closes its controller's interval;
/// a driver-level --to line closes every open one. A line matching both closes before it opens,
/// so consecutive intervals chain.
///
/// Time going backwards (concatenated boots, a clock step): the intervals open at that line are
/// dropped (counted in `backwards`, with a warning naming the lines), never reported as
/// negative. Boot markers reset the clock without a warning.
class DmesgScanner {
 public:
  using IntervalFn = std::function<void(const DmesgInterval&)>;
  /// `variant`, when given, keeps only the boots of that variant (by their markers).
  DmesgScanner(const DmesgPatterns& patterns, std::string source, IntervalFn on_interval,
               std::optional<std::string> variant = std::nullopt);
  ~DmesgScanner();
  /// One line, without its '\n' (a trailing '\r' is dropped). Lines other than markers are cut at
  /// kDmesgMaxLineBytes. Throws InputError("SOURCE: line N: ...") for a malformed boot marker and
  /// for more than kDmesgMaxOpenControllers open intervals or kDmesgMaxVariants variants.
  void line(std::string_view raw);
  /// The end of the log. Throws InputError("SOURCE: line N: no timestamp ...") when lines match
  /// --from or --to but none has a time.
  void finish();
  const DmesgCounts& counts() const { return counts_; }
  /// The variants of the log's boot markers, in their first order.
  const std::vector<std::string>& variants() const { return variants_; }
  /// Warnings (time going backwards), the first kMaxWarnings of them; `warnings_total()` counts all.
  static constexpr size_t kMaxWarnings = 5;
  const std::vector<std::string>& warnings() const { return warnings_; }
  size_t warnings_total() const { return warnings_total_; }
  /// Lines longer than kDmesgMaxLineBytes (markers aside), cut there before matching: a --from
  /// or --to text past the cut is not seen, so the caller warns (attack of stop 25).
  size_t cut_lines() const { return cut_lines_; }

 private:
  class Tracker;
  void marker(std::string_view raw);
  void warn(std::string text);
  const DmesgPatterns& patterns_;
  std::string source_;
  IntervalFn on_interval_;
  DmesgInterval iv_;  ///< the record passed to on_interval_, reused
  std::optional<std::string> want_variant_;
  std::unique_ptr<Tracker> tracker_;
  DmesgCounts counts_;
  std::vector<std::string> variants_;
  std::string variant_;
  int64_t trial_ = -1;
  bool skipping_ = false;  ///< inside a boot of another variant, or before the first marker with a variant chosen
  std::optional<int64_t> last_ns_;
  size_t last_line_ = 0;
  std::optional<size_t> first_untimed_match_;
  std::vector<std::string> warnings_;
  size_t warnings_total_ = 0;
  size_t cut_lines_ = 0;
};

/// What parse_dmesg_text found (tests, the fuzz target).
struct DmesgParse {
  std::string source;                    ///< the log's name as given
  std::vector<DmesgInterval> intervals;  ///< in the order their end lines appear
  size_t lines = 0, timed_lines = 0, unmatched_to = 0, unclosed = 0, backwards = 0;
  std::vector<std::string> warnings;
};

/// Runs a DmesgScanner over the whole of `text` and collects its intervals (for tests and the
/// fuzz target; `nvmesim dmesg` streams its files). Throws what DmesgPatterns and DmesgScanner
/// throw.
DmesgParse parse_dmesg_text(const std::string& text, const std::string& source,
                            const std::string& from_regex = kDmesgDefaultFrom,
                            const std::string& to_regex = kDmesgDefaultTo);

/// True when the first lines of `head` (the start of a file) are mostly timed kernel-log lines or
/// boot markers: the file is a kernel log (for messages about a file given to the wrong command).
bool looks_like_kernel_log(std::string_view head);

/// True when `s` is valid UTF-8 (file names and patterns go into JSON outputs and messages).
bool is_valid_utf8(std::string_view s);

}  // namespace nvmesim
