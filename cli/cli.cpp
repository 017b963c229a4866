#include "cli/cli.hpp"

#include <boost/program_options.hpp>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "cli/cmd_dmesg.hpp"
#include "cli/cmd_profiles.hpp"
#include "cli/cmd_sweep.hpp"
#include "cli/default_scenario.hpp"
#include "outputs/timeline.hpp"
#include "engine/runner.hpp"
#include "scenario/scenario.hpp"
#include "core/signals.hpp"
#include "sweep/sweep.hpp"
#include "core/version.hpp"

namespace po = boost::program_options;

namespace nvmesim {

namespace {

struct Command {
  const char* name;
  const char* args;
  const char* summary;
  std::function<int(const std::vector<std::string>&, std::ostream&, std::ostream&)> run;
};

const std::vector<Command>& commands();

void print_usage(std::ostream& os) {
  os << "Usage: nvmesim <command> [options]\n\n"
        "Simulates how long the Linux NVMe driver takes to bring PCIe NVMe controllers up, with\n"
        "SystemC models of the controller and link and a replay of the driver's probe, release by\n"
        "release.\n\nCommands:\n";
  for (const auto& c : commands()) {
    std::string left = std::string(c.name) + " " + c.args;
    os << "  " << left << std::string(left.size() < 22 ? 22 - left.size() : 1, ' ') << c.summary << "\n";
  }
  os << "\nOptions:\n  -h, --help            this help\n  --version             print the version\n\n"
        "Run 'nvmesim <command> --help' for a command's options.\n"
        "Exit status: 0 done (a simulated probe failure is a result), 2 bad usage or input,\n"
        "3 I/O failure, 4 internal error, 130/143 stopped by SIGINT/SIGTERM (partial outputs removed).\n";
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& visible,
                        const po::options_description& all, const po::positional_options_description& pos) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  (void)visible;
  return vm;
}

int cmd_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  po::options_description opts(
      "Usage: nvmesim run [SCENARIO] [options]\n\n"
      "Runs every variant of SCENARIO (default: the built-in AWS c5.12xlarge case, kernels 5.6 and\n"
      "5.7) for its trials and prints a table of probe times and paired deltas. With --out, writes\n"
      "the timeline (nvmesim.timeline/1, or one JSON object per trial with --format jsonl).\n\nOptions");
  opts.add_options()
      ("help,h", "this help")
      ("trials,n", po::value<int64_t>()->value_name("N"), "trials per variant (overrides the file; 1 to 100000000)")
      ("seed,s", po::value<int64_t>()->value_name("S"), "scenario seed (overrides the file; >= 0)")
      ("set", po::value<std::vector<std::string>>()->composing()->value_name("PTR=VALUE"),
       "set the JSON pointer PTR of the scenario to VALUE (JSON, or a string when it is not "
       "JSON), e.g. --set /host/hz=1000; repeatable")
      ("out,o", po::value<std::string>()->value_name("FILE"), "write the timeline to this file (written atomically)")
      ("format,f", po::value<std::string>()->value_name("FMT"), "json (default; jsonl when --out ends in .jsonl) or jsonl")
      ("detail-trials", po::value<int64_t>()->default_value(10)->value_name("N"),
       "trials per variant whose full event list and dmesg go into a json timeline; the others keep "
       "status, times and phases (summaries always cover every trial)")
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
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::vector<std::string>>(), "scenario file");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("scenario", -1);
  const auto vm = parse(args, opts, all, pos);
  if (vm.count("help")) {
    out << opts << "\nExamples:\n  nvmesim run\n  nvmesim run scenarios/aws-c5.12xlarge.json --trials 1000 --out a.json\n"
                   "  nvmesim run scenarios/reload-32q.json --set /host/hz=1000 -q --out r.jsonl\n"
                   "  nvmesim run scenarios/aws-c5.12xlarge.json --trials 5 --trace t.json --vcd w.vcd --dmesg d.txt\n";
    return kExitOk;
  }
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
  std::vector<std::string> files;
  if (vm.count("scenario")) files = vm["scenario"].as<std::vector<std::string>>();
  if (files.size() > 1) throw InputError("run takes one scenario file, not " + std::to_string(files.size()));
  const Scenario sc = files.empty() ? load_scenario_text(kDefaultScenarioText, kDefaultScenarioName, lo)
                                    : load_scenario_file(files[0], lo);
  RunOptions ro;
  if (vm.count("out")) ro.out_path = vm["out"].as<std::string>();
  const std::string& o = ro.out_path;
  if (o.size() > 6 && o.compare(o.size() - 6, 6, ".jsonl") == 0) ro.format = OutputFormat::jsonl;
  if (vm.count("format")) {
    const std::string f = vm["format"].as<std::string>();
    if (f == "json") ro.format = OutputFormat::json;
    else if (f == "jsonl") ro.format = OutputFormat::jsonl;
    else throw InputError("--format: \"" + f + "\" is not allowed; allowed: json, jsonl");
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
  StopSignals stop_signals;  // SIGINT/SIGTERM stop between trials: exit 130/143, no partial file
  const RunReport rep = run_scenario(sc, ro);
  if (stop_requested()) throw Interrupted(stop_signal());  // after the last trial: output complete
  if (!ro.quiet) print_table(out, sc, rep);
  return kExitOk;
}

