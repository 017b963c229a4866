#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/default_scenario.hpp"
#include "cli/file_kind.hpp"
#include "cli/options.hpp"
#include "core/signals.hpp"
#include "core/terminal_text.hpp"
#include "engine/runner.hpp"
#include "outputs/table.hpp"
#include "scenario/scenario.hpp"

namespace po = boost::program_options;

namespace nvmesim {

namespace {

// The options of `nvmesim run`, as --help lists them.
po::options_description describe_run_options() {
  po::options_description opts(
      "Usage: nvmesim run [SCENARIO] [options]\n\n"
      "Runs every variant of SCENARIO (default: the built-in AWS c5.12xlarge case, kernels 5.6 and\n"
      "5.7) for its trials and prints a table of probe times and paired deltas. With --out, writes\n"
      "the timeline (nvmesim.timeline/1, or one JSON object per trial with --format jsonl), or one\n"
      "CSV row per trial (--format csv, or --out FILE.csv).\n\nOptions");
  opts.add_options()
      ("help,h", "this help")
      ("trials,n", po::value<int64_t>()->value_name("N"), "trials per variant (overrides the file, not with --set /trials; 1 to 100000000)")
      ("seed,s", po::value<int64_t>()->value_name("S"), "scenario seed (overrides the file, not with --set /seed; >= 0)")
      ("set", po::value<std::vector<std::string>>()->composing()->value_name("PTR=VALUE"),
       "set the JSON pointer PTR of the scenario to VALUE (JSON, or a string when it is not "
       "JSON), e.g. --set /host/hz=1000; repeatable")
      ("out,o", po::value<std::string>()->value_name("FILE"), "write the timeline to this file (written atomically)")
      ("format,f", po::value<std::string>()->value_name("FMT"), "json (default; jsonl when --out ends in .jsonl, csv when it ends in .csv), jsonl or csv (one row per trial)")
      ("detail-trials", po::value<int64_t>()->default_value(10)->value_name("N"),
       "trials per variant whose full event list and dmesg go into a json timeline; the others keep "
       "status, times and phases (summaries cover both alike)")
      ("trace", po::value<std::string>()->value_name("FILE"),
       "write a Chrome trace event JSON file for Perfetto UI / chrome://tracing (one process per variant, "
       "tracks per controller and probing host thread)")
      ("trace-trials", po::value<std::string>()->default_value("0")->value_name("SEL"),
       "trials of each variant in --trace: all, none, or a list such as 0,3,10-19")
      ("vcd", po::value<std::string>()->value_name("FILE"),
       "write a VCD waveform through sc_trace for GTKWave: CC.EN, CSTS.RDY/CFS/SHST and the host state per "
       "controller, every trial back to back on the simulation time axis")
      ("dmesg", po::value<std::string>()->value_name("FILE"),
       "write the trials as the kernel logs them (each trial one boot, times from boot.probe_start_s)")
      ("dmesg-trials", po::value<std::string>()->default_value("all")->value_name("SEL"),
       "trials of each variant in --dmesg: all, none, or a list such as 0-9")
      ("quiet,q", "no table on stdout, no progress bar");
  return opts;
}

// --trials, --seed and --set: what is applied on top of the scenario file.
LoadOptions load_options(const po::variables_map& vm) {
  LoadOptions lo;
  if (vm.count("trials")) {
    lo.trials = vm["trials"].as<int64_t>();
    if (lo.trials < 1 || static_cast<uint64_t>(lo.trials) > kMaxTrials)
      throw InputError("--trials: must be from 1 to " + std::to_string(kMaxTrials));
  }
  if (vm.count("seed")) {
    lo.seed = vm["seed"].as<int64_t>();
    if (lo.seed < 0) throw InputError("--seed: must be >= 0");
  }
  if (vm.count("set"))
    for (const auto& s : vm["set"].as<std::vector<std::string>>()) lo.sets.push_back(parse_set(s));
  return lo;
}

// --out, --format, --detail-trials, --trace, --vcd, --dmesg and their trial selections, -q.
RunOptions run_options(const po::variables_map& vm) {
  RunOptions ro;
  if (vm.count("out")) ro.out_path = vm["out"].as<std::string>();
  const std::string& o = ro.out_path;
  auto ends_with = [&](const char* ext) {
    const std::string e = ext;
    return o.size() > e.size() && o.compare(o.size() - e.size(), e.size(), e) == 0;
  };
  if (ends_with(".jsonl")) ro.format = OutputFormat::jsonl;
  if (ends_with(".csv")) ro.format = OutputFormat::csv;
  if (vm.count("format")) {
    const std::string f = vm["format"].as<std::string>();
    if (f == "json") ro.format = OutputFormat::json;
    else if (f == "jsonl") ro.format = OutputFormat::jsonl;
    else if (f == "csv") ro.format = OutputFormat::csv;
    else throw InputError("--format: \"" + f + "\" is not allowed; allowed: json, jsonl, csv");
  }
  const int64_t dt = vm["detail-trials"].as<int64_t>();
  if (dt < 0) throw InputError("--detail-trials: must be >= 0");
  ro.detail_trials = static_cast<uint64_t>(dt);
  if (vm.count("trace")) ro.trace_path = vm["trace"].as<std::string>();
  if (vm.count("vcd")) ro.vcd_path = vm["vcd"].as<std::string>();
  if (vm.count("dmesg")) ro.dmesg_path = vm["dmesg"].as<std::string>();
  ro.trace_trials = TrialSelection::parse(vm["trace-trials"].as<std::string>(), "--trace-trials");
  ro.dmesg_trials = TrialSelection::parse(vm["dmesg-trials"].as<std::string>(), "--dmesg-trials");
  ro.quiet = vm.count("quiet") > 0;
  ro.progress = !ro.quiet;
  return ro;
}

// A trial selection that selects nothing is an error, never an empty or missing output
// (issue 10 item 8): --trace-trials/--dmesg-trials without their output, or selecting no trial
// of 0 .. trials-1; --detail-trials N > 0 without a .json timeline (--out F.json) to put them in.
// The outputs and the scenario are different files: two outputs at one path would leave only
// the one renamed last, and an output at the scenario's path would replace the input. Exit 2.
void check_distinct_paths(const RunOptions& ro, const std::string& scenario) {
  namespace fs = std::filesystem;
  const std::pair<const char*, const std::string*> paths[] = {
      {"the scenario", &scenario}, {"--out", &ro.out_path}, {"--trace", &ro.trace_path},
      {"--vcd", &ro.vcd_path}, {"--dmesg", &ro.dmesg_path}};
  auto key = [](const std::string& p) {
    std::error_code ec;
    const fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
    return ec ? fs::absolute(p).lexically_normal() : c;
  };
  for (size_t i = 0; i < std::size(paths); ++i)
    for (size_t j = i + 1; j < std::size(paths); ++j)
      if (!paths[i].second->empty() && !paths[j].second->empty() && key(*paths[i].second) == key(*paths[j].second))
        throw InputError(std::string(paths[j].first) + " " + *paths[j].second + ": the same file as " + paths[i].first +
                         " (" + *paths[i].second + "); give each output a path of its own");
}

void check_selections(const po::variables_map& vm, const RunOptions& ro, uint64_t trials) {
  const std::string range = trials == 1 ? "trial 0" : "trials 0-" + std::to_string(trials - 1);
  auto check = [&](const char* opt, const char* out, bool has_out, const TrialSelection& sel) {
    if (vm[opt].defaulted()) return;
    if (!has_out)
      throw InputError(std::string("--") + opt + " " + sel.text() + ": selects trials for --" + out +
                       ", which is not given; add --" + out + " FILE or leave --" + opt + " out");
    if (!sel.any_below(trials))
      throw InputError(std::string("--") + opt + " " + sel.text() + ": selects no trial of this run (" +
                       std::to_string(trials) + " per variant: " + range + "); nothing would be written to --" +
                       out);
  };
  check("trace-trials", "trace", !ro.trace_path.empty(), ro.trace_trials);
  check("dmesg-trials", "dmesg", !ro.dmesg_path.empty(), ro.dmesg_trials);
  if (!vm["detail-trials"].defaulted() && ro.detail_trials > 0 &&
      (ro.out_path.empty() || ro.format != OutputFormat::json))
    throw InputError("--detail-trials " + std::to_string(ro.detail_trials) +
                     ": events and dmesg lines are kept only in a json timeline, and this run writes " +
                     (ro.out_path.empty() ? std::string("none (no --out)") : "jsonl to " + ro.out_path) +
                     "; add --out FILE.json or leave --detail-trials out");
}

}  // namespace

namespace {

// A command line of `run`, parsed, its scenario loaded and its options checked (cmd_run and
// cmd_run_batch): everything before the simulation. `vm` holds --help.
struct PreparedRun {
  po::variables_map vm;
  Scenario sc;
  RunOptions ro;
};

PreparedRun prepare_run(const std::vector<std::string>& args, const po::options_description& opts) {
  PreparedRun p;
  p.vm = parse_command(args, opts, "scenario");
  if (p.vm.count("help")) return p;
  const po::variables_map& vm = p.vm;
  const LoadOptions lo = load_options(vm);
  std::vector<std::string> files;
  if (vm.count("scenario")) files = vm["scenario"].as<std::vector<std::string>>();
  if (files.size() > 1) throw InputError("run takes one scenario file, not " + std::to_string(files.size()));
  if (!files.empty()) require_file_kind(files[0], {FileKind::scenario}, "a scenario");
  p.sc = files.empty() ? load_scenario_text(kDefaultScenarioText, kDefaultScenarioName, lo) : load_scenario_file(files[0], lo);
  p.ro = run_options(vm);
  check_selections(vm, p.ro, p.sc.trials);
  check_distinct_paths(p.ro, files.empty() ? std::string() : files[0]);
  return p;
}

}  // namespace

int cmd_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const po::options_description opts = describe_run_options();
  const PreparedRun p = prepare_run(args, opts);
  if (p.vm.count("help")) {
    out << opts << "\nExamples:\n  nvmesim run\n  nvmesim run scenarios/aws-c5.12xlarge.json --trials 1000 --out a.json\n"
                   "  nvmesim run scenarios/reload-32q.json --set /host/hz=1000 -q --out r.jsonl\n"
                   "  nvmesim run scenarios/aws-c5.12xlarge.json --trials 5 --trace t.json --vcd w.vcd --dmesg d.txt\n";
    return kExitOk;
  }
  for (const std::string& w : p.sc.warnings) err << "nvmesim: warning: " << terminal_text(w) << "\n";
  StopSignals stop_signals;  // SIGINT/SIGTERM stop between trials: exit 130/143, no partial file
  const RunReport rep = run_scenario(p.sc, p.ro);
  if (stop_requested()) throw Interrupted(stop_signal());  // after the last trial: output complete
  if (!p.ro.quiet) print_table(out, p.sc, rep);
  return kExitOk;
}

