#pragma once
// Where a sweep folder's results came from, and what `nvmesim merge` tells about the points it
// could not use (docs/sweeps.md, "When points fail or are missing"). A shard's manifest records
// the run that last wrote it (member "run": the sweep file's absolute path and, under Slurm, the
// job and array task); merge names, for each failed or missing point, its shard, its folder, the
// Slurm array task that ran it and the exact command that resumes that shard. None of this enters
// the merged summary, whose bytes stay independent of where and how the points ran.
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep.hpp"

namespace nvmesim {

/// The manifest's "run" member: {"sweep_file": `sweep_file`} (omitted when empty), plus
/// "slurm": {"job_id", "array_job_id", "array_task_id"} from the environment variables
/// SLURM_JOB_ID, SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID, each only when set (as strings,
/// at most 64 characters each; longer values are cut there). An empty object when neither applies.
nlohmann::ordered_json sweep_run_record(const std::string& sweep_file);

/// One sweep folder given to merge, as its manifest describes it.
struct MergedFolder {
  std::string dir;             ///< as given on the command line
  Shard shard;                 ///< the manifest's "shard"
  nlohmann::ordered_json run;  ///< the manifest's "run" (sweep_run_record), or null
};

/// A point that merge could not use: "failed" in a folder, or "missing" (pending in a folder,
/// or in none).
struct IncompletePoint {
  size_t index = 0;
  std::string id;
  bool failed = false;          ///< failed (with `error`), else missing
  std::string error;
  long folder = -1;             ///< index into the folders, -1 when no folder holds the point
};

/// Writes to `err`, grouped by folder: one line per incomplete point (index, id, shard K/N, the
/// folder, "Slurm array task T of job J" when the manifest recorded one, the error), at most
/// `max_lines_per_folder` of them per folder, then the command that resumes the folder's shard
/// (`nvmesim sweep SWEEP --shard K/N --out DIR --resume`, absolute paths, quoted for sh). Points
/// no folder holds are grouped by the shard they belong to when every folder has the same shard
/// count; at most `max_shards_listed` such shards are listed, the others counted in one line.
/// Each line starts with "nvmesim merge: ".
void report_incomplete_points(const std::vector<MergedFolder>& folders, const std::vector<IncompletePoint>& points,
                              std::ostream& err, size_t max_lines_per_folder = 50, size_t max_shards_listed = 20);

/// `text` quoted for a POSIX shell when it holds anything but [A-Za-z0-9_./:=+,-] (single quotes).
std::string shell_quote(const std::string& text);

}  // namespace nvmesim