int cmd_validate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "Usage: nvmesim validate FILE...\n\nChecks scenario and sweep files without running them: syntax, keys, "
      "types, values, and every variant (of a sweep: every point).\nPrints one line per file; exits 2 if any file is invalid.\n\nOptions");
  opts.add_options()("help,h", "this help");
  po::options_description hidden;
  hidden.add_options()("file", po::value<std::vector<std::string>>(), "file");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("file", -1);
  const auto vm = parse(args, opts, all, pos);
  if (vm.count("help")) {
    out << opts;
    return kExitOk;
  }
  if (!vm.count("file")) throw InputError("validate needs at least one FILE");
  int rc = kExitOk;
  for (const auto& f : vm["file"].as<std::vector<std::string>>()) {
    try {
      // A sweep file (schema nvmesim.sweep/1) is validated as a sweep: every point's scenario.
      const std::string text = read_text_file(f);
      bool is_sweep = false;
      try {
        const auto doc = parse_json_text(text, f);
        is_sweep = doc.is_object() && doc.contains("schema") && doc["schema"] == "nvmesim.sweep/1";
      } catch (const InputError&) {
      }
      if (is_sweep) {
        const Sweep sw = load_sweep_file(f);
        out << f << ": ok (sweep, " << sw.points.size() << " point" << (sw.points.size() == 1 ? "" : "s") << ", "
            << sw.trials << " trial" << (sw.trials == 1 ? "" : "s") << " per point)\n";
        continue;
      }
      const Scenario sc = load_scenario_text(text, f);
      size_t ctrls = sc.variants.front().controllers.size();
      out << f << ": ok (" << sc.variants.size() << " variant" << (sc.variants.size() == 1 ? "" : "s") << ", "
          << ctrls << " controller" << (ctrls == 1 ? "" : "s") << ", " << sc.trials << " trial"
          << (sc.trials == 1 ? "" : "s") << ")\n";
    } catch (const InputError& e) {
      err << "nvmesim: error: " << e.what() << "\n";
      rc = kExitUsage;
    }
  }
  return rc;
}

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"run", "[SCENARIO]", "run a scenario's variants and trials; table on stdout, timeline with --out", cmd_run},
      {"validate", "FILE...", "check scenario files without running them", cmd_validate},
      {"dmesg", "LOG...", "intervals (e.g. driver init to queues line) from real kernel logs, as JSON", cmd_dmesg},
      {"profiles", "[--json]", "the Linux kernel profiles 4.8 to 6.19 and their fields", cmd_profiles},
      {"sweep", "SWEEP --out DIR", "run a sweep's points in worker processes (--jobs, --shard, --resume)", cmd_sweep},
      {"merge", "DIR... --out F", "combine sweep folders into one summary (JSON and CSV)", cmd_merge},
  };
  return table;
}

}  // namespace

int cli_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty()) {
      print_usage(err);
      return kExitUsage;
    }
    const std::string cmd = args[0];
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      print_usage(out);
      return kExitOk;
    }
    if (cmd == "--version") {
      out << "nvmesim " << kVersion << "\n";
      return kExitOk;
    }
    for (const auto& c : commands()) {
      if (cmd == c.name) return c.run(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    }
    std::vector<std::string> names;
    for (const auto& c : commands()) names.push_back(c.name);
    std::string msg = "unknown command \"" + cmd + "\"";
    const std::string near = did_you_mean(cmd, names);
    if (!near.empty()) msg += "; did you mean \"" + near + "\"?";
    err << "nvmesim: error: " << msg << "\nRun 'nvmesim --help' for the list of commands.\n";
    return kExitUsage;
  } catch (const InputError& e) {
    err << "nvmesim: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const po::error& e) {
    err << "nvmesim: error: " << e.what() << "\nRun 'nvmesim " << args[0] << " --help' for the options.\n";
    return kExitUsage;
  } catch (const IoError& e) {
    err << "nvmesim: error: " << e.what() << "\n";
    return kExitIo;
  } catch (const Interrupted& e) {
    err << "nvmesim: " << e.what() << "\n";
    return e.exit_status();
  } catch (const std::exception& e) {
    err << "nvmesim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace nvmesim
