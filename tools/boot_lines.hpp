#pragma once
// The kinds of kernel-log lines that mark the stages of an NVMe probe and of the boot after it
// (driver init, pci function, queues line, partition scan, root mount, VFS, Run /sbin/init), and
// the split of a log into runs at each driver-init line (issue 14, docs/fit.md). One table, so
// that observed and simulated intervals are computed alike. Pure C++.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nvmesim {

/// The line kinds in the order of the boot chain; each stage lies between two consecutive kinds.
enum class BootLine { init, pci, queues, part, mounted, vfs, run_init };
inline constexpr size_t kBootLines = 7;
/// "init", "pci", "queues", "part", "mounted", "vfs", "run_init".
const char* boot_line_name(BootLine k);

/// One run of a log: from a driver-init line (or, in a log without one, a `pci function` line)
/// to the next. Times are the log's own clock in ns (1 us resolution for dmesg).
struct LogRun {
  std::array<bool, kBootLines> has{};
  std::array<int64_t, kBootLines> ns{};
  std::array<size_t, kBootLines> line{};  ///< 1-based line numbers
  std::string ctrl;                       ///< "nvme0" (from the pci/queues line), or ""
  int io_queues = 0;                      ///< D of the "D/R/P default/read/poll queues" line; 0 if none
  bool present(BootLine k) const { return has[static_cast<size_t>(k)]; }
  int64_t at(BootLine k) const { return ns[static_cast<size_t>(k)]; }
};

/// The longest interval between consecutive line kinds of a run that a log may hold: 300 s (two
/// readiness waits of CAP.TO at most 127.5 s each, and the admin commands; the boot-stage priors
/// end at 10 s). A longer one is a clock jump or a suspend, not a probe.
inline constexpr int64_t kMaxLogIntervalNs = int64_t{300} * 1000000000;

/// Splits the kernel log `text` (any format of tools/dmesg_reader.hpp) into runs and finds the
/// line kinds of each:
/// - init: `initcall nvme_init+0x../0x.. [nvme] returned`, a debug print starting `nvme_init`, or
///   an `nvmesim: (boot|reload|reset) start` marker written to /dev/kmsg;
/// - pci: `nvme nvmeN: pci function DDDD:BB:DD.F`; queues: `nvme nvmeN: D/R/P default/read/poll queues`;
/// - part: ` nvmeNnM: p1` or `unknown partition table`; mounted: `EXT4-fs (...): mounted
///   filesystem` or `XFS (...): Ending clean mount`; vfs: `VFS: Mounted root (...)`;
///   run_init: `Run /sbin/init as init process`.
/// A run starts at an init line; in a log without one, at each pci line. Lines before the first
/// run start are ignored. The time going backwards (any timed line earlier than the one before
/// it) ends the open run, as in nvmesim dmesg; the lines up to the next run start are ignored.
/// Throws InputError("SOURCE: line N: ...") for a second line of one kind in a run (naming both
/// lines and the hint to split the log), a line of a second controller, `Device not ready`
/// (failed probes are not fitted), a timeless line of a kind, a log with no run start, the time
/// going backwards inside a run before its queues line, and an interval between consecutive
/// kinds of a run that is negative, zero, or longer than kMaxLogIntervalNs.
std::vector<LogRun> read_log_runs(const std::string& text, const std::string& source);

}  // namespace nvmesim
