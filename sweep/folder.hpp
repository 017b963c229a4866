#pragma once
// The sweep folder (DESIGN section 10): DIR/points/<id>.jsonl per point, DIR/manifest.json, and
// the state of each point of a run. Internal to sweep/ (sweep/manifest.cpp); the interface is
// sweep/run.hpp.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/run.hpp"
#include "sweep/sweep.hpp"

namespace nvmesim::sweep_detail {

inline constexpr const char* kManifestSchema = "nvmesim.sweep-manifest/1";
inline constexpr const char* kSummarySchema = "nvmesim.sweep-summary/1";

/// Creates the folder `path` (mode 0777 less the umask) unless it exists. Throws IoError when it
/// cannot, or when `path` exists and is not a folder.
void make_dir(const std::string& path);
bool file_exists(const std::string& path);
/// Throws InputError ("PATH: is a directory, expected a file (WHAT) ...") when `path` exists and
/// is not a regular file (a folder, a FIFO, a device; a symbolic link counts as what it names).
/// A sweep folder's point files, their outputs and the workers' scratch files are files: anything
/// else there is an input problem, exit 2 (issue 16's last findings, item 11: a folder in place of
/// a point file or an output gave exit 3 on --resume, once the worker failed to replace it).
void require_file_if_present(const std::string& path, const std::string& what);
/// The names in folder `path` (without "." and ".."), sorted; empty when it cannot be read.
std::vector<std::string> list_dir(const std::string& path);
/// At most `max_bytes` of the file at `path`; empty when it cannot be read.
std::string read_small_file(const std::string& path, size_t max_bytes);

/// The names in DIR/points of point `id`'s outputs besides its .jsonl (sweep/outputs.cpp).
std::vector<std::string> extra_output_names(const SweepOutputs& o, const std::string& id);
/// What the manifest records of point `id`'s outputs besides its .jsonl in folder `points_dir`:
/// {"<name>": {"bytes": N, "fnv1a64": "<16 hex digits>"}, ...} per name of extra_output_names,
/// the FNV-1a 64 hash of the file's bytes (read in blocks); null when there are none, or when
/// one cannot be read (then the point is not complete).
nlohmann::ordered_json output_records(const SweepOutputs& o, const std::string& points_dir, const std::string& id);
/// What the manifest records of a done point's DIR/points/<id>.jsonl at `path` (its "jsonl"):
/// {"bytes": N, "fnv1a64": "<16 hex digits>"} as for the other outputs; null when it cannot be
/// read. --resume reruns and merge refuses a point whose .jsonl no longer has them (issue 16 item
/// 16: an edited trial line that keeps the line's prefix passed the line count check).
nlohmann::ordered_json jsonl_record(const std::string& path);
/// The options of `nvmesim run` (started in DIR/.work) that write those outputs.
std::vector<std::string> worker_output_args(const SweepOutputs& o, const std::string& id);

/// What DIR/points/<id>.jsonl holds (sweep/point_file.cpp).
enum class FileState { missing, complete, incomplete, other_scenario };

/// Checks a point file: complete when its header holds `scenario` and this tool's version, its
/// last line is the summary record (then `summary` receives it), and between them are exactly the
/// trial lines that summary counts, variant by variant, trial 0 first. Lines are read in blocks
/// of at most 64 MiB each.
FileState read_point_file(const std::string& path, const nlohmann::ordered_json& scenario,
                          nlohmann::ordered_json& summary);

/// The scenario of a point file's header record (its first line, at most 64 MiB); false when the
/// file cannot be read or its first line is no header record.
bool read_point_header_scenario(const std::string& path, nlohmann::ordered_json& scenario);

/// The summary record of a point file (its last line, read backwards: cheap for a large file);
/// false when the file cannot be read or its last line is no summary record.
bool read_point_summary(const std::string& path, nlohmann::ordered_json& summary);

enum class PointStatus { pending, done, failed };

/// One point of the shard in a run: its status, and its summary record (done) or error (failed).
struct PointState {
  const SweepPoint* point = nullptr;
  PointStatus status = PointStatus::pending;
  std::string error;
  nlohmann::ordered_json summary;
  /// Done with outputs besides the .jsonl: their sizes and hashes (output_records), which the
  /// manifest records and --resume checks before it keeps the point.
  nlohmann::ordered_json outputs;
  /// Done: the size and hash of its .jsonl (jsonl_record), the manifest's "jsonl".
  nlohmann::ordered_json jsonl;
};

/// What a worker that exited 0 left, read back from its files: complete only when the point file
/// is complete for the point's scenario (read_point_file) and every other selected output exists
/// and can be read; then the point file's summary, the outputs' records (output_records) and the
/// point file's record (jsonl_record), which the manifest keeps for --resume and merge to check.
struct PointCheck {
  bool complete = false;
  nlohmann::ordered_json summary, outputs, jsonl;
};

/// Checks point `p`'s outputs in `points_dir` against `scenario` (its point_scenario). Reads the
/// files; never throws for a missing or bad file (not complete), only std::bad_alloc.
PointCheck check_point_outputs(const SweepPoint& p, const SweepOutputs& o, const std::string& points_dir,
                               const nlohmann::ordered_json& scenario);

/// A forked worker's check of its own outputs as it leaves it in DIR/.work/<id>.check.json (issue
/// 15 item 5, stop 27): one JSON line {"id":ID,"complete":false} or {"id":ID,"complete":true,
/// "summary":S,"outputs":O,"jsonl":J}. nlohmann writes each double in its shortest round-trip form,
/// so read_check gives back the same values, and the manifest the same bytes as a check made by
/// the sweep itself.
std::string check_text(const std::string& id, const PointCheck& c);

/// Reads a check written by check_text for point `id` into `c`; false when the file is missing,
/// cut (no final newline), over 64 MiB, not such a check, or another point's (then the sweep
/// checks the files itself).
bool read_check(const std::string& path, const std::string& id, PointCheck& c);

/// The folders of a sweep: DIR, DIR/points, DIR/.work (the workers' scenario, stderr and check
/// files; a folder of DIR's own, never a link: prepare_dir refuses one).
struct SweepDirs {
  std::string dir, points, work;
  explicit SweepDirs(const std::string& out_dir)
      : dir(out_dir.empty() ? "." : out_dir), points(dir + "/points"), work(dir + "/.work") {}
};

/// Creates DIR and locks it: one sweep at a time per folder (an advisory lock on the folder
/// itself, released by the kernel however this process ends). Returns the folder's descriptor,
/// to be closed when the sweep is done. Throws InputError (exit 2) when another live sweep holds
/// DIR, IoError (exit 3) when DIR cannot be created, opened or locked.
int lock_dir(const std::string& dir);

/// Existing results are refused without `resume`; with it, they must be this sweep's, of the same
/// shard (InputError otherwise). A folder without a manifest is then claimed: DIR/manifest.json
/// (every point pending, the run record `run`) is written before DIR/points and DIR/.work are
/// made. Then removes what an interrupted run of this sweep (SIGKILL, power loss) left, by name
/// only: ".<id>.jsonl.tmp.<pid>.<n>" in DIR/points and "<id>.json", "<id>.stderr",
/// "<id>.check.json" in DIR/.work, for the sweep's point ids; other files in DIR/points stay, and
/// another file in DIR/.work is an InputError (nothing removed). DIR/.work that is a symbolic
/// link, or whose parent is not DIR, is an InputError too.
void prepare_dir(const SweepDirs& d, const Sweep& sw, const Shard& shard, bool resume, const nlohmann::ordered_json& run,
                 const SweepOutputs& outputs);

/// Every point of `shard`, pending.
std::vector<PointState> pending_states(const Sweep& sw, const Shard& shard);

/// The points of `shard`; those complete in DIR (from an earlier run) are done, incomplete point
/// files are removed. `skipped` receives the number done. Throws InputError when a point file
/// holds another scenario.
std::vector<PointState> shard_states(const SweepDirs& d, const Sweep& sw, const Shard& shard, const SweepOutputs& outputs,
                                     size_t& skipped);

/// Writes DIR/manifest.json atomically: the sweep, the shard, the run record `run` (member "run":
/// sweep_run_record of sweep/origin.hpp) and every point of the shard with its state.
void write_manifest(const std::string& dir, const Sweep& sw, const Shard& shard, const nlohmann::ordered_json& run,
                    const SweepOutputs& outputs,
                    const std::vector<PointState>& states);

/// Checks a manifest read back from `path` (sweep/manifest_check.cpp): the schema, the sweep's id,
/// "points" (1 to kMaxSweepPoints) equal to the product of the axes' lengths (each axis 1 to
/// kMaxAxisValues values), the shard, and every point's index, status, id, variants and error of
/// the right type. Throws InputError "PATH: POINTER: ..." at the first wrong field.
void check_manifest(const nlohmann::ordered_json& m, const std::string& path);

/// A sweep's id from its base scenario (after "set" and "trials") and its axes as the manifest
/// writes them ([{"pointer", "kind", "values"}, ...]): 16 hex digits of FNV-1a 64 over the JSON
/// of both. The loader names a sweep by it (sweep/expand.cpp) and check_manifest recomputes it.
std::string definition_id_of(const nlohmann::ordered_json& scenario, const nlohmann::ordered_json& axes);

/// When DIR holds a manifest, it must be this sweep's (same id) and of the same shard; throws
/// InputError otherwise.
void check_manifest_matches(const std::string& manifest_path, const Sweep& sw, const Shard& shard,
                            const SweepOutputs& outputs);

}  // namespace nvmesim::sweep_detail
