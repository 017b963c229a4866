#pragma once
// The bench of the host-driver tests (tests/test_uboot.cpp, test_freebsd.cpp, test_edk2.cpp):
// a scenario in a few lines, elaborated as the engine does (nvme_system: host, link, controller
// per function) and run trial by trial in this process, with every trial's phases, lines and
// status kept in picoseconds and the simulation time (sc_time_stamp()) at each trial's end.
// Trial 0 starts at simulation time 0, on an edge of every controller clock, so its times can be
// worked out by hand to the picosecond. One elaboration per process: one run per TEST_CASE.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "core/recorder.hpp"
#include "engine/system.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim::test {

/// One finished trial as the bench saw it.
struct BenchTrial {
  ProbeStatus status = ProbeStatus::ok;
  std::vector<Phase> phases;        ///< start_ps / end_ps from the trial's start
  std::vector<std::string> lines;   ///< the message events' text, in order
  std::vector<Event> events;        ///< every event (detailed)
  int64_t start_ps = 0;             ///< sc_time_stamp() when the trial began (0 for trial 0)
  int64_t end_ps = 0;               ///< sc_time_stamp() when the trial ended

  /// The phase `name` of controller `ctrl` (FAILs when there is none).
  const Phase& phase(const std::string& name, int ctrl = 0) const {
    for (const Phase& p : phases)
      if (p.id.name == name && p.ctrl == ctrl) return p;
    FAIL("no phase " << name << " of controller " << ctrl);
    return phases.front();
  }
  bool has_phase(const std::string& name, int ctrl = 0) const {
    for (const Phase& p : phases)
      if (p.id.name == name && p.ctrl == ctrl) return true;
    return false;
  }
  /// True when some line contains `text`.
  bool has_line(const std::string& text) const {
    for (const auto& l : lines)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }
  /// The reads of `reg` ("CSTS", "CAP") the host made, in order.
  size_t reads_of(const std::string& reg) const {
    size_t n = 0;
    for (const Event& e : events)
      if (e.kind == EventKind::mmio_read && e.reg && reg == e.reg) ++n;
    return n;
  }
};

/// A scenario for `driver` with `host_keys` (JSON members after "driver", may be empty) and the
/// controllers `controllers` (JSON objects, comma-separated), `trials` trials.
inline std::string bench_scenario(const std::string& driver, const std::string& controllers, int trials = 1,
                                  const std::string& host_keys = "") {
  return R"({"schema": "nvmesim.scenario/1", "trials": )" + std::to_string(trials) + R"(, "host": {"driver": ")" +
         driver + "\"" + (host_keys.empty() ? "" : ", " + host_keys) + R"(}, "controllers": [)" + controllers + "]}";
}

/// Runs every trial of `text` (the scenario's first variant) and returns them in order.
inline std::vector<BenchTrial> run_bench(const std::string& text) {
  static bool started = false;
  REQUIRE(!started);  // one elaboration per process
  started = true;
  const Scenario sc = load_scenario_text(text, "bench");
  init_systemc();
  size_t n = 0;
  for (const auto& c : sc.variants[0].controllers) (void)c, ++n;
  nvme_system system("system", n);
  std::vector<BenchTrial> out;
  uint64_t next = 0;
  int64_t started_ps = 0;
  system.next_trial = [&](TrialRequest& req) {
    if (next == sc.trials) return false;
    req.variant = &sc.variants[0];
    req.variant_index = 0;
    req.seed = sc.seed;
    req.trial = next++;
    req.detailed = true;
    started_ps = static_cast<int64_t>(sc_core::sc_time_stamp().value());
    return true;
  };
  system.trial_done = [&](const TrialRequest&, const TrialResult& res) {
    BenchTrial t;
    t.status = res.status;
    t.phases = res.recorder->phases();
    t.events = res.recorder->events();
    for (const Event& e : t.events)
      if (e.kind == EventKind::message) t.lines.push_back(e.detail);
    t.start_ps = started_ps;
    t.end_ps = static_cast<int64_t>(sc_core::sc_time_stamp().value());
    out.push_back(std::move(t));
  };
  sc_core::sc_start();
  REQUIRE(system.error().empty());
  REQUIRE(out.size() == sc.trials);
  return out;
}

}  // namespace nvmesim::test
