#pragma once
// Running a sweep's points in worker processes, the sweep folder (DIR/points/<id>.jsonl and
// DIR/manifest.json), resuming, and merging shard folders (DESIGN section 10).
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep.hpp"

namespace nvmesim {

/// Exit status of `sweep` and `merge` when they finished but some points failed or are missing
/// (the other statuses are those of cli/cli.hpp; 128 + signal when stopped by SIGINT/SIGTERM).
inline constexpr int kExitPointsFailed = 1;

/// The outputs of each point besides its timeline DIR/points/<id>.jsonl (which resume and merge
/// read, so it is always written): the sinks of `nvmesim run` under the same option names (issue 12:
/// sweeps may select any sink). Each goes to DIR/points/<id><extension> (kTraceExt, kVcdExt,
/// kDmesgExt), written by the point's worker together with its .jsonl, all or none. The trial
/// selections are checked by cmd_sweep (TrialSelection::parse). Not part of the sweep's id: the
/// manifest records them ("outputs") and --resume requires the same.
struct SweepOutputs {
  bool trace = false;               ///< --trace: Chrome trace event JSON
  std::string trace_trials = "0";   ///< --trace-trials SEL, as for run
  bool vcd = false;                 ///< --vcd: VCD waveform
  bool dmesg = false;               ///< --dmesg: the trials as the kernel logs them
  std::string dmesg_trials = "all"; ///< --dmesg-trials SEL, as for run
  bool any() const { return trace || vcd || dmesg; }
  /// The manifest's "outputs": {"trace": {"trials": SEL}, "vcd": {}, "dmesg": {"trials": SEL}}
  /// with the selected ones; null when none is (the manifest then has no "outputs").
  nlohmann::ordered_json to_json() const;
};

inline constexpr const char* kTraceExt = ".trace.json";
inline constexpr const char* kVcdExt = ".vcd";
inline constexpr const char* kDmesgExt = ".dmesg";

struct SweepRunOptions {
  std::string out_dir;             ///< DIR; created if missing
  unsigned jobs = 0;               ///< worker processes, 1 to 1024; 0 for the number of usable CPUs
  Shard shard;                     ///< run only the points with index % count == index
  bool resume = false;             ///< keep the complete points already in DIR
  bool quiet = false;              ///< no progress and no summary line on stderr
  std::string exe = "/proc/self/exe";  ///< the nvmesim binary each worker runs (`run`), unless worker_main
  /// When set, a worker is a fork of this process that calls worker_main with the command line it
  /// would have executed ({"nvmesim", "run", ...}) and exits with its result, instead of
  /// executing `exe` (issue 15 item 5: a new process image costs ~5 ms of start-up per point,
  /// most of it dynamic linking, and the fork skips it). The child has its own SystemC
  /// elaboration, as an executed worker does: this process must never have elaborated (sweep/
  /// has no SystemC). Called in the child with stdin and stdout on /dev/null, stderr on the
  /// point's .stderr file, in DIR/.work, no other descriptor open. Before it, the child writes
  /// the point's scenario DIR/.work/<id>.json (a failure: exit 3, an I/O failure that stops the
  /// sweep); after it returns 0, the child checks the point's outputs and leaves the verdict in
  /// DIR/.work/<id>.check.json, which the sweep reads instead of the files (sweep/folder.hpp,
  /// check_text).
  std::function<int(const std::vector<std::string>& argv)> worker_main;
  /// When set with worker_main, and the points have no --vcd: a forked worker may run several
  /// points of the same controller count in one process and one elaboration (issue 15 item 5: a
  /// small point's fork, page faults, elaboration and exit cost several times its trials). Called
  /// in the child as worker_main is, with each point's command line after "nvmesim run", in the
  /// order given; calls `committed(i)` as soon as point i's outputs are all written (the child
  /// then leaves its check, as for one point, before the next point runs); returns how many
  /// leading points completed and sets `exit_status` to 128 + signal when SIGINT/SIGTERM stopped
  /// it (else 0); never throws (cmd_run_batch of cli/commands.hpp). The first point of a batch
  /// without a check then runs again in a worker of its own, where a failure is reported as for
  /// any point, and the points after it go back to be batched again.
  std::function<size_t(const std::vector<std::vector<std::string>>& args, int& exit_status,
                       const std::function<void(size_t)>& committed)>
      batch_main;
  /// The most points one batch holds (1: every point in a worker of its own), 1 to 256.
  size_t max_batch_points = 256;
  SweepOutputs outputs;            ///< each point's outputs besides its .jsonl
  std::string sweep_file;          ///< the sweep file's absolute path, recorded in the manifest's
                                   ///< "run" (with the Slurm job, sweep/origin.hpp) so that
                                   ///< merge can print the resume command; empty: not recorded
};

/// Runs the sweep's points of the shard, each as `nvmesim run <its scenario> --format jsonl -q
/// --out DIR/points/<id>.jsonl` (with --trace, --vcd, --dmesg and their trial selections as
/// `options.outputs` selects) in a process of its own (a crash or error in one point is
/// recorded in the manifest with its message and the others go on). DIR/manifest.json is written
/// atomically before the first worker starts (the points not yet complete `pending`, and the
/// "run" record: sweep file, Slurm job and array task) and again at the end. SIGINT and SIGTERM
/// stop the workers, remove their partial outputs, write the manifest of what is complete and
/// return 130 / 143. A worker's I/O failure (exit 3: a full disk) stops the sweep: no more points
/// start, the running ones are stopped, the points stay pending, and IoError is thrown (exit 3).
/// Returns 0 when every point of the shard is done, kExitPointsFailed when some failed. Throws InputError when DIR already holds results
/// and `resume` is not set, or holds another sweep's; IoError when DIR cannot be written or is
/// in use by another sweep.
int run_sweep(const Sweep& sweep, const SweepRunOptions& options, std::ostream& err);

/// Merges sweep folders (the shards of one sweep, in any order, or one unsharded folder) into
/// a JSON summary (schema nvmesim.sweep-summary/1) and a CSV beside it: `out` is either file,
/// "X.json" or "X.csv", and the other is X.csv or X.json (any other name: InputError): per point and variant the parameters and summary statistics, in point order, the same
/// bytes however the points were spread over shards. Returns 0, or kExitPointsFailed when points
/// are failed or missing (the outputs are still written, listing them; `err` gets, per shard,
/// which points, the Slurm array task that ran them and the command that resumes the shard:
/// report_incomplete_points of sweep/origin.hpp). Throws InputError for a missing or
/// unreadable manifest, a folder given twice (also by another path to it) or folders of different
/// sweeps; IoError when writing fails.
int merge_sweeps(const std::vector<std::string>& dirs, const std::string& out, std::ostream& err);

/// The usable CPUs of this process (sched_getaffinity; so a Slurm or taskset limit counts), >= 1.
unsigned usable_cpus();

}  // namespace nvmesim
