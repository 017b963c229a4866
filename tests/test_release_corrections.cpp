// The corrections of shared/reference/linux-readiness.md section 6 (issue 11), end to end through
// the SystemC models. Expected values are worked out by hand from section 6 and the timer rules of
// section 4; the arithmetic is in a comment beside each. Each TEST_CASE elaborates once (CTest runs
// it in its own process).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support.hpp"

using json = nlohmann::json;
using nvmesim::test::run_to_json;

namespace {
const json& variant(const json& j, const std::string& name) {
  for (const auto& v : j["variants"])
    if (v["name"] == name) return v;
  FAIL("no variant " << name);
  static json none;
  return none;
}
const json& phase(const json& trial, const std::string& name) {
  for (const auto& p : trial["phases"])
    if (p["name"] == name && p["ctrl"] == 0) return p;
  FAIL("no phase " << name);
  static json none;
  return none;
}
double phase_ms(const json& trial, const std::string& name) {
  const json& p = phase(trial, name);
  return (p["end_ns"].get<double>() - p["start_ns"].get<double>()) / 1e6;
}
int count_lines(const json& trial, const std::string& text) {
  int n = 0;
  for (const auto& l : trial["dmesg"]) n += l.get<std::string>().find(text) != std::string::npos;
  return n;
}
}  // namespace

TEST_CASE("4.8's wait loop has no all-ones test - the disable wait runs to its deadline", "[release][systemc]") {
  // Section 6: on 4.8 a vanished device (CSTS reads FFFFFFFFh) is tested like any value. All ones
  // has RDY set, so the disable wait (RDY=0 wanted) polls to its deadline; 4.9 fails at once.
  // The function reads all ones from 3 ms; the probe's CSTS check at ~1 ms still sees it.
  const json j = run_to_json(R"({"schema": "nvmesim.scenario/1", "trials": 3,
    "host": {"kernel": "4.8", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"cap": {"to": 4}, "handoff": "enabled", "disable_latency": "50ms",
                     "faults": {"all_ones": {"from": "3ms"}}}],
    "variants": [{"name": "4.8", "patch": {}}, {"name": "4.9", "patch": {"host": {"kernel": "4.9"}}}]})",
                             "release_all_ones_disable.json");
  // The first read (~1 ms) sees RDY=1 (the disable takes 50 ms), then msleep(100): at HZ=250 before
  // 6.12, 25 + 1 jiffies, (100, 108] ms with the timer wheel's rounding (section 4). The second
  // read, at (101, 109] ms, finds all ones.
  for (const auto& t : variant(j, "4.9")["trials"]) {
    CHECK(t["status"] == "enodev");
    CHECK(phase(t, "disable")["polls"] == 2);
    CHECK(phase_ms(t, "disable") > 100.0);
    CHECK(phase_ms(t, "disable") <= 108.0 + 0.01);
    CHECK(count_lines(t, "Device not ready") == 0);
  }
  // 4.8: deadline (TO+1)*HZ/2 = (4+1)*250/2 = 625 jiffies = 2500 ms; the check passes more than 625
  // ticks after the start and within one more tick (4 ms) plus one msleep(100) (108 ms). About
  // 2500/104 = 24 reads at least.
  for (const auto& t : variant(j, "4.8")["trials"]) {
    CHECK(t["status"] == "enodev");
    CHECK(phase_ms(t, "disable") > 2500.0);
    CHECK(phase_ms(t, "disable") <= 2500.0 + 4.0 + 108.0 + 0.01);
    CHECK(phase(t, "disable")["polls"].get<int>() >= 24);
    CHECK(count_lines(t, "nvme nvme0: Device not ready; aborting reset") == 1);
  }
}

