// The FreeBSD host driver (host/freebsd/, release "older": the last pre-13.1 shape, 00ed045a)
// through the host-driver seam: its readiness wait is the one loop with `R A T D S`, a 1 ms busy
// DELAY and an iteration-count deadline (CAP.TO + 1) x 500; attach runs two hw_resets, each with
// a 100 ms DELAY, and a 5 ms DELAY after each admin-queue register. Facts: the FreeBSD section of
// the host facts (brief), 1.1-1.6 and cases F1, F3, F4, F6.
// Notation: R = one CSTS read round trip = 2 x 450 ns + 2 x 6.094 ns + 32 ns + (0..2) ns edge =
// 0.944-0.946 us; w = a posted write, ~7 ns for the host. DELAY(n) is exact (udelay: no lateness).
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "support.hpp"

using namespace nvmesim;
using json = nlohmann::json;

namespace {
std::string freebsd(const std::string& controllers, int trials = 3) {
  return R"({"schema": "nvmesim.scenario/1", "trials": )" + std::to_string(trials) + R"(,
    "host": {"driver": "freebsd"}, "controllers": [)" + controllers + "]}";
}

const json* find_phase(const json& trial, const std::string& name) {
  for (const auto& p : trial["phases"])
    if (p["name"] == name) return &p;
  return nullptr;
}

const json& phase(const json& trial, const std::string& name) {
  const json* p = find_phase(trial, name);
  if (!p) FAIL("no phase " << name);
  return *p;
}

double dur_ns(const json& p) { return p["end_ns"].get<double>() - p["start_ns"].get<double>(); }

