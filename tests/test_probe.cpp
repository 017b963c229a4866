// The readiness wait's loop order and deadline (linux-readiness.md sections 1-3), end to end
// through the SystemC models. Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/runner.hpp"
#include "scenario/scenario.hpp"
#include "support.hpp"

using namespace nvmesim;
using json = nlohmann::json;

using test::run_to_json;

namespace {
// One controller, HZ=250, no wakeup latency, handed over disabled; `controller` and `variants`
// are spliced in.
std::string scenario(const std::string& controller, int trials = 20) {
  return R"({"schema": "nvmesim.scenario/1", "trials": )" + std::to_string(trials) + R"(,
    "host": {"kernel": "5.6", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"handoff": "disabled", "cap": {"to": 1}, )" + controller + R"(}],
    "variants": [{"name": "5.6", "patch": {"host": {"kernel": "5.6"}}},
                 {"name": "5.7", "patch": {"host": {"kernel": "5.7"}}}]})";
}

const json& phase(const json& trial, const std::string& name) {
  for (const auto& p : trial["phases"])
    if (p["name"] == name) return p;
  FAIL("no phase " << name);
  static json none;
  return none;
}
}  // namespace

TEST_CASE("ready at the first read: one read and no sleep - under either policy", "[probe][systemc]") {
  const json j = run_to_json(scenario(R"("enable_latency": "0ns")"), "probe_first_read.json");
  REQUIRE(j["variants"].size() == 2);
  for (const auto& v : j["variants"]) {
    REQUIRE(v["trials"].size() == 20);
    for (const auto& t : v["trials"]) {
      CHECK(t["status"] == "ok");
      CHECK(phase(t, "disable")["polls"] == 1);
      CHECK(phase(t, "disable")["sleeps"] == 0);
      CHECK(phase(t, "enable")["polls"] == 1);
      CHECK(phase(t, "enable")["sleeps"] == 0);
    }
  }
}

TEST_CASE("never ready - CAP.TO=1 - HZ=250: fails after (TO+1)*HZ/2 jiffies plus at most one sleep",
          "[probe][systemc]") {
  const json j = run_to_json(scenario(R"("faults": {"never_ready": true})"), "probe_never_ready.json");
  REQUIRE(j["variants"].size() == 2);
  for (const auto& v : j["variants"]) {
    REQUIRE(v["trials"].size() == 20);
    const bool v56 = v["name"] == "5.6";
    for (const auto& t : v["trials"]) {
      CHECK(t["status"] == "enodev");
      const json& en = phase(t, "enable");
      const double ms = (en["end_ns"].get<double>() - en["start_ns"].get<double>()) / 1e6;
      // Deadline (1 + 1) * 250 / 2 = 250 jiffies = 1000 ms; it fails at the first check with
      // jiffies >= deadline + 1, i.e. after more than 1000 ms, and no later than one tick (4 ms)
      // plus one sleep after it: msleep(100) at HZ=250 is at most 108 ms, usleep_range 2 ms.
      CHECK(ms > 1000.0);
      CHECK(ms <= 1000.0 + 4.0 + (v56 ? 108.0 : 2.0) + 0.01);
      // msleep(100) sleeps 104-108 ms, so about ten sleeps fit; usleep_range(1000, 2000) ~500.
      if (v56) CHECK(en["sleeps"].get<int>() == 10);
      // The kernel's message; the CSTS suffix exists from 5.7 on.
      const std::string msg = v56 ? "nvme nvme0: Device not ready; aborting initialisation"
                                  : "nvme nvme0: Device not ready; aborting initialisation, CSTS=0x0";
      bool found = false;
      for (const auto& line : t["dmesg"]) found |= line.get<std::string>().find(msg) != std::string::npos &&
                                                   line.get<std::string>().size() == 15 + msg.size();
      CHECK(found);
    }
  }
}

TEST_CASE("ready during the sleep that crosses the deadline still fails", "[probe][systemc]") {
  // msleep(100) at HZ=250 asks for 26 jiffies and wakes on the 27th tick, so the reads after the
  // enabling write fall on jiffies j0, j0+27, ..., j0+243; the next sleep ends at j0+270, past the
  // deadline j0+250. RDY at 1000 ms (= j0 + 250 ticks plus the phase) comes inside that sleep: the
  // deadline check after it fails before CSTS is read again.
  const json late = run_to_json(scenario(R"("enable_latency": "1000ms")"), "probe_crossing.json");
  REQUIRE(late["variants"][0]["trials"].size() == 20);
  for (const auto& t : late["variants"][0]["trials"]) {
    CHECK(t["status"] == "enodev");
    bool ready_seen = false, failed_after_ready = false;
    for (const auto& e : t["events"]) {
      if (e["kind"] == "state" && e["detail"] == "ready") ready_seen = true;
      if (e["kind"] == "message" && e["detail"].get<std::string>().find("Device not ready") != std::string::npos)
        failed_after_ready = ready_seen;
    }
    CHECK(failed_after_ready);
  }
}

