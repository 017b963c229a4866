#pragma once
// Parameter sweeps, schema "nvmesim.sweep/1" (DESIGN section 10): a base scenario and axes over
// JSON pointers into it, expanded into points in a fixed order, each with a stable id derived
// from its parameter values. Pure C++ (no SystemC; the only I/O is reading a base scenario file),
// so that it can be tested and fuzzed anywhere. Running the points is sweep/run.hpp.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace nvmesim {

struct Scenario;

/// Limits on what a sweep file may ask for (errors, not silent clamps).
inline constexpr size_t kMaxSweepPoints = 100'000;   ///< points of one sweep (all shards)
inline constexpr size_t kMaxAxisValues = 10'000;     ///< values of one axis

/// One axis: a JSON pointer into the scenario and the values it takes, in order.
struct SweepAxis {
  std::string pointer;                          ///< e.g. "/host/kernel"
  bool zip = false;                             ///< in "zip" (advanced together), else in "grid"
  std::vector<nlohmann::ordered_json> values;   ///< expanded values (lists as given, ranges computed)
  std::string file_pointer;                     ///< where the axis is in the sweep file, "/grid/~1host~1kernel"
  bool listed = true;                           ///< values given as a list (not linspace/logspace)
};

/// One point of the sweep.
struct SweepPoint {
  size_t index = 0;                        ///< position in the fixed expansion order, from 0
  std::string id;                          ///< stable id from the parameter values (point_id)
  nlohmann::ordered_json parameters;       ///< {pointer: value}, grid axes in file order, then zip axes
  /// Estimated CPU cost of running the point, in ns (point_cost_estimate of its scenario as the
  /// loader validated it). Only orders the work (largest first); never part of an output.
  double cost_estimate = 0;
  /// Controllers its elaboration needs (the most any of its variants has): a sweep worker runs
  /// several points in one elaboration only when they need the same number.
  size_t controllers = 0;
};

/// A loaded and validated sweep.
struct Sweep {
  std::string source;                      ///< sweep file name as given (error messages only)
  std::string name, description;
  std::string id;                          ///< 16 hex digits of FNV-1a 64 over the definition (base
                                           ///< scenario after "set" and "trials", and the axes):
                                           ///< the manifests of the shards of one sweep share it
  uint64_t trials = 1;                     ///< per point (and per variant of the point)
  nlohmann::ordered_json base;             ///< base scenario after "set" and "trials"
  std::vector<SweepAxis> axes;             ///< grid axes in file order, then zip axes in file order
  std::vector<SweepPoint> points;          ///< every point, in index order
};

/// Loads and validates a sweep from its text. `source` names it in errors; a relative "base"
/// path is taken relative to `base_dir`. Every point's resolved scenario is validated, and an
/// error in one is reported at the axis value that caused it ("SOURCE: /grid/~1host~1hz/2: ...").
/// Throws InputError (core/errors.hpp) for syntax errors, unknown keys, wrong types, bad
/// pointers, unequal zip lengths, repeated values, more than kMaxSweepPoints points, an
/// unreadable or invalid base scenario, and axes that every variant of the base overrides.
/// `max_points` lowers the point limit (a fuzz target keeps each input cheap with it).
Sweep load_sweep_text(const std::string& text, const std::string& source, const std::string& base_dir = ".",
                      size_t max_points = kMaxSweepPoints);

/// The same from the parsed document `doc` (nvmesim validate parses a file once to tell a sweep
/// from a scenario).
Sweep load_sweep_document(const nlohmann::ordered_json& doc, const std::string& source, const std::string& base_dir = ".",
                          size_t max_points = kMaxSweepPoints);

/// The folder of the file `path` ("." without one), against which its "base" is resolved.
std::string folder_of(const std::string& path);

/// Reads and loads a sweep file; "base" is relative to the file's folder. Throws InputError.
Sweep load_sweep_file(const std::string& path);

/// The scenario document point `p` runs: the base with each parameter set at its pointer.
nlohmann::ordered_json point_scenario(const Sweep& sweep, const SweepPoint& p);

/// Parameters of the point with `index` (0 <= index < product of the axis lengths), in axis
/// order. The first grid axis varies slowest; the zip axes together form the fastest dimension.
nlohmann::ordered_json point_parameters(const std::vector<SweepAxis>& axes, size_t index);

/// The stable id of a point: "<slug>-<16 hex digits>", the slug made of the last pointer token
/// and the scalar value of each parameter in pointer order ([A-Za-z0-9._] kept, other characters as '_', at most
/// 60 characters), the digits the FNV-1a 64 hash of the parameters as compact JSON with sorted
/// keys (fnv1a64 of core/rng.hpp). Independent of the order of the axes in the file; "base-<hash>" without axes.
std::string point_id(const nlohmann::ordered_json& parameters);

/// An estimate of the CPU a worker needs to run scenario `sc`, in ns: its start-up, its
/// elaboration (per controller) and, per variant, trials x the sum over its controllers of a fixed
/// cost per trial plus a cost per expected CSTS poll. The polls of a wait are 1 + the median of the
/// latency it waits for (enable, disable, shutdown; CAP.TO x 500 ms for a never-ready controller)
/// divided by the time between two polls (Linux: what host.kernel's poll sleep asks for, e.g. 100
/// ms for msleep(100), 1 ms for usleep_range(1000, 2000), at least 1 us; SPDK: the median of
/// host.poll_interval; other drivers: 1 ms). The weights are this machine's measured costs
/// (bench/results.md); the sweep hands out its points largest estimate first, so that the long
/// points do not run last on one worker while the others idle (issue 15 item 5).
double point_cost_estimate(const Scenario& sc);

/// A slice of a sweep's points for one machine or task: index % count == index_of_shard.
struct Shard {
  uint64_t index = 0;  ///< K, 0 <= K < count
  uint64_t count = 1;  ///< N, 1 to 1000000
};

/// Parses "K/N" (0 <= K < N <= 1000000). Throws InputError ("--shard ...: ...").
Shard parse_shard(const std::string& text);

/// Whether the point with `point_index` belongs to `shard`.
inline bool in_shard(size_t point_index, const Shard& shard) { return point_index % shard.count == shard.index; }

/// Formats picoseconds as an exact decimal duration in the largest unit not above it
/// ("316.228us", "1.5ms", "2s", "0ns").
std::string format_duration_decimal(int64_t ps);

}  // namespace nvmesim
