#pragma once
// dmesg text (`--dmesg FILE`, DESIGN section 8): the selected trials as the kernel prints them,
// so that a simulated boot can be read by the same tools (and by `nvmesim dmesg`) as a real one.
// Pure C++.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/trial_selection.hpp"
#include "outputs/sink.hpp"
#include "outputs/trial.hpp"

namespace nvmesim {

/// The line the kernel prints for driver init with initcall_debug, as in the AWS case logs
/// (tests/data/shared/cases): the symbol size is that of the logged 5.6/5.7 build; the model's driver init
/// takes no time, hence "after 0 usecs".
inline constexpr const char* kDmesgInitLine = "initcall nvme_init+0x0/0x5b returned 0 after 0 usecs";

/// The comment line that starts each simulated boot in --dmesg: `# nvmesim boot {"variant":
/// NAME, "trial": N}` (JSON after the prefix, so a variant name cannot break out of it);
/// `nvmesim dmesg` reads it to keep the variants apart (tools/dmesg_reader.hpp, kDmesgBootMarker).
std::string dmesg_boot_marker(const std::string& variant, uint64_t trial);

/// Appends one trial: its boot marker (dmesg_boot_marker of `req`'s variant and trial), the
/// driver-init line at time 0 (printk drivers only: a console driver has no initcall), then every
/// message of the trial
/// (the `message` events: pci function, queues line, failures such as "Device not ready; aborting
/// initialisation, CSTS=0x0" and "Removing after probe failure status: -19"), each prefixed with
/// printk's "[%5lu.%06lu] " time (printk drivers: log_prefix): `probe_start_s` (boot.probe_start_s) plus the trial time. Each
/// trial is one boot, so every trial's times start again at probe_start_s. The recorder of `res`
/// must hold the trial's events.
void append_dmesg_trial(std::string& out, const TrialRequest& req, const TrialResult& res, double probe_start_s);

/// Appends `text` as dmesg prints a message: control characters (0x00-0x1f, 0x7f) as `\xNN`
/// (lower-case hex), as dmesg(1) escapes unprintable bytes, so a scenario's text (a `name`, a
/// `pci_address`) can never end the line and forge another one (issue 16 item 22).
void append_dmesg_text(std::string& out, const std::string& text);

/// "[    0.543457] " for a line printed `t_ps` after driver init, with driver init at
/// `probe_start_s` seconds of the kernel's clock (boot.probe_start_s). printk's "[%5lu.%06lu] ".
std::string dmesg_prefix(double probe_start_s, int64_t t_ps);

/// "[2.000000] " (FreeBSD's message buffer with kern.msgbuf_show_timestamp=2: uptime seconds and
/// microseconds, not padded) for a line `t_ps` after driver init at `probe_start_s`.
std::string msgbuf_prefix(double probe_start_s, int64_t t_ps);

/// "[1970-01-01 00:00:02.000000] " (SPDK's log time, "%Y-%m-%d %H:%M:%S" and microseconds) for a
/// line `t_ps` after driver init at `probe_start_s`; the model has no wall clock, so its time
/// is read from the epoch (only the intervals between lines mean anything).
std::string spdk_log_prefix(double probe_start_s, int64_t t_ps);

/// What the host prints before a message `t_ps` after driver init, by DriverTraits::log:
/// printk's time (dmesg_prefix; a null `v` is Linux's), msgbuf_prefix (FreeBSD),
/// spdk_log_prefix (SPDK), or nothing for a driver that prints to its console as it is (U-Boot,
/// EDK2, OpenBSD, ...).
std::string log_prefix(const Variant* v, double probe_start_s, int64_t t_ps);

/// log_prefix for a trial with boot.chain stages `stages` (its TrialResult::stages; empty
/// without a chain: `v`'s one driver): the format of the stage whose lines `t_ps` belongs to,
/// the last one started at or before it (the first before any), as --dmesg writes each stage's
/// lines (append_dmesg_trial). The timeline's and the trace's dmesg lines use it.
std::string log_prefix(const Variant* v, const std::vector<StageResult>& stages, double probe_start_s, int64_t t_ps);

/// The dmesg file at `path` as a sink: the trials in `trials` of every variant, in run order, each
/// as append_dmesg_trial writes it (they keep their events for it). Throws IoError when `path`
/// cannot be written.
std::unique_ptr<TrialSink> open_dmesg_sink(const std::string& path, const TrialSelection& trials);

}  // namespace nvmesim
