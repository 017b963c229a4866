// Issue 16 item 1 (the attack review of 2026-12-01): simulated time past 2^63 ps is an error,
// never a wrap. Both cases failed on main at 313f263 (exit 0, invented "ok" trials). Runs the
// nvmesim binary, one process per run.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include "support.hpp"

namespace fs = std::filesystem;

using nvmesim::test::run_capture;
using nvmesim::test::slurp;
using nvmesim::test::spit;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path d = fs::current_path() / ("time_limit_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Trials whose line in a JSON Lines timeline says "status":"ok".
int ok_trials(const std::string& jsonl) {
  std::istringstream in(jsonl);
  std::string line;
  int n = 0;
  while (std::getline(in, line))
    if (line.find("\"record\":\"trial\"") != std::string::npos && line.find("\"status\":\"ok\"") != std::string::npos)
      ++n;
  return n;
}

}  // namespace

// A device that needs 1e6 s to become ready can never be ready within Linux's CAP.TO 255 wait
// (255 x 500 ms = 127.5 s): no trial may be ok. Driver init waits uniform 0..1e6 s (mean 5e5 s)
// per trial, so about 18 trials take simulated time past 2^63 ps = 9223372 s; on main the ready
// time then wrapped negative and 4 of 22 trials reported "ok" with exit 0.
TEST_CASE("item 1: a device ready time past 2^63 ps is never an invented ok trial", "[issue16][time]") {
  const fs::path d = scratch("wrap");
  spit((d / "s.json").string(),
       R"({"schema":"nvmesim.scenario/1","trials":22,"host":{"kernel":"5.6",)"
       R"("init_to_probe":{"dist":"uniform","min":"0s","max":"1000000s"}},)"
       R"("controllers":[{"cap":{"to":255},"enable_latency":"1000000s"}]})");
  for (int n : {19, 22}) {
    const std::string out = (d / ("t" + std::to_string(n) + ".jsonl")).string();
    const auto r = run_capture("run " + (d / "s.json").string() + " -q -n " + std::to_string(n) + " -o " + out);
    INFO(r.err);
    // Either the run stops at the limit (exit 2, nothing written) or every trial failed.
    if (r.status == 2) {
      CHECK(r.err.find("past the limit of one run (2^63 ps") != std::string::npos);
      CHECK(r.err.find("no result was reported for it") != std::string::npos);
      CHECK_FALSE(fs::exists(out));
    } else {
      REQUIRE(r.status == 0);
      CHECK(ok_trials(slurp(out)) == 0);
    }
  }
}

// One sleep per trial (msleep(100) in the enable wait) plus a scheduler wakeup latency of
// 900000 s: trial k starts near k x 900000.1 s. Trial 10 starts at about 9000001 s, and its
// sleep would end at about 9900001 s, past 2^63 ps = 9223372.04 s: the run stops there with exit
// 2 naming trial 10. Ten trials end at about 9000001 s, inside the limit: exit 0, all 10 failed
// (the 900000 s sleep overshoots CAP.TO 255's 127.5 s deadline). On main 11 trials exited 0.
TEST_CASE("item 1: a wait past 2^63 ps stops the run with exit 2 naming the trial", "[issue16][time]") {
  const fs::path d = scratch("wait");
  const std::string s = (d / "w.json").string();
  spit(s, R"({"schema":"nvmesim.scenario/1","trials":11,"host":{"kernel":"5.6","wakeup_latency":"900000s"},)"
          R"("controllers":[{"cap":{"to":255},"enable_latency":"10s"}]})");
  const std::string out = (d / "w.jsonl").string();
  auto r = run_capture("run " + s + " -q -o " + out);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(s + ": trial 10 of variant \"base\" stopped: the host needed an event after 2^63 ps") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(out));
  r = run_capture("run " + s + " -q -n 10 -o " + out);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(ok_trials(slurp(out)) == 0);
}

// Finding F2 of stop 29: QEMU's userspace driver waits for an admin completion without a
// timeout. A controller off the bus (faults.all_ones, 1.5-11.5 ms) when the Identify it was
// given completes cannot post the CQE, so the wait runs to the trial's limit of 1e6 s: the error
// said "use shorter latencies", which no latency here explains. It now names the dropped
// command and the driver's missing timeout. The same device without the window completes the
// probe (exit 0): the window is the cause.
TEST_CASE("F2: a completion waited without a timeout that never comes is named as such", "[issue16][time]") {
  const fs::path d = scratch("no_timeout");
  const std::string base = R"({"schema":"nvmesim.scenario/1","trials":1,"host":{"driver":"qemu-userspace"},)"
                           R"("controllers":[{"enable_latency":"1ms","admin":{"identify":"300us"})";
  spit((d / "off.json").string(), base + R"(,"faults":{"all_ones":{"from":"1.5ms","for":"10ms"}}}]})");
  spit((d / "on.json").string(), base + "}]}");
  const auto off = run_capture("run " + (d / "off.json").string() + " -q -o " + (d / "off.jsonl").string());
  INFO(off.err);
  CHECK(off.status == 2);
  // QEMU's sequence (host/qemu_userspace): Identify Controller (CID 0) completes before the
  // window; Identify Namespace (CID 1, 300 us from about 1.31 ms) ends inside it and is lost.
  CHECK(off.err.find("controller nvme0: admin command 1 (identify) did not complete within the trial's limit of "
                     "1000000 s of simulated time, and the qemu-userspace driver waits for a completion without a "
                     "timeout") != std::string::npos);
  CHECK(off.err.find("shorter latencies") == std::string::npos);
  CHECK_FALSE(fs::exists(d / "off.jsonl"));
  const auto on = run_capture("run " + (d / "on.json").string() + " -q -o " + (d / "on.jsonl").string());
  INFO(on.err);
  CHECK(on.status == 0);
  CHECK(ok_trials(slurp((d / "on.jsonl").string())) == 1);
}
