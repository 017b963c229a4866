#pragma once
// Helpers the test files share: reading a file, running the nvmesim binary (through the shell, or
// as a child process to signal and measure: spawn_nvmesim, in support.cpp), and running a scenario
// in this process with its timeline read back. The test executable links every library.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <algorithm>
#include <dirent.h>
#include <unistd.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "core/json_text.hpp"
#include "engine/runner.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim::test {

/// The names in folder `dir` (without "." and ".."), sorted; empty when it cannot be read.
inline std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") out.push_back(e->d_name);
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Removes `path` and everything under it (`rm -rf`).
inline void remove_tree(const std::string& path) { (void)std::system(("rm -rf '" + path + "'").c_str()); }

/// This process's working folder.
inline std::string cwd() {
  char b[4096];
  return getcwd(b, sizeof b) ? std::string(b) : std::string(".");
}

/// Runs the command line `argv` ({"nvmesim", "run", ...}) in this process, as the nvmesim binary's
/// main does, and returns its exit status: a sweep's worker_main in the tests.
inline int run_cli_in_process(const std::vector<std::string>& argv) {
  std::vector<const char*> a;
  for (const auto& x : argv) a.push_back(x.c_str());
  a.push_back(nullptr);
  return cli_process_main(static_cast<int>(argv.size()), a.data());
}

/// The whole file at `path` ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs `nvmesim ARGS` through the shell (NVMESIM_BINARY; stdout and stderr discarded) and
/// returns its exit status, or -1 when it did not exit (killed by a signal).
inline int run_nvmesim(const std::string& args) {
  const std::string cmd = std::string(NVMESIM_BINARY) + " " + args + " >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// What a run of the nvmesim binary gave: its exit status (128 + signal when killed) and stderr.
struct CliResult {
  int status = -1;
  std::string err;
};

/// Runs `PREFIX nvmesim ARGS` through the shell (stdout discarded, stderr captured). PREFIX is
/// shell text run before it ("cd DIR && ", "ulimit -s 2048; ", "timeout 10 ").
inline CliResult run_capture(const std::string& args, const std::string& prefix = "") {
  const std::string cmd = prefix + std::string(NVMESIM_BINARY) + " " + args + " 2>&1 >/dev/null";
  CliResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.err.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

/// How spawn_nvmesim runs the binary: to its end, or until `ready`, then signalled.
struct SpawnOptions {
  /// Polled until it returns true: the run has reached the moment to signal (a temporary output
  /// exists, a folder was made). Empty: no signal, the run goes to its end.
  std::function<bool()> ready;
  /// Between two polls of `ready`; 0 spins, to signal within microseconds of the moment.
  std::chrono::milliseconds poll{10};
  /// How long `ready` may take; past it (or when the run ends first) nothing is signalled.
  std::chrono::milliseconds ready_within{60'000};
  /// Waited once `ready` holds, before the signals.
  std::chrono::milliseconds signal_after{0};
  /// Sent in this order, back to back, once `ready` holds (SIGINT then SIGTERM: a second signal).
  std::vector<int> signals;
  /// From the signals (or from the start without `ready`) the run must end within this; past it
  /// it is killed (SIGKILL) and SpawnResult::ended is false.
  std::chrono::milliseconds end_within{60'000};
};

/// What spawn_nvmesim saw of the run.
struct SpawnResult {
  bool ready = false;     ///< `ready` held before the run ended (true when there is no `ready`)
  bool ended = false;     ///< the run ended within end_within, by itself or by the signals
  int status = -1;        ///< exit status, 128 + signal when a signal ended it; -1 unless `ended`
  int term_signal = 0;    ///< the signal that ended it (0: it called exit, even with 128 + N)
  long peak_rss_kib = 0;  ///< the child's peak resident set in KiB (wait4's ru_maxrss)
  std::string err;        ///< its stderr (stdout goes to /dev/null)
};

/// Runs NVMESIM_BINARY with `args` (no shell) as a child process, signals it as `o` says, reaps it
/// with wait4 and returns what it did. A run that does not end is killed, never left behind.
/// REQUIREs that fork succeeds.
SpawnResult spawn_nvmesim(const std::vector<std::string>& args, const SpawnOptions& o = {});

/// Writes `text` to `path` (replacing it).
inline void spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

/// Runs `sc` in this process (which then holds its one SystemC elaboration) with every trial
/// detailed, and returns the timeline written to `file` (removed afterwards).
inline nlohmann::json run_scenario_to_json(const Scenario& sc, const char* file) {
  RunOptions o;
  o.out_path = file;
  o.detail_trials = 1000;
  o.quiet = true;
  o.progress = false;
  run_scenario(sc, o);
  std::ifstream in(file);
  nlohmann::json j = nlohmann::json::parse(in);
  std::remove(file);
  return j;
}

/// The same for a scenario given as text (named "test" in errors).
inline nlohmann::json run_to_json(const std::string& text, const char* file) {
  return run_scenario_to_json(load_scenario_text(text, "test"), file);
}

/// The same for the shipped scenario scenarios/NAME with `trials` trials and --set patches.
inline nlohmann::json run_file(const std::string& name, const char* file, int trials,
                               const std::vector<std::string>& sets = {}) {
  const std::string text = read_text_file(std::string(NVMESIM_SOURCE_DIR) + "/scenarios/" + name);
  LoadOptions lo;
  lo.trials = trials;
  for (const auto& s : sets) lo.sets.push_back(parse_set(s));
  return run_scenario_to_json(load_scenario_text(text, name, lo), file);
}

}  // namespace nvmesim::test