TEST_CASE("ready just before the last read before the deadline succeeds", "[probe][systemc]") {
  // Control for the case above: ready at 950 ms is seen by the read at j0+243 (972 ms).
  const json early = run_to_json(scenario(R"("enable_latency": "950ms")"), "probe_crossing_ok.json");
  REQUIRE(early["variants"][0]["trials"].size() == 20);
  for (const auto& t : early["variants"][0]["trials"]) CHECK(t["status"] == "ok");
}

TEST_CASE("an admin command the device never completes fails at the 60 s admin timeout", "[probe][systemc]") {
  // The controller reads all ones (and drops writes) from 1.0075 ms for 1 ms: the probe's CSTS,
  // CAP, VS reads, the enable's CAP re-read (5.4+) and both waits are done by then (init_to_probe
  // 1 ms + ~7 MMIO round trips of ~0.95 us, the last CSTS read answered by the device at ~1.0071
  // ms), so the Identify doorbell (issued at ~1.0076 ms) is lost. The kernel's admin timeout (60 s) then reports the
  // command, disables the controller and the probe fails with -EINTR (-4).
  const json j = run_to_json(R"({"schema": "nvmesim.scenario/1", "trials": 3,
    "host": {"kernel": "5.7", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"handoff": "disabled", "enable_latency": "0ns",
                     "faults": {"all_ones": {"from": "1.0075ms", "for": "1ms"}}}]})", "probe_admin_timeout.json");
  const auto& trials = j["variants"][0]["trials"];
  REQUIRE(trials.size() == 3);
  for (const auto& t : trials) {
    CHECK(t["status"] == "eintr");
    const double ms = t["probe_ns"].get<double>() / 1e6;
    CHECK(ms > 60000.0 + 1.0);   // admin phase starts after 1 ms of init_to_probe
    CHECK(ms < 60000.0 + 1.1);   // ... and ~6 us of MMIO
    const auto& d = t["dmesg"];
    REQUIRE(d.size() == 3);
    CHECK_THAT(d[1].get<std::string>(), Catch::EndsWith("nvme nvme0: I/O 0 QID 0 timeout, disable controller"));
    CHECK_THAT(d[2].get<std::string>(), Catch::EndsWith("nvme nvme0: Removing after probe failure status: -4"));
  }
}

TEST_CASE("an Identify Controller with an error status fails the Linux probe with -EIO", "[probe][systemc]") {
  // nvme_init_identify: any of the 15 Status Field bits set fails the probe: "Identify Controller
  // failed (S)" with S in decimal, -EIO (-5), and nothing after Identify (no Set Features, no queue,
  // no queues line). 6 = Internal Error; 16384 = DNR alone, which FreeBSD and EDK2 let through
  // (they test SC and SCT only) but Linux does not. The admin phase ends with Identify's
  // completion: after the device's 100 us plus the command's transport (the device event's
  // duration), and within 2 us more for the MSI-X and the CQE read (each well under 1 us).
  const json j = run_to_json(R"({"schema": "nvmesim.scenario/1", "trials": 2,
    "host": {"kernel": "5.7", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"handoff": "disabled", "enable_latency": "0ns",
                     "admin": {"identify": "100us", "set_features": "10us", "create_queue": "50us"},
                     "faults": {"identify_status": 6}}],
    "variants": [{"name": "internal error"},
                 {"name": "dnr only", "patch": {"host": {"kernel": "6.6"}},
                  "set": {"/controllers/0/faults/identify_status": 16384}}]})", "probe_identify_status.json");
  const char* statuses[] = {"6", "16384"};
  for (size_t v = 0; v < 2; ++v) {
    const auto& trials = j["variants"][v]["trials"];
    REQUIRE(trials.size() == 2);
    for (const auto& t : trials) {
      CHECK(t["status"] == "eio");
      // "Removing after probe failure" is printed up to 6.1 only (linux-readiness.md section 6):
      // 5.7 has it as its third line, 6.6 ends at the Identify line.
      const auto& d = t["dmesg"];
      REQUIRE(d.size() == (v == 0 ? 3u : 2u));
      CHECK_THAT(d[0].get<std::string>(), Catch::EndsWith("nvme nvme0: pci function 0000:04:00.0"));
      CHECK_THAT(d[1].get<std::string>(),
                 Catch::EndsWith(std::string("nvme nvme0: Identify Controller failed (") + statuses[v] + ")"));
      if (v == 0)
        CHECK_THAT(d[2].get<std::string>(), Catch::EndsWith("nvme nvme0: Removing after probe failure status: -5"));
      std::vector<std::string> admin;
      int64_t identify_end_ns = 0;
      for (const auto& e : t["events"])
        if (e["kind"] == "admin_cmd") {
          admin.push_back(e["reg"].get<std::string>());
          identify_end_ns = e["t_ns"].get<int64_t>() + e["dur_ns"].get<int64_t>();
          CHECK(e["dur_ns"].get<int64_t>() >= 100000);
        }
      CHECK(admin == std::vector<std::string>{"identify"});
      const json& a = phase(t, "admin");
      CHECK(a["end_ns"] == t["probe_ns"]);
      CHECK(t["probe_ns"].get<int64_t>() >= identify_end_ns);
      CHECK(t["probe_ns"].get<int64_t>() < identify_end_ns + 2000);
    }
  }
}