TEST_CASE("4.8's wait loop has no all-ones test - the enable wait succeeds and Identify times out", "[release][systemc]") {
  // The function reads all ones (writes dropped) from 2 ms: after the disable wait (RDY=0 at its
  // first read, ~1 ms) and the first enable read (~1 ms, RDY=0: the enable takes 50 ms).
  const json j = run_to_json(R"({"schema": "nvmesim.scenario/1", "trials": 3,
    "host": {"kernel": "4.8", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"handoff": "disabled", "enable_latency": "50ms", "faults": {"all_ones": {"from": "2ms"}}}],
    "variants": [{"name": "4.8", "patch": {}}, {"name": "4.9", "patch": {"host": {"kernel": "4.9"}}}]})",
                             "release_all_ones_enable.json");
  // Both: msleep(100) = (100, 108] ms, then the second enable read finds all ones.
  for (const auto& t : variant(j, "4.9")["trials"]) {
    CHECK(t["status"] == "enodev");  // -ENODEV at once
    CHECK(phase_ms(t, "enable") > 100.0);
    CHECK(phase_ms(t, "enable") <= 108.0 + 0.01);
    CHECK(count_lines(t, "Device not ready") == 0);
  }
  for (const auto& t : variant(j, "4.8")["trials"]) {
    // All ones has RDY set: the enable wait succeeds at that read; the Identify doorbell write is
    // dropped, and the 60 s admin timeout fails the probe with -EINTR: probe = 1 ms init + (100,
    // 108] ms enable + 60 000 ms, plus a few us of MMIO.
    CHECK(t["status"] == "eintr");
    CHECK(phase_ms(t, "enable") > 100.0);
    CHECK(phase_ms(t, "enable") <= 108.0 + 0.01);
    const double ms = t["probe_ns"].get<double>() / 1e6;
    CHECK(ms > 1.0 + 100.0 + 60000.0);
    CHECK(ms <= 1.0 + 108.0 + 60000.0 + 0.1);
    CHECK(count_lines(t, "nvme nvme0: I/O 0 QID 0 timeout, disable controller") == 1);
    CHECK(count_lines(t, "Device not ready") == 0);
  }
}

namespace {
// The register accesses of controller 0 to `regs`, in order, as "R CAP" or "W CC=0x460001".
std::vector<std::string> accesses(const json& trial, const std::vector<std::string>& regs) {
  std::vector<std::string> out;
  for (const auto& e : trial["events"]) {
    if (e["ctrl"] != 0 || !e.contains("reg")) continue;
    const std::string reg = e["reg"];
    if (std::find(regs.begin(), regs.end(), reg) == regs.end()) continue;
    if (e["kind"] == "mmio_read") out.push_back("R " + reg);
    else if (e["kind"] == "mmio_write") out.push_back("W " + reg + "=" + e["value"].get<std::string>());
  }
  return out;
}
}  // namespace

TEST_CASE("CAP re-reads by release - 4.8's admin-queue setup and the enable's start from 5.4", "[release][systemc]") {
  const json j = run_to_json(R"({"schema": "nvmesim.scenario/1", "trials": 1,
    "host": {"kernel": "4.8", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"handoff": "disabled", "enable_latency": "1ms"}],
    "variants": [{"name": "4.8", "patch": {}}, {"name": "4.9", "patch": {"host": {"kernel": "4.9"}}},
                 {"name": "5.3", "patch": {"host": {"kernel": "5.3"}}},
                 {"name": "5.4", "patch": {"host": {"kernel": "5.4"}}}]})",
                             "release_cap_reads.json");
  const std::vector<std::string> regs = {"CAP", "CAP+4", "VS", "CC"};
  // nvme_pci_enable reads CAP (two halves), then VS; the disable writes CC=0 (EN and both SHN bits
  // clear), the enable CC = IOCQES 4 << 20 | IOSQES 6 << 16 | EN = 0x460001.
  using V = std::vector<std::string>;
  CHECK(accesses(variant(j, "4.8")["trials"][0], regs) ==
        V{"R CAP", "R CAP+4", "R CAP", "R CAP+4", "R VS", "W CC=0x0", "W CC=0x460001"});  // 4.8: CAP again
  CHECK(accesses(variant(j, "4.9")["trials"][0], regs) == V{"R CAP", "R CAP+4", "R VS", "W CC=0x0", "W CC=0x460001"});
  CHECK(accesses(variant(j, "5.3")["trials"][0], regs) == V{"R CAP", "R CAP+4", "R VS", "W CC=0x0", "W CC=0x460001"});
  CHECK(accesses(variant(j, "5.4")["trials"][0], regs) ==
        V{"R CAP", "R CAP+4", "R VS", "W CC=0x0", "R CAP", "R CAP+4", "W CC=0x460001"});  // 5.4: the enable's re-read
  for (const auto& v : j["variants"]) CHECK(v["trials"][0]["status"] == "ok");
}

