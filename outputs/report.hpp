#pragma once
// What a run reports per variant and per pair of variants (DESIGN section 8, `summary` and
// `paired`): the table, the timeline's summaries and the tests read it. Pure C++.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/recorder.hpp"
#include "core/stats.hpp"

namespace nvmesim {

/// What a variant actually ran, resolved from its scenario (issue 10 item 5): a variant named
/// "5.7" that ran 6.6 shows 6.6 here. The Linux fields are empty (hz 0) for another driver.
struct RanSettings {
  std::string driver = "linux";  ///< host.driver
  std::string release;     ///< the driver's release where it has a choice of them (FreeBSD), else empty
  bool is_linux() const { return driver == "linux"; }
  std::string kernel;      ///< host.kernel as resolved, e.g. "6.6", "6.1.90" or "5.4.0-150-generic"
  std::string mainline;    ///< its mainline part ("5.4"), which selected the profile row
  std::string profile;     ///< the release table's row holding it, "FIRST-LAST" ("6.6-6.11"), or FIRST alone
  std::string poll_sleep;  ///< the sleep between CSTS reads after host.overrides, e.g. "usleep_range(1000, 2000)"
  int hz = 0;              ///< CONFIG_HZ (host.hz)
};

/// Per-variant results, for the table and for tests. Which trials each summary covers is in
/// docs/output.md ("Which trials each summary covers").
/// One stage of a boot chain over a variant's trials (Variant::chain).
struct StageReport {
  std::string driver;                 ///< the stage's host.driver
  std::string entry;                  ///< "probe", "kexec" or "unbind"
  StatusCounts status_counts{};       ///< the stage's probe, by ProbeStatus
  Summary time_ms;                    ///< the stage's start to its end, over the trials where its probe ended ok
  Summary probe_ms;                   ///< the stage's start to controller 0's end, same trials
  Summary gap_ms;                     ///< the gap before it, every trial (reported when a gap was ever > 0)
  Summary release_ms;                 ///< entry kexec/unbind: the previous stage's shutdown, every trial
};
struct VariantReport {
  std::string name;
  RanSettings ran;
  uint64_t trials = 0;                       ///< every trial of the variant
  StatusCounts status_counts{};              ///< trials by ProbeStatus
  /// over the trials that ended ok only (count 0 when none did: JSON null, the table "n/a")
  Summary probe_ms, critical_path_ms;
  /// over the failed trials only: driver init to the failure of the first controller (its probe_ps)
  Summary time_to_failure_ms;
  Summary namespace_ms;  ///< first usable namespace (count 0 unless reported)
  Summary workload_ms;   ///< shutdown / reset / reboot part (count 0 for the probe workload; a shutdown or reset after a boot where no controller probed is not counted)
  nlohmann::ordered_json phases;             ///< per phase: polls and sleeps min/max/mean
  std::vector<StageReport> stages;           ///< boot.chain's stages; empty without a chain
};
struct PairedReport {
  std::string variant, baseline;
  /// over the pairs: trials k where the probe of both variants succeeded (delta_ms.count pairs;
  /// none: JSON null, the table "n/a (no trial succeeded in both)")
  Summary delta_ms;
  uint64_t trials = 0;                       ///< trials per variant (the pairs possible)
};
struct RunReport {
  std::vector<VariantReport> variants;
  std::vector<PairedReport> paired;
};

/// A variant's `summary` object: trials, ran (Linux: kernel, profile, poll_sleep, hz; another
/// driver: driver and, when it has releases, release), status counts by
/// name, probe_ms and critical_path_ms (ok trials; null when none), time_to_failure_ms (failed
/// trials; null when none), namespace_ms and workload_ms when reported, phases.
nlohmann::ordered_json summary_json(const VariantReport& r);
/// One element of `paired`: variant, baseline, pairs (always), delta_ms (null over 0 pairs).
nlohmann::ordered_json paired_json(const PairedReport& p);
/// `s` as to_json (core/stats.hpp) gives it, or null when it holds no value: never a zero that
/// was not measured.
nlohmann::ordered_json summary_or_null(const Summary& s);

}  // namespace nvmesim
