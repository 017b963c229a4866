#pragma once
// Helpers the test files share: reading a file, running the nvmesim binary, and running a
// scenario in this process with its timeline read back. Header-only; the test executable links
// every library.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "engine/runner.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim::test {

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