TEST_CASE("CC.CSS from CAP.CSS from 5.10 - the controller fails an unsupported CSS with CFS", "[release][systemc]") {
  // Section 6: from 5.10 CC.CSS = 6 (all I/O command sets) when CAP.CSS has bit 6, else 0.
  const json j = run_to_json(R"({"schema": "nvmesim.scenario/1", "trials": 2,
    "host": {"kernel": "5.9", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"cap": {"to": 2, "css": 65}, "handoff": "disabled", "enable_latency": "1ms"}],
    "variants": [{"name": "5.9", "patch": {}}, {"name": "5.10", "patch": {"host": {"kernel": "5.10"}}},
                 {"name": "5.9 no NVM", "set": {"/controllers/0/cap/css": 64}},
                 {"name": "5.10 no NVM", "patch": {"host": {"kernel": "5.10"}}, "set": {"/controllers/0/cap/css": 64}}]})",
                             "release_css.json");
  auto enable_write = [](const json& t) {
    const auto w = accesses(t, {"CC"});
    return w.empty() ? std::string() : w.back();
  };
  // CAP.CSS 65 = 41h: NVM (bit 0) and the I/O command sets (bit 6). 5.9: CSS 0, CC = 0x460001;
  // 5.10: CSS 6 in bits 6:4 = 0x60, CC = 0x460061. Both supported: ok.
  for (const auto& t : variant(j, "5.9")["trials"]) {
    CHECK(enable_write(t) == "W CC=0x460001");
    CHECK(t["status"] == "ok");
  }
  for (const auto& t : variant(j, "5.10")["trials"]) {
    CHECK(enable_write(t) == "W CC=0x460061");
    CHECK(t["status"] == "ok");
  }
  // CAP.CSS 64 = 40h: no NVM bit. 5.9's CSS 0 is unsupported: CFS. Linux's loop ignores CFS and
  // polls to the deadline (TO+1)*HZ/2 = 3*250/2 = 375 jiffies = 1500 ms, within one more tick
  // (4 ms) and one usleep_range(1000, 2000) (2 ms); CSTS = CFS = 0x2; the trial is fatal.
  for (const auto& t : variant(j, "5.9 no NVM")["trials"]) {
    CHECK(enable_write(t) == "W CC=0x460001");
    CHECK(t["status"] == "fatal");
    CHECK(phase_ms(t, "enable") > 1500.0);
    CHECK(phase_ms(t, "enable") <= 1500.0 + 4.0 + 2.0 + 0.01);
    CHECK(count_lines(t, "Device not ready; aborting initialisation, CSTS=0x2") == 1);
  }
  for (const auto& t : variant(j, "5.10 no NVM")["trials"]) {
    CHECK(enable_write(t) == "W CC=0x460061");  // CSS 6: supported
    CHECK(t["status"] == "ok");
  }
}

TEST_CASE("the RTD3E shutdown timeout from 4.14 - 4.13 keeps the module parameter", "[release][systemc]") {
  // Section 6: 4.8-4.13 use nvme_core.shutdown_timeout (5 s) alone; from 4.14 clamp(RTD3E 10 s, 5,
  // 60) = 10 s. The shutdown takes 7 s.
  const json j = run_to_json(R"({"schema": "nvmesim.scenario/1", "trials": 2, "workload": "shutdown",
    "host": {"kernel": "4.13", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"handoff": "disabled", "enable_latency": "2ms", "shutdown_latency": "7s",
                     "identify": {"rtd3e": "10s"}}],
    "variants": [{"name": "4.13", "patch": {}}, {"name": "4.14", "patch": {"host": {"kernel": "4.14"}}}]})",
                             "release_rtd3e.json");
  for (const auto& t : variant(j, "4.13")["trials"]) {
    // The pre-6.2 loop: deadline 5 * 250 jiffies = 5000 ms, then within a tick (4 ms) and one
    // msleep(100) (108 ms at HZ=250 before 6.12).
    CHECK(t["status"] == "enodev");
    CHECK(phase_ms(t, "shutdown") > 5000.0);
    CHECK(phase_ms(t, "shutdown") <= 5000.0 + 4.0 + 108.0 + 1.0);
    CHECK(count_lines(t, "Device shutdown incomplete; abort shutdown") == 1);
    CHECK(count_lines(t, "Shutdown timeout set to") == 0);
  }
  for (const auto& t : variant(j, "4.14")["trials"]) {
    // 10 s > 7 s: complete, seen by an msleep(100) poll within 108 ms.
    CHECK(t["status"] == "ok");
    CHECK(phase_ms(t, "shutdown") > 7000.0);
    CHECK(phase_ms(t, "shutdown") < 7000.0 + 108.0 + 1.0);
    CHECK(count_lines(t, "nvme nvme0: Shutdown timeout set to 10 seconds") == 1);
  }
}

