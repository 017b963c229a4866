#pragma once
// The commands of `nvmesim` (DESIGN section 9), each run with its arguments after the command
// name, results on `out`, errors and progress on `err`. Each returns its exit status (cli/cli.hpp)
// and throws InputError (exit 2), boost::program_options errors (exit 2), IoError (exit 3) or
// Interrupted (128 + signal) for cli_main to report.
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace nvmesim {

/// `nvmesim run [SCENARIO] [options]`: runs the variants and trials, prints the table, writes the
/// timeline, trace, VCD and dmesg outputs asked for.
int cmd_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// Runs several `run` command lines (each its arguments after "run", every one with -q and --out,
/// without --vcd) one after the other in this process's single SystemC elaboration
/// (run_scenarios of engine/runner.hpp): a sweep worker's batch of points (issue 15 item 5).
/// Returns how many leading command lines completed with every output written; the first that
/// could not be loaded or failed ends the batch (its message goes to `err` prefixed
/// "nvmesim: batch: ", and its point is run again on its own by the sweep, which then reports the
/// error as `run` does). `exit_status` becomes 128 + signal when SIGINT/SIGTERM arrived during the
/// batch (whatever else ended it), else 0. `committed`, when set, is called with each command
/// line's index as soon as its outputs are written, while SIGINT/SIGTERM are still caught (it
/// must not throw). Never throws. Call at most once per process.
size_t cmd_run_batch(const std::vector<std::vector<std::string>>& args, std::ostream& err, int& exit_status,
                     const std::function<void(size_t)>& committed = {});

/// `nvmesim validate FILE...`: checks scenario and sweep files without running them; one line
/// per file; 2 when any is invalid.
int cmd_validate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// `nvmesim dmesg LOG... [--from REGEX] [--to REGEX] [--out FILE] [--empirical]`: intervals from
/// real kernel logs (tools/dmesg_reader.hpp). InputError for unreadable logs and bad regular
/// expressions, IoError when --out cannot be written.
int cmd_dmesg(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// `nvmesim profiles [--json]`: the kernel profile table (tools/profiles.hpp).
int cmd_profiles(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// `nvmesim sweep SWEEP.json --out DIR [--jobs N] [--shard K/N] [--resume] [--list] [-q]`.
/// Returns 0, 1 when points failed (sweep/run.hpp), 128 + signal when stopped.
int cmd_sweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// `nvmesim merge DIR... --out FILE.json`: the summary of the points of sweep folders (and
/// FILE.csv beside it). Returns 0, or 1 when points are failed or missing.
int cmd_merge(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// `nvmesim fit OBS --out POSTERIOR.json [--scenario-out DEVICE.json] [--seed S] [--jobs N]`
/// (or one --log): the posterior of a machine's device and boot stages (fit/fit.hpp).
int cmd_fit(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// `nvmesim predict POSTERIOR.json --kernel K ... [--out P.json]`: what-if predictions with
/// their uncertainty (fit/predict.hpp).
int cmd_predict(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace nvmesim