bool has_line(const json& trial, const std::string& text) {
  for (const auto& l : trial["dmesg"])
    if (l.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

constexpr double kRMin = 944.0, kRMax = 946.0, kWMax = 10.0;  // ns
}  // namespace

TEST_CASE("freebsd older: never ready with CAP.TO=0 fails after 501 DELAYs and 502 reads (cases F6, 1.6)",
          "[freebsd][systemc]") {
  // T = (TO + 1) x 500 = 500 (the 12.0-era TO x 500 would be 0). Read k follows k DELAYs of
  // 1 ms; the check "k > 500" before the DELAY fails at read k = 501: 502 reads, 501 DELAYs.
  // The controller starts disabled (EN=0, RDY=0), so the first reset's disable is the short cut
  // (CC and CSTS read, no write); enable reads CC and CSTS, waits RDY=0 (1 read), writes ASQ, ACQ
  // (2 writes each), AQA with a 5 ms DELAY after each, writes CC.EN=1 and waits:
  //   first_reset = 100 ms + 2R + 2R + R + 15 ms + 5w + w + 501 ms + 502R = 616 ms + 507R + 6w
  //               = 616.478608-616.479622 ms (+ 6w <= 60 ns).
  const json j = test::run_to_json(freebsd(R"({"handoff": "disabled", "cap": {"to": 0}, "enable_latency": "10s"})"),
                                   "freebsd_never.json");
  for (const auto& t : j["variants"][0]["trials"]) {
    CHECK(t["status"] == "enodev");
    const json& r1 = phase(t, "first_reset");
    CHECK(r1["polls"] == 1 + 502);  // the enable's RDY=0 read, then the RDY=1 wait
    CHECK(r1["sleeps"] == 501);     // the wait's DELAYs (the 100 ms and 5 ms DELAYs are not wait sleeps)
    CHECK(dur_ns(r1) >= 616e6 + 507 * kRMin);
    CHECK(dur_ns(r1) <= 616e6 + 507 * kRMax + 6 * kWMax);
    CHECK(find_phase(t, "disable") == nullptr);  // the second reset never starts
    CHECK(has_line(t, "nvme0: controller ready did not become 1 within 500 ms"));
  }
}

TEST_CASE("freebsd older: two resets, each wait 1 ms + 2R on a 500 us device (case F4)", "[freebsd][systemc]") {
  // Handed over enabled (EN=1, RDY=1), disable and enable latency 500 us fixed. Each reset:
  // DELAY(100 ms); disable reads CC (EN=1) and CSTS (RDY=1), writes CC.EN=0, waits RDY=0: read 0
  // sees RDY=1 (the write lands ~0.46 us later, RDY falls 500 us after), DELAY 1 ms, read 1 sees
  // RDY=0: the wait is w + 1 ms + 2R. Then enable: CC (EN=0), CSTS, wait RDY=0 (1 read), the three
  // registers with their 5 ms DELAYs, CC.EN=1 and the wait: read 0 at w sees RDY=0, DELAY, read 1
  // sees RDY=1: w + 1 ms + 2R. Reset 2 finds EN=1, RDY=1 again: the same.
  //   reset_delay = 100 ms exactly; disable = 2R + w + 1 ms + 2R = 1 ms + 4R + w;
  //   admin_queue = 3R + 15 ms + 5w; enable = w + 1 ms + 2R.
  const json j = test::run_to_json(
      freebsd(R"({"handoff": "enabled", "disable_latency": "500us", "enable_latency": "500us"})"), "freebsd_f4.json");
  for (const auto& t : j["variants"][0]["trials"]) {
    CHECK(t["status"] == "ok");
    CHECK(dur_ns(phase(t, "reset_delay")) == 100e6);  // DELAY(100 ms): to the picosecond
    const json& dis = phase(t, "disable");
    CHECK(dis["polls"] == 2);
    CHECK(dis["sleeps"] == 1);
    CHECK(dur_ns(dis) >= 1e6 + 4 * kRMin);
    CHECK(dur_ns(dis) <= 1e6 + 4 * kRMax + kWMax);
    const json& aq = phase(t, "admin_queue");
    CHECK(aq["polls"] == 1);
    CHECK(dur_ns(aq) >= 15e6 + 3 * kRMin);
    CHECK(dur_ns(aq) <= 15e6 + 3 * kRMax + 5 * kWMax);
    const json& en = phase(t, "enable");
    CHECK(en["polls"] == 2);
    CHECK(en["sleeps"] == 1);
    CHECK(dur_ns(en) >= 1e6 + 2 * kRMin);
    CHECK(dur_ns(en) <= 1e6 + 2 * kRMax + kWMax);
    // The first reset is the same sequence: 100 ms + (1 ms + 4R + w) + (3R + 15 ms + 5w) + (w + 1 ms + 2R).
    const json& r1 = phase(t, "first_reset");
    CHECK(r1["polls"] == 2 + 1 + 2);
    CHECK(dur_ns(r1) >= 117e6 + 9 * kRMin);
    CHECK(dur_ns(r1) <= 117e6 + 9 * kRMax + 7 * kWMax);
    CHECK(phase(t, "disable")["start_ns"].get<double>() >= r1["end_ns"].get<double>() + 100e6);
  }
}

TEST_CASE("freebsd older: the EN=0, RDY=0 short cut and the 2300-tick quirk pause (cases F1, F3)",
          "[freebsd][systemc]") {
  // nvme0: disabled at hand-over and instant: the first reset's disable is the short cut (CC and
  // CSTS reads only, no write, no wait read), its enable reads CC, CSTS, waits RDY=0 (1 read),
  // writes the three registers with their 5 ms DELAYs and CC.EN=1, and its wait's first read sees
  // RDY=1: first_reset = 100 ms + 2R + (3R + 15 ms + 5w) + (w + R) = 115 ms + 6R + 6w, 2 wait
  // reads (without the short cut: a CC write and a third wait read). The second reset finds
  // EN=1, RDY=1: disable = 2R + w + R (RDY=0 at once), 1 wait read.
  // nvme1: PCI id 144d:a822 (QUIRK_DELAY_B4_CHK_RDY), handed over enabled with a 1 ms disable
  // latency: after the CC write the driver pauses until the 1 kHz tick counter has advanced 2300,
  // i.e. 2300 ms - phi (phi in [0, 1 ms): the write's offset past its tick), and the wait's one
  // read then sees RDY=0: disable = 2R + w + (2299, 2300] ms + R.
  const json j = test::run_to_json(
      freebsd(R"({"handoff": "disabled"}, {"handoff": "enabled", "pci_id": "144d:a822", "disable_latency": "1ms"})",
              2),
      "freebsd_f1_f3.json");
  for (const auto& t : j["variants"][0]["trials"]) {
    CHECK(t["status"] == "ok");
    int seen = 0;
    for (const auto& p : t["phases"]) {
      if (p["ctrl"] == 0 && p["name"] == "first_reset") {
        CHECK(p["polls"] == 2);
        CHECK(dur_ns(p) >= 115e6 + 6 * kRMin);
        CHECK(dur_ns(p) <= 115e6 + 6 * kRMax + 6 * kWMax);
      }
      if (p["name"] != "disable") continue;
      ++seen;
      CHECK(p["polls"] == 1);
      CHECK(p["sleeps"] == 0);
      if (p["ctrl"] == 0) {
        CHECK(dur_ns(p) >= 3 * kRMin);
        CHECK(dur_ns(p) <= 3 * kRMax + kWMax);
      } else {
        CHECK(dur_ns(p) > 2299e6 + 3 * kRMin);
        CHECK(dur_ns(p) <= 2300e6 + 3 * kRMax + kWMax);
      }
    }
    CHECK(seen == 2);
  }
}