TEST_CASE("messages by release - no probe-failure line from 6.2", "[release][systemc]") {
  // Section 6: "Removing after probe failure status: %d" exists up to 6.1. A controller that never
  // becomes ready, CAP.TO=0: 6.1's deadline (0+1)*250/2 = 125 jiffies (500 ms), 6.2's
  // ((0+1)/2)*250 = 0 jiffies (the first check after one sleep fails): both -ENODEV (-19).
  const json j = run_to_json(R"({"schema": "nvmesim.scenario/1", "trials": 1,
    "host": {"kernel": "6.1", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"cap": {"to": 0}, "handoff": "disabled", "faults": {"never_ready": true}}],
    "variants": [{"name": "6.1", "patch": {}}, {"name": "6.2", "patch": {"host": {"kernel": "6.2"}}}]})",
                             "release_probe_failure.json");
  const json& t61 = variant(j, "6.1")["trials"][0];
  const json& t62 = variant(j, "6.2")["trials"][0];
  CHECK(t61["status"] == "enodev");
  CHECK(t62["status"] == "enodev");
  CHECK(count_lines(t61, "nvme nvme0: Removing after probe failure status: -19") == 1);
  CHECK(count_lines(t62, "Removing after probe failure") == 0);
  CHECK(count_lines(t62, "nvme nvme0: Device not ready; aborting initialisation, CSTS=0x0") == 1);
}

TEST_CASE("messages by release - a failed reset logs Disabling device from 6.2", "[release][systemc]") {
  // `nvme reset` of a probed controller whose reads return all ones from 15 ms on: the probe
  // (1 ms to driver init, 10 ms enable latency polled every 1-2 ms: about 12 ms) succeeds before
  // the window; the reset's enable wait (another 10 ms) reads all ones from 15 ms and fails with
  // -ENODEV (-19). Up to 6.1 the reset work's
  // error path logs "Removing after probe failure status: -19"; from 6.2 (the probe's own error
  // goes to the driver core) the reset work logs "Disabling device after reset failure: -19".
  const json j = run_to_json(R"({"schema": "nvmesim.scenario/1", "trials": 1, "workload": "reset",
    "host": {"kernel": "6.1", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"cap": {"to": 2}, "handoff": "disabled", "enable_latency": "10ms",
                     "faults": {"all_ones": {"from": "15ms"}}}],
    "variants": [{"name": "6.1", "patch": {}}, {"name": "6.2", "patch": {"host": {"kernel": "6.2"}}}]})",
                             "release_reset_failure.json");
  const json& t61 = variant(j, "6.1")["trials"][0];
  const json& t62 = variant(j, "6.2")["trials"][0];
  CHECK(t61["status"] == "enodev");
  CHECK(t62["status"] == "enodev");
  CHECK(count_lines(t61, "nvme nvme0: Removing after probe failure status: -19") == 1);
  CHECK(count_lines(t61, "Disabling device") == 0);
  CHECK(count_lines(t62, "nvme nvme0: Disabling device after reset failure: -19") == 1);
  CHECK(count_lines(t62, "Removing after probe failure") == 0);
}

TEST_CASE("messages by release - D3 entry latency instead of Shutdown timeout from 6.9", "[release][systemc]") {
  // RTD3E 10 s raises the shutdown timeout from 5 s to clamp(10, 5, 60) = 10 s: 6.8 says
  // "Shutdown timeout set to 10 seconds", 6.9 "D3 entry latency set to 10 seconds" (the table's
  // choice of 6.9 for section 6's "by 6.12, likely 6.9"), 6.12 the same.
  const json m = run_to_json(R"({"schema": "nvmesim.scenario/1", "trials": 1,
    "host": {"kernel": "6.8", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [{"handoff": "disabled", "enable_latency": "1ms", "identify": {"rtd3e": "10s"}}],
    "variants": [{"name": "6.8", "patch": {}}, {"name": "6.9", "patch": {"host": {"kernel": "6.9"}}},
                 {"name": "6.12", "patch": {"host": {"kernel": "6.12"}}}]})",
                             "release_d3_message.json");
  const json& m68 = variant(m, "6.8")["trials"][0];
  CHECK(count_lines(m68, "nvme nvme0: Shutdown timeout set to 10 seconds") == 1);
  CHECK(count_lines(m68, "D3 entry latency") == 0);
  for (const char* v : {"6.9", "6.12"}) {
    INFO(v);
    const json& t = variant(m, v)["trials"][0];
    CHECK(count_lines(t, "nvme nvme0: D3 entry latency set to 10 seconds") == 1);
    CHECK(count_lines(t, "Shutdown timeout set to") == 0);
  }
}
