#pragma once
// What a run reports per variant and per pair of variants (DESIGN section 8, `summary` and
// `paired`): the table, the timeline's summaries and the tests read it. Pure C++.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/recorder.hpp"
#include "core/stats.hpp"

namespace nvmesim {

/// Per-variant results, for the table and for tests.
struct VariantReport {
  std::string name;
  StatusCounts status_counts{};              ///< trials by ProbeStatus
  Summary probe_ms, critical_path_ms;
  Summary namespace_ms;  ///< first usable namespace (count 0 unless reported)
  Summary workload_ms;   ///< shutdown / reset / reboot part (count 0 for the probe workload)
  nlohmann::ordered_json phases;             ///< per phase: polls and sleeps min/max/mean
};
struct PairedReport {
  std::string variant, baseline;
  Summary delta_ms;                          ///< over trials where both probes succeeded
};
struct RunReport {
  std::vector<VariantReport> variants;
  std::vector<PairedReport> paired;
};

/// A variant's `summary` object: trials, status counts by name, probe_ms, critical_path_ms,
/// namespace_ms and workload_ms when reported, phases.
nlohmann::ordered_json summary_json(const VariantReport& r);
/// One element of `paired`: variant, baseline, delta_ms.
nlohmann::ordered_json paired_json(const PairedReport& p);

}  // namespace nvmesim
