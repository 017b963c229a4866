#include <cstdlib>
#include <iostream>
#include <ostream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/file_kind.hpp"
#include "cli/options.hpp"
#include "core/errors.hpp"
#include "core/trial_selection.hpp"
#include "sweep/run.hpp"
#include "sweep/sweep.hpp"

namespace po = boost::program_options;
using ojson = nlohmann::ordered_json;

namespace nvmesim {

namespace {

// --trace, --vcd, --dmesg and their trial selections (the options of `run`, issue 12): checked here
// as `run` checks them, for every point, so that no point fails on them. Throws InputError.
SweepOutputs sweep_outputs(const po::variables_map& vm, const Sweep& sw) {
  SweepOutputs o;
  o.trace = vm.count("trace") > 0;
  o.vcd = vm.count("vcd") > 0;
  o.dmesg = vm.count("dmesg") > 0;
  auto check = [&](const char* opt, const char* out, bool has_out, std::string& text) {
    text = vm[opt].as<std::string>();
    const TrialSelection sel = TrialSelection::parse(text, std::string("--") + opt);
    if (vm[opt].defaulted()) return;
    if (!has_out)
      throw InputError(std::string("--") + opt + " " + text + ": selects trials for --" + out +
                       ", which is not given; add --" + out + " or leave --" + opt + " out");
    for (const auto& p : sw.points) {
      const ojson& t = p.parameters.contains("/trials") ? p.parameters["/trials"] : ojson(sw.trials);
      const uint64_t trials = t.is_number_unsigned() ? t.get<uint64_t>() : sw.trials;
      if (!sel.any_below(trials))
        throw InputError(std::string("--") + opt + " " + text + ": selects no trial of point " + std::to_string(p.index) +
                         " (" + std::to_string(trials) + " per variant); nothing would be written to its --" + out);
    }
  };
  check("trace-trials", "trace", o.trace, o.trace_trials);
  check("dmesg-trials", "dmesg", o.dmesg, o.dmesg_trials);
  return o;
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "Usage: nvmesim sweep SWEEP.json --out DIR [options]\n\n"
      "Runs every point of a sweep (nvmesim.sweep/1: a base scenario and axes over JSON pointers) as\n"
      "`nvmesim run` on the point's scenario, in worker processes that each run a batch of points of\n"
      "one controller count (one per point with --vcd; docs/sweeps.md, \"Batches\"), and writes\n"
      "DIR/points/<id>.jsonl per point (with --trace, --vcd, --dmesg also <id>.trace.json, <id>.vcd,\n"
      "<id>.dmesg) and DIR/manifest.json, each atomically. A point that fails or\n"
      "crashes is recorded with its error and the others go on. SIGINT/SIGTERM stop cleanly: complete\n"
      "points stay, partial outputs are removed; --resume continues. Combine folders with 'nvmesim merge'.\n\n"
      "Exit status: 0 every point done, 1 some points failed, 2 bad usage or input (also: DIR is held\n"
      "by another running sweep), 3 I/O failure (the sweep stops at the first; --resume continues),\n"
      "130/143 stopped by SIGINT/SIGTERM.\n\nOptions");
  opts.add_options()
      ("help,h", "this help")
      ("out,o", po::value<std::string>(), "the sweep folder DIR (created if missing)")
      ("jobs,j", po::value<int64_t>(), "worker processes, 1 to 1024 (default: the usable CPUs)")
      ("shard", po::value<std::string>(), "K/N: run only the points whose index modulo N is K (0 <= K < N)")
      ("resume", "keep the complete points already in DIR and run the rest (after a kill, a stop or failures)")
      ("trace", "also write DIR/points/<id>.trace.json per point: the Chrome trace of 'run --trace'")
      ("trace-trials", po::value<std::string>()->default_value("0")->value_name("SEL"),
       "trials of each variant in --trace: all, none, or a list such as 0,3,10-19")
      ("vcd", "also write DIR/points/<id>.vcd per point: the VCD waveform of 'run --vcd'")
      ("dmesg", "also write DIR/points/<id>.dmesg per point: the kernel log of 'run --dmesg'")
      ("dmesg-trials", po::value<std::string>()->default_value("all")->value_name("SEL"),
       "trials of each variant in --dmesg: all, none, or a list such as 0-9")
      ("list", "print the points of the shard (index, id, parameters) as JSON Lines on stdout; run nothing")
      ("quiet,q", "no progress and no summary line on stderr");
  const auto vm = parse_command(args, opts, "sweep");
  if (vm.count("help")) {
    out << opts
        << "\nExamples:\n  nvmesim sweep scenarios/sweeps/enable-latency-vs-kernel-hz.json --out sw\n"
           "  nvmesim sweep S.json --out sw-1 --shard 1/4 --jobs 8\n"
           "  nvmesim sweep S.json --out sw --resume\n  nvmesim merge sw-0 sw-1 sw-2 sw-3 --out summary.json\n";
    return kExitOk;
  }
  std::vector<std::string> files;
  if (vm.count("sweep")) files = vm["sweep"].as<std::vector<std::string>>();
  if (files.size() != 1) throw InputError("sweep takes one SWEEP.json file, not " + std::to_string(files.size()));
  SweepRunOptions ro;
  if (vm.count("shard")) ro.shard = parse_shard(vm["shard"].as<std::string>());
  if (vm.count("jobs")) {
    const int64_t j = vm["jobs"].as<int64_t>();
    if (j < 1 || j > 1024) throw InputError("--jobs: must be from 1 to 1024");
    ro.jobs = static_cast<unsigned>(j);
  }
  require_file_kind(files[0], {FileKind::sweep}, "a sweep file");
  const Sweep sw = load_sweep_file(files[0]);
  if (vm.count("list")) {
    for (const auto& p : sw.points) {
      if (!in_shard(p.index, ro.shard)) continue;
      nlohmann::ordered_json j;
      j["index"] = p.index;
      j["id"] = p.id;
      j["parameters"] = p.parameters;
      out << j.dump() << "\n";
    }
    return kExitOk;
  }
  if (!vm.count("out")) throw InputError("sweep needs --out DIR (the folder for points/ and manifest.json)");
  ro.out_dir = vm["out"].as<std::string>();
  if (char* abs = ::realpath(files[0].c_str(), nullptr)) {  // it was just read, so it exists
    ro.sweep_file = abs;
    std::free(abs);
  }
  ro.outputs = sweep_outputs(vm, sw);
  ro.resume = vm.count("resume") > 0;
  ro.quiet = vm.count("quiet") > 0;
  // Each point's worker is a fork of this process running `nvmesim run` (no exec: the start-up
  // of a new image, ~5 ms, was half a small point's CPU; issue 15 item 5).
  ro.worker_main = [](const std::vector<std::string>& argv) {
    std::vector<const char*> a;
    for (const auto& s : argv) a.push_back(s.c_str());
    a.push_back(nullptr);
    return cli_process_main(static_cast<int>(argv.size()), a.data());
  };
  // Several points of the same controller count in one fork and one elaboration (issue 15 item 5).
  ro.batch_main = [](const std::vector<std::vector<std::string>>& lines, int& exit_status,
                     const std::function<void(size_t)>& committed) {
    return cmd_run_batch(lines, std::cerr, exit_status, committed);
  };
  return run_sweep(sw, ro, err);
}

int cmd_merge(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "Usage: nvmesim merge DIR... --out FILE.json\n\n"
      "Combines sweep folders (the shards of one sweep in any order, or one unsharded folder) into\n"
      "FILE.json (nvmesim.sweep-summary/1) and FILE.csv beside it: per point and variant, the\n"
      "parameters and the probe / critical-path statistics, in point order, and for a point of two\n"
      "or more variants the paired difference to its first (delta_ms_*; empty for one variant). The bytes\n"
      "do not depend on how the points were spread over shards, workers or resumed runs.\n"
      "--out names either file: FILE.json or FILE.csv writes both (any other name is refused).\n"
      "Exit status: 0, or 1 when points are failed or missing (the outputs still list them).\n\nOptions");
  opts.add_options()("help,h", "this help")("out,o", po::value<std::string>(), "FILE.json or FILE.csv: the summary and its CSV (both are written)");
  const auto vm = parse_command(args, opts, "dir");
  if (vm.count("help")) {
    out << opts << "\nExample:\n  nvmesim merge sw-0 sw-1 --out summary.json   # also writes summary.csv\n";
    return kExitOk;
  }
  if (!vm.count("dir")) throw InputError("merge needs at least one sweep folder DIR");
  if (!vm.count("out")) throw InputError("merge needs --out FILE.json");
  const auto dirs = vm["dir"].as<std::vector<std::string>>();
  for (const auto& d : dirs) {
    const FileKind k = sniff_file_kind(d);
    if (k == FileKind::missing)
      throw InputError::in_source(d, "no such folder; merge takes the folders that 'nvmesim sweep SWEEP.json --out DIR' wrote");
    if (k == FileKind::folder)
      throw InputError::in_source(d, "not a sweep folder (it has neither manifest.json nor points/); merge takes the "
                                     "folders that 'nvmesim sweep SWEEP.json --out DIR' wrote");
    require_file_kind(d, {FileKind::sweep_folder, FileKind::other}, "a sweep folder");
  }
  return merge_sweeps(dirs, vm["out"].as<std::string>(), err);
}

}  // namespace nvmesim
