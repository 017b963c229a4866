#pragma once
// The observation file nvmesim.observations/1 (issue 14 item 1, docs/fit.md): the real evidence of
// ONE machine, the kernel logs of the hosts that ran on it, read into runs and the intervals
// between their lines. Pure C++.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/boot_lines.hpp"

namespace nvmesim {

/// A host that produced logs: the scenario's `host` fields the logs cannot tell.
struct ObsHost {
  std::string name;
  std::string kernel;          ///< a profile release, "5.6"; from `uname_r` as MAJOR.MINOR
  std::string uname_r;         ///< as given, or ""
  int hz = 250;                ///< CONFIG_HZ: 100, 250, 300 or 1000
  std::string tick = "nohz_idle";  ///< nohz_idle or periodic
  bool highres = true;
  int cpus = 1;                ///< 1..4096; at least the queues line's D
};

/// One run of a log (tools/boot_lines.hpp) and where it came from.
struct ObsRun {
  size_t host = 0;             ///< index into Observations::hosts
  std::string kind;            ///< "boot" or "module_reload"
  std::string source;          ///< the log's name (file name, or "OBS: /logs/N/text")
  size_t log = 0;              ///< index of the log in the file
  int handoff = -1;            ///< -1 unknown, 0 disabled, 1 enabled (logs[].handoff)
  LogRun lines;
};

/// Fit settings from the file's optional `fit` object (0: the command's default).
struct ObsFitSettings {
  int particles = 0;
  int trials_per_particle = 0;
};

struct Observations {
  std::string source;          ///< the observation file's name as given
  std::string name, description;
  std::string link = "bare-metal";  ///< machine.link: the scenario's link preset
  std::vector<ObsHost> hosts;
  std::vector<ObsRun> runs;
  ObsFitSettings fit;
  std::vector<std::string> files;  ///< the log and dump files read (paths as opened), for output checks
  /// The controllers[0] keys that machine.show_regs, id_ctrl and lspci fix exactly, as scenario
  /// values: "cap" ("0x..." CAP), "vs" ("1.4.0"), "crto" ("0x..."), "pci_id" ("1d0f:8061"),
  /// "identify": {"model", "rtd3e" ("Nus")}. Empty without dumps.
  nlohmann::ordered_json device = nlohmann::ordered_json::object();
  /// Per key of `device` ("cap", "identify.model", ...), where it was read: "show-regs FILE line N".
  nlohmann::ordered_json device_from = nlohmann::ordered_json::object();
  /// The I/O queue count of the runs of host h (their queues lines' D; all must agree).
  int io_queues(size_t h) const;
  /// The file as read: hosts, and per run its lines (kind, time, line number) and intervals.
  nlohmann::ordered_json resolved() const;
};

/// Reads the observation file `path`; logs given by `path` are relative to its folder.
/// Throws InputError (exit 2) naming the file and JSON pointer, or the log and line: unknown keys
/// (with "did you mean"), a wrong schema, host fields outside what is allowed, a log's host not in
/// /hosts, a `runs` count that differs from the runs found, a queues line whose D exceeds the
/// host's cpus or is 0, a run given twice (the same lines at the same times, in one log or two),
/// and no interval to fit. IoError (exit 3) when a log file cannot be read.
Observations load_observations(const std::string& path);
/// The same from the file's text; `dir` is the folder of relative log paths.
Observations parse_observations(const std::string& text, const std::string& source, const std::string& dir);

/// Why a CAP value (NVMe 1.4 section 3.1.1) read from a machine cannot be a real controller's, or
/// nullptr when it can: all ones (the device did not answer the read), MQES 0 (a queue needs at
/// least 2 entries), MPSMIN > MPSMAX. Used by the show-regs reader and by predict on a posterior's
/// `observations.device.cap`, so that a hand edit cannot bring in what a dump could not.
const char* implausible_cap(uint64_t cap_raw);

/// The number of intervals the runs give (consecutive present line kinds).
size_t observed_interval_count(const Observations& obs);

}  // namespace nvmesim
