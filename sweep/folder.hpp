#pragma once
// The sweep folder (DESIGN section 10): DIR/points/<id>.jsonl per point, DIR/manifest.json, and
// the state of each point of a run. Internal to sweep/ (sweep/manifest.cpp); the interface is
// sweep/run.hpp.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep.hpp"

namespace nvmesim::sweep_detail {

inline constexpr const char* kManifestSchema = "nvmesim.sweep-manifest/1";
inline constexpr const char* kSummarySchema = "nvmesim.sweep-summary/1";

/// Creates the folder `path` (mode 0777 less the umask) unless it exists. Throws IoError when it
/// cannot, or when `path` exists and is not a folder.
void make_dir(const std::string& path);
bool file_exists(const std::string& path);
/// The names in folder `path` (without "." and ".."), sorted; empty when it cannot be read.
std::vector<std::string> list_dir(const std::string& path);
/// At most `max_bytes` of the file at `path`; empty when it cannot be read.
std::string read_small_file(const std::string& path, size_t max_bytes);

/// What DIR/points/<id>.jsonl holds.
enum class FileState { missing, complete, incomplete, other_scenario };

/// Checks a point file: complete when its header holds `scenario` and this tool's version, and its
/// last line is the summary record (then `summary` receives it).
FileState read_point_file(const std::string& path, const nlohmann::ordered_json& scenario,
                          nlohmann::ordered_json& summary);

enum class PointStatus { pending, done, failed };

/// One point of the shard in a run: its status, and its summary record (done) or error (failed).
struct PointState {
  const SweepPoint* point = nullptr;
  PointStatus status = PointStatus::pending;
  std::string error;
  nlohmann::ordered_json summary;
};

/// Writes DIR/manifest.json atomically: the sweep, the shard, and every point of it with its state.
void write_manifest(const std::string& dir, const Sweep& sw, const Shard& shard, const std::vector<PointState>& states);

/// When DIR holds a manifest, it must be this sweep's (same id) and of the same shard; throws
/// InputError otherwise.
void check_manifest_matches(const std::string& manifest_path, const Sweep& sw, const Shard& shard);

}  // namespace nvmesim::sweep_detail