size_t cmd_run_batch(const std::vector<std::vector<std::string>>& args, std::ostream& err, int& exit_status,
                     const std::function<void(size_t)>& committed) {
  exit_status = kExitOk;
  try {
    const po::options_description opts = describe_run_options();
    // Loaded before the simulation, as `run` does; a command line that fails here ends the
    // batch before it (its point runs again alone and reports the error as `run` does).
    std::vector<PreparedRun> prepared;
    for (const auto& a : args) {
      try {
        prepared.push_back(prepare_run(a, opts));
      } catch (const std::exception& e) {
        err << "nvmesim: batch: " << terminal_text(e.what()) << "\n";
        break;
      }
      if (prepared.back().vm.count("help") || !prepared.back().ro.quiet) {
        prepared.pop_back();  // a batch writes files only, never the table or the help
        break;
      }
    }
    std::vector<BatchRun> runs;
    for (const PreparedRun& p : prepared) runs.push_back(BatchRun{&p.sc, p.ro});
    StopSignals stop_signals;
    BatchOutcome outcome = run_scenarios(runs, committed);
    if (outcome.failure) {
      try {
        std::rethrow_exception(outcome.failure);
      } catch (const Interrupted&) {
      } catch (const std::exception& e) {
        err << "nvmesim: batch: " << terminal_text(e.what()) << "\n";
      }
    }
    // A stop is a stop whatever else ended the batch (the sweep then keeps the rest pending).
    if (stop_requested()) exit_status = 128 + stop_signal();
    return outcome.reports.size();
  } catch (const std::exception& e) {
    err << "nvmesim: batch: internal error: " << terminal_text(e.what()) << "\n";
    return 0;
  }
}

}  // namespace nvmesim
