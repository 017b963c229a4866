#pragma once
// Scenario files, schema "nvmesim.scenario/1" (DESIGN section 7): loading, validation with
// errors that name the file and the JSON pointer, `--set` patches, and variants (JSON merge
// patches over the scenario, RFC 7386) resolved into typed parameters: the pure C++ data the
// engine runs (scenario/ never includes SystemC).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/names.hpp"
#include "host/host_params.hpp"
#include "models/controller_params.hpp"

namespace nvmesim {

/// What the host does in a trial (`workload`): every trial starts with the boot's probe;
/// "shutdown" then shuts the live controllers down (serially, or all at once with
/// host.async_shutdown), "reset" issues `nvme reset` to each, "reboot" shuts down and probes again.
enum class Workload { probe, shutdown, reset, reboot };
/// `workload`'s spellings.
inline constexpr EnumName<Workload> kWorkloadNames[] = {{Workload::probe, "probe"},
                                                       {Workload::shutdown, "shutdown"},
                                                       {Workload::reset, "reset"},
                                                       {Workload::reboot, "reboot"}};

/// Limits on what a scenario may ask for (errors, not silent clamps).
inline constexpr uint64_t kMaxTrials = 100'000'000;
/// Variants per scenario, and trials over all variants (the runner keeps ~17 bytes per trial for
/// the summaries and the pairing, so 10^8 trials need about 1.7 GB).
inline constexpr uint64_t kMaxVariants = 1000;
inline constexpr uint64_t kMaxTotalTrials = 100'000'000;
inline constexpr uint32_t kMaxControllers = 1024;
/// Controllers over all variants of one scenario (each variant keeps its own parameters of
/// every controller): 1024 controllers in 128 variants. Past it: exit 2 at the variant.
inline constexpr uint64_t kMaxControllersOverVariants = 131072;
/// Bytes (UTF-8) in a label: a controller's `name` or `pci_address`, the scenario's or a
/// variant's `name` (copied into every controller, variant or trial line).
inline constexpr size_t kMaxLabelBytes = 256;
inline constexpr uint32_t kMaxIoQueues = 4096;
/// Largest host.max_events_per_trial and host.max_polls_per_wait: 2^26 = 67108864 host operations
/// (issue 16 item 10: 10^9 was accepted). The bound is the worst case of a detailed trial if it
/// kept one event per operation: at most kBytesPerKeptEvent each (sizeof(Event), 80 bytes on
/// x86-64, plus the heap block of its detail text, 48) against kDetailedTrialBudgetBytes, 8 GiB:
/// 2^33 / 2^7 = 2^26. (The recorder keeps at most kMaxDetailedEvents MMIO, sleep, irq and admin
/// events; the bound also covers a trial whose messages, warnings and state changes are that
/// many.) A poll is one operation, so a poll limit needs the same bound. Exit 2 at the key.
inline constexpr uint64_t kBytesPerKeptEvent = 128;
inline constexpr uint64_t kDetailedTrialBudgetBytes = uint64_t{8} << 30;
inline constexpr uint64_t kMaxOperationsPerTrial = kDetailedTrialBudgetBytes / kBytesPerKeptEvent;
/// Simulated time one process may use over all its trials: 2^63 ps (about 106.75 days). sc_time
/// is a 64-bit count of picoseconds (about 213 days) that never goes back between trials; the
/// other half is headroom for the trial running when the budget is reached (each trial is at most
/// kMaxTrialPs, host/host_params.hpp). Checked before running (a lower bound of the trials' time)
/// and before each trial.
inline constexpr uint64_t kMaxSimulatedPs = uint64_t{1} << 63;

/// boot.chain[].entry: how a stage of the boot chain takes the controllers over from the stage
/// before it (docs/hosts.md, "Boot chain").
enum class StageEntry {
  probe,   ///< the stage probes the controllers as the previous stage left them (firmware -> OS)
  kexec,   ///< the previous stage, Linux, first shuts its live controllers down (device_shutdown's
           ///< nvme_shutdown: CC.SHN, wait for SHST), then this stage probes (Linux kexec)
  unbind,  ///< the same shutdown through Linux's remove path (unbind from nvme, e.g. for SPDK)
};
/// boot.chain[].entry's spellings.
inline constexpr EnumName<StageEntry> kStageEntryNames[] = {
    {StageEntry::probe, "probe"}, {StageEntry::kexec, "kexec"}, {StageEntry::unbind, "unbind"}};

/// One stage of `boot.chain`: a host driver with its parameters (the `host` section's values
/// where the stage leaves a key out), the time before it and how it takes the controllers over.
struct BootStage {
  HostParams host;
  /// boot.chain[].gap: from the previous stage's end (and release) to this stage's start (ps;
  /// firmware to kernel); drawn once per trial. The first stage's gap delays the whole chain.
  Distribution gap = Distribution::fixed(0);
  StageEntry entry = StageEntry::probe;
};

/// One variant: the scenario with one merge patch applied, resolved into typed parameters.
struct Variant {
  std::string name;
  /// The host that runs the workload: `host`, or with a boot chain its last stage's parameters
  /// (the OS: outputs' `ran`, the log format and the workload check follow it).
  HostParams host;
  /// boot.chain's stages in order (empty: no chain, `host` alone probes). The engine runs them on
  /// the same controller state in one trial; the last is `host`.
  std::vector<BootStage> chain;
  LinkParams link;
  std::vector<ControllerParams> controllers;  ///< expanded by `count`; index = N of nvmeN
  Workload workload = Workload::probe;
  /// boot.probe_start_s as this variant's patch leaves it: the kernel clock (s) at driver init,
  /// where its dmesg lines start.
  double probe_start_s = 0;
};

/// A loaded scenario. Trials of every variant use the same seed and trial indices, so device
/// draws are paired across variants (common random numbers, DESIGN section 6).
struct Scenario {
  std::string source;           ///< file name as given, or a description of the built-in
  std::string name;
  std::string description;
  uint64_t seed = 1;
  uint64_t trials = 1;
  double probe_start_s = 0;     ///< the file's boot.probe_start_s (a variant may change it: Variant)
  nlohmann::ordered_json resolved;  ///< the document after --set and overrides (for outputs)
  /// The --set patches applied, in order, as "PTR=VALUE" (VALUE as the user wrote it, set_text):
  /// the table's header lists them, so a table says what it ran.
  std::vector<std::string> sets;
  std::vector<Variant> variants;    ///< at least one; the first is the baseline
  /// What the loader accepted but looks wrong, each "FILE: POINTER: message" (the commands print
  /// them as "nvmesim: warning: ..." on stderr).
  std::vector<std::string> warnings;
};

/// A `--set PTR=VALUE` patch. VALUE is parsed as JSON, and taken as a string when it is not JSON.
struct SetPatch {
  std::string pointer;
  nlohmann::ordered_json value;
};

/// Parses "PTR=VALUE". Throws InputError ("--set ...: ...") when PTR is not a JSON pointer.
SetPatch parse_set(const std::string& text);

/// "PTR=VALUE" with VALUE as the user wrote it (5.10 stays 5.10, 1e3 stays 1e3), for messages and
/// the table header; VALUE re-serialised for a patch parse_set did not read.
std::string set_text(const SetPatch& set);

/// Options applied on top of the file.
struct LoadOptions {
  std::vector<SetPatch> sets;
  int64_t trials = -1;  ///< --trials, -1 to keep the file's
  int64_t seed = -1;    ///< --seed, -1 to keep the file's
};

/// Loads and validates a scenario file. Throws InputError for unreadable files, syntax errors,
/// unknown keys, wrong types and impossible values.
Scenario load_scenario_file(const std::string& path, const LoadOptions& options = {});

/// The same from text; `source` names it in error messages.
Scenario load_scenario_text(const std::string& text, const std::string& source,
                            const LoadOptions& options = {});

/// Throws InputError (source `source`, message "the value at PTR: ...") when a value placed at a
/// `host` location of `doc` (a sweep point's axis values, in `placed`) is read by no stage of
/// the document's `boot.chain`, in any variant: the point would run as if the value were not
/// there (issue 13: an input silently ignored). `file_driver` is the document's `host.driver`
/// before the values were placed ("linux" when it has none). A document without a chain passes.
void check_placed_host_keys(const nlohmann::ordered_json& doc, const std::vector<SetPatch>& placed,
                            const std::string& source, const std::string& file_driver);

/// The same from a document already parsed (by parse_json_text, or a sweep's base with a point's
/// values placed, whose depth check_placed_depth checked): a document is never dumped and parsed
/// again (issue 16 item 7: a 1000-point sweep over a 1 MB base took 35 s to load).
Scenario load_scenario_document(nlohmann::ordered_json doc, const std::string& source,
                                const LoadOptions& options = {});

}  // namespace nvmesim
