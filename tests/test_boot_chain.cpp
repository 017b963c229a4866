// boot.chain (issue 13 item 2): stages run in one trial on the same controller state, each from
// what the one before left (docs/hosts.md, "Boot chain"). Facts: other-hosts.md (EDK2 and
// SeaBIOS leave the controller enabled with their own admin queue; the OS then starts with a
// disable wait), linux-readiness.md section 2 (the shutdown a kexec or an unbind runs).
//
// The benches below run the controller at 1000GHz (a 1 ps clock: no edge to wait for) with fixed
// latencies and a fixed 450 ns link, so that an action's times do not depend on when it starts:
// a stage that meets the same controller state as a single-driver run must give that run's times
// to the picosecond, shifted by its start. Linux runs at HZ 250, tick nohz_idle, highres: a
// usleep_range(1000, 2000) ends at its 2 ms hard expiry whatever the tick's phase.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/runner.hpp"
#include "engine/system.hpp"
#include "scenario/scenario.hpp"
#include "support.hpp"

using namespace nvmesim;

namespace {

// One trial as the bench kept it.
struct ChainTrial {
  TrialResult res;  // without its recorder
  std::vector<Phase> phases;
  std::vector<Event> events;
  // The phases `name` of controller 0 that start in [from_ps, to_ps).
  std::vector<Phase> phases_in(const std::string& name, int64_t from_ps, int64_t to_ps) const {
    std::vector<Phase> out;
    for (const Phase& p : phases)
      if (p.id.name == name && p.ctrl == 0 && p.start_ps >= from_ps && p.start_ps < to_ps) out.push_back(p);
    return out;
  }
  // The one phase `name` of controller 0 in stage `stage`.
  Phase stage_phase(const std::string& name, size_t stage) const {
    const int64_t from = res.stages.at(stage).start_ps;
    const int64_t to = stage + 1 < res.stages.size() ? res.stages[stage + 1].start_ps : INT64_MAX;
    const std::vector<Phase> in = phases_in(name, from, to);
    REQUIRE(in.size() == 1);
    return in.front();
  }
};

// Every trial of every variant of `text`, detailed, in one elaboration: out[variant][trial].
std::vector<std::vector<ChainTrial>> run_chain_bench(const std::string& text) {
  static bool started = false;
  REQUIRE(!started);  // one elaboration per process
  started = true;
  static const Scenario sc = load_scenario_text(text, "bench");
  init_systemc();
  size_t n = 0;
  for (const Variant& v : sc.variants) n = std::max(n, v.controllers.size());
  static nvme_system system("system", n);
  std::vector<std::vector<ChainTrial>> out(sc.variants.size());
  size_t vi = 0;
  uint64_t next = 0;
  system.next_trial = [&](TrialRequest& req) {
    if (next == sc.trials) {
      next = 0;
      ++vi;
    }
    if (vi == sc.variants.size()) return false;
    req.variant = &sc.variants[vi];
    req.variant_index = vi;
    req.seed = sc.seed;
    req.trial = next++;
    req.detailed = true;
    return true;
  };
  system.trial_done = [&](const TrialRequest& req, const TrialResult& res) {
    ChainTrial t;
    t.res = res;
    t.res.recorder = nullptr;
    t.phases = res.recorder->phases();
    t.events = res.recorder->events();
    out[req.variant_index].push_back(std::move(t));
  };
  sc_core::sc_start();
  REQUIRE(system.error().empty());
  for (const auto& v : out) REQUIRE(v.size() == sc.trials);
  return out;
}

// The bench's device: fixed latencies, a 1 ps clock; `extra` adds keys (JSON members).
std::string bench_controller(const std::string& extra = "") {
  return R"({"clock": "1000GHz", "cap": {"to": 30}, "disable_latency": "500us", "enable_latency": "800us",
             "shutdown_latency": "5ms", "admin": {"identify": "300us", "set_features": "50us", "create_queue": "100us"})" +
         (extra.empty() ? "" : ", " + extra) + "}";
}

constexpr const char* kLinuxHost = R"("host": {"kernel": "5.7", "hz": 250, "tick": "nohz_idle", "highres": true})";

}  // namespace

TEST_CASE("boot.chain edk2 -> linux: EDK2 leaves EN=1, RDY=1 and Linux's stage is its handoff-enabled probe to the picosecond",
          "[chain][systemc]") {
  // Variant 0: the chain from the power-on state (handoff left out: disabled). Variant 1: Linux
  // 5.7 alone under controllers[].handoff "enabled". Variant 2: EDK2 alone.
  // EDK2 (other-hosts.md): it leaves the controller enabled with its own admin queue; so Linux's
  // stage meets EN=1, RDY=1 exactly as under handoff "enabled": its disable wait writes CC.EN=0,
  // the first CSTS read still sees RDY=1 (500 us disable latency), usleep_range sleeps to 2 ms,
  // and the next read sees RDY=0: 2 polls, 1 sleep (from the power-on state it would be 1 poll,
  // 0 sleeps). With a 1 ps clock and fixed latencies every duration of that stage equals the
  // handoff run's, and the stage starts at EDK2's end (no gap): stage 1's start = stage 0's time.
  const std::string text = R"({"schema": "nvmesim.scenario/1", "trials": 2, )" + std::string(kLinuxHost) +
                           R"(, "controllers": [)" + bench_controller() + R"(],
    "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux"}]},
    "variants": [
      {"name": "chain", "patch": {}},
      {"name": "linux handoff enabled", "patch": {"boot": {"chain": null}}, "set": {"/controllers/0/handoff": "enabled"}},
      {"name": "edk2 alone", "patch": {"boot": {"chain": null},
       "host": {"driver": "edk2", "kernel": null, "hz": null, "tick": null, "highres": null}}}]})";
  const auto out = run_chain_bench(text);
  for (size_t k = 0; k < 2; ++k) {
    INFO("trial " << k);
    const ChainTrial& c = out[0][k];
    const ChainTrial& lin = out[1][k];
    const ChainTrial& fw = out[2][k];
    REQUIRE(c.res.stages.size() == 2);
    CHECK(lin.res.stages.empty());
    const StageResult& s0 = c.res.stages[0];
    const StageResult& s1 = c.res.stages[1];
    CHECK(s0.status == ProbeStatus::ok);
    CHECK(s1.status == ProbeStatus::ok);
    CHECK(s0.start_ps == 0);
    CHECK(s0.release_ps == -1);
    CHECK(s0.gap_ps == 0);
    // EDK2's stage is EDK2 alone; Linux's starts where it ended.
    CHECK(s0.time_ps == fw.res.critical_path_ps);
    CHECK(s0.probe_ps == fw.res.probe_ps);
    CHECK(s1.start_ps == s0.time_ps);
    // Linux's stage: the handoff-enabled probe, shifted by its start, to the picosecond.
    CHECK(s1.probe_ps == lin.res.probe_ps);
    CHECK(c.res.probe_ps == lin.res.probe_ps);
    CHECK(s1.time_ps == lin.res.critical_path_ps);
    CHECK(c.res.critical_path_ps == s1.start_ps + lin.res.critical_path_ps);
    for (const char* ph : {"disable", "enable", "admin"}) {
      INFO(ph);
      const Phase p = c.stage_phase(ph, 1);
      const auto alone = lin.phases_in(ph, 0, INT64_MAX);
      REQUIRE(alone.size() == 1);
      CHECK(p.start_ps - s1.start_ps == alone[0].start_ps);
      CHECK(p.end_ps - s1.start_ps == alone[0].end_ps);
      CHECK(p.polls == alone[0].polls);
      CHECK(p.sleeps == alone[0].sleeps);
    }
    CHECK(c.stage_phase("disable", 1).polls == 2);
    CHECK(c.stage_phase("disable", 1).sleeps == 1);
    // The disable wait: CC.EN=0, a read (RDY=1), the 2 ms sleep, a read (RDY=0): more than 2 ms.
    CHECK(c.stage_phase("disable", 1).end_ps - c.stage_phase("disable", 1).start_ps > 2'000'000'000);
  }
}

TEST_CASE("boot.chain: a failing first stage leaves what it left and the next stage still runs", "[chain][systemc]") {
  // CAP.TO = 1 and a 700 ms enable latency: EDK2 waits max(TO, 1) x 500 = 500 iterations of
  // Stall(1 ms) + a CSTS read, then gives up ([Time out], enodev) at about 500 ms + 500R; it
  // leaves CC.EN=1 with RDY still 0. Linux 5.7 then runs (the chain goes on after a failed
  // stage): its disable wait writes CC.EN=0 and its first read sees RDY=0 (disable latency 0
  // here: 1 poll, 0 sleeps); it enables, and RDY=1 comes 700 ms after its CC.EN=1, inside its
  // (CAP.TO + 1) x 500 ms = 1 s timeout: the trial is ok, the OS's probe > 700 ms.
  const std::string text = R"({"schema": "nvmesim.scenario/1", "trials": 1, )" + std::string(kLinuxHost) +
                           R"(, "controllers": [{"clock": "1000GHz", "cap": {"to": 1}, "enable_latency": "700ms"}],
    "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux"}]}})";
  const auto out = run_chain_bench(text);
  const ChainTrial& t = out[0][0];
  REQUIRE(t.res.stages.size() == 2);
  const StageResult& s0 = t.res.stages[0];
  const StageResult& s1 = t.res.stages[1];
  CHECK(s0.status == ProbeStatus::enodev);
  CHECK(t.stage_phase("enable", 0).polls == 500);
  CHECK(t.stage_phase("enable", 0).sleeps == 500);
  // 500 x (1 ms + R), R < 1 us: [500 ms, 500.5 ms] of enable wait inside the stage's time.
  CHECK(s0.time_ps > 500'000'000'000);
  CHECK(s0.time_ps < 503'000'000'000);
  CHECK(s1.start_ps == s0.time_ps);
  CHECK(s1.status == ProbeStatus::ok);
  CHECK(t.stage_phase("disable", 1).polls == 1);
  CHECK(t.stage_phase("disable", 1).sleeps == 0);
  CHECK(s1.probe_ps > 700'000'000'000);
  CHECK(s1.probe_ps < 710'000'000'000);
  CHECK(t.res.status == ProbeStatus::ok);
  CHECK(t.res.probe_status == ProbeStatus::ok);
  CHECK(t.res.probe_ps == s1.probe_ps);
}

TEST_CASE("boot.chain kexec and unbind: Linux's shutdown releases the controller, the next stage meets EN=1, RDY=1",
          "[chain][systemc]") {
  // Variant 0: Linux 5.7 (handoff enabled) then Linux 5.7 with entry "kexec"; variant 1: the same
  // Linux, then SPDK with entry "unbind". The release is Linux's shutdown (linux-readiness.md
  // section 2): Delete I/O SQ x 2, CQ x 2 (100 us each, serial: 0.4 ms), CC.SHN=01b, then (up to
  // 6.1) a loop of msleep(100) on SHST: the first read misses (5 ms shutdown latency), msleep(100)
  // at HZ 250 before 6.12 sleeps 104-108 ms (linux-readiness.md section 4), and the next read
  // sees SHST complete: release in (104.4, 108.5) ms. The same stage-0 seed in
  // both variants gives the same phase: the two releases are equal to the picosecond. CC.SHN
  // leaves CC.EN=1 and RDY=1: the kexec'd Linux meets the enabled hand-off again, so its probe
  // equals the first kernel's to the picosecond (fixed latencies, 1 ps clock).
  const std::string text = R"({"schema": "nvmesim.scenario/1", "trials": 3, )" + std::string(kLinuxHost) +
                           R"(, "controllers": [)" + bench_controller(R"("handoff": "enabled")") + R"(],
    "boot": {"chain": [{"driver": "linux"}, {"driver": "linux", "entry": "kexec"}]},
    "variants": [
      {"name": "kexec", "patch": {}},
      {"name": "spdk takeover", "patch": {"boot": {"chain": [{"driver": "linux"}, {"driver": "spdk", "entry": "unbind"}]}}}]})";
  const auto out = run_chain_bench(text);
  for (size_t k = 0; k < 3; ++k) {
    INFO("trial " << k);
    const ChainTrial& kx = out[0][k];
    const ChainTrial& sp = out[1][k];
    REQUIRE(kx.res.stages.size() == 2);
    REQUIRE(sp.res.stages.size() == 2);
    const StageResult& a = kx.res.stages[0];
    const StageResult& b = kx.res.stages[1];
    CHECK(a.status == ProbeStatus::ok);
    CHECK(b.status == ProbeStatus::ok);
    CHECK(b.release_ps > 104'400'000'000);
    CHECK(b.release_ps < 108'500'000'000);
    CHECK(b.start_ps == a.time_ps + b.release_ps);
    CHECK(b.probe_ps == a.probe_ps);
    CHECK(kx.stage_phase("disable", 1).polls == 2);
    CHECK(kx.stage_phase("disable", 1).sleeps == 1);
    // SPDK after the unbind: the same release; it finds EN=1 and RDY=1 and disables (docs/hosts.md
    // "spdk": state 0 writes CC.EN=0 when EN=1), after its 2 s post-reset wait.
    const StageResult& u = sp.res.stages[1];
    CHECK(u.release_ps == b.release_ps);
    CHECK(u.status == ProbeStatus::ok);
    CHECK(u.time_ps > 2'000'000'000'000);
    CHECK(sp.res.status == ProbeStatus::ok);
  }
}

namespace {
// The device's drawn latencies of one trial, from its state events: each "enabling" -> "ready"
// (an enable latency) and each "resetting" -> "disabled" (a disable latency), in order. With a
// 1 ps clock a state lasts exactly its draw.
std::vector<int64_t> drawn(const ChainTrial& t, const char* from, const char* to) {
  std::vector<int64_t> out;
  int64_t since = -1;
  for (const Event& e : t.events) {
    if (e.kind != EventKind::state || e.src != EventSource::device || e.ctrl != 0) continue;
    if (e.detail == from) since = e.t_ps;
    else if (e.detail == to && since >= 0) out.push_back(e.t_ps - since), since = -1;
    else since = -1;
  }
  return out;
}
}  // namespace

TEST_CASE("boot.chain: variants with different chains draw the same device latencies (common random numbers)",
          "[chain][systemc]") {
  // Variants [edk2, linux 5.6] and [edk2, linux 5.7], and [edk2, spdk]: the chains differ (the OS
  // stage's release and driver), the device's streams do not (seed and trial only): the k-th
  // enable latency and the k-th disable latency are the same values in every variant. EDK2
  // draws enable #0 (from the power-on state its CC.EN=0 draws nothing); the OS stage draws
  // disable #0 (EN=1 -> 0) and enable #1. The Linux stages' probes differ (msleep(100) against
  // usleep_range), so the chains did run differently.
  // (host without a kernel: the spdk variant leaves it to the base and reads none, so a base
  // kernel would be refused as unread.)
  const std::string text = R"({"schema": "nvmesim.scenario/1", "trials": 4, "host": {"hz": 250, "tick": "nohz_idle", "highres": true})"
                           R"(, "controllers": [{"clock": "1000GHz",
      "disable_latency": {"dist": "uniform", "min": "100us", "max": "1500us"},
      "enable_latency": {"dist": "uniform", "min": "100us", "max": "1800us"}}],
    "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux"}]},
    "variants": [
      {"name": "5.6", "patch": {"host": {"kernel": "5.6"}}},
      {"name": "5.7", "patch": {"host": {"kernel": "5.7"}}},
      {"name": "spdk", "patch": {"boot": {"chain": [{"driver": "edk2"}, {"driver": "spdk"}]}}}]})";
  const auto out = run_chain_bench(text);
  bool probes_differ = false;
  for (size_t k = 0; k < 4; ++k) {
    INFO("trial " << k);
    const auto en = drawn(out[0][k], "enabling", "ready");
    const auto dis = drawn(out[0][k], "resetting", "disabled");
    REQUIRE(en.size() == 2);
    REQUIRE(dis.size() == 1);
    CHECK(en[0] != en[1]);
    for (size_t v = 1; v < 3; ++v) {
      INFO("variant " << v);
      CHECK(drawn(out[v][k], "enabling", "ready") == en);
      CHECK(drawn(out[v][k], "resetting", "disabled") == dis);
    }
    probes_differ = probes_differ || out[0][k].res.probe_ps != out[1][k].res.probe_ps;
  }
  CHECK(probes_differ);
}

namespace {
RunReport run_shipped(const std::string& name) {
  LoadOptions lo;
  const Scenario sc = load_scenario_file(std::string(NVMESIM_SOURCE_DIR) + "/scenarios/" + name, lo);
  RunOptions o;
  o.quiet = true;
  o.progress = false;
  return run_scenario(sc, o);
}
}  // namespace

TEST_CASE("edk2-linux-aws.json: EDK2's stage, then the seed case's 217 -> 6.4 ms under Linux", "[chain][cases][systemc]") {
  // The file's comment: EDK2 p50 ~2.72 ms (1 ms + 2R disable, 1 ms + R enable when the enable
  // latency is under ~1 ms, 700 us of admin commands), p90 ~3.72 ms (one more Stall); Linux 5.6
  // p50 217 ms +- 5 %, 5.7 6.4 ms +- 20 % (cases/README.md section 1), delta near -211 ms.
  const RunReport r = run_shipped("edk2-linux-aws.json");
  REQUIRE(r.variants.size() == 2);
  for (const VariantReport& v : r.variants) {
    INFO(v.name);
    CHECK(v.status_counts[0] == 200);
    REQUIRE(v.stages.size() == 2);
    CHECK(v.stages[0].driver == "edk2");
    CHECK(v.stages[0].status_counts[0] == 200);
    CHECK(v.stages[0].time_ms.p50 > 2.70);
    CHECK(v.stages[0].time_ms.p50 < 2.74);
    CHECK(v.stages[0].time_ms.p90 > 3.70);
    CHECK(v.stages[0].time_ms.p90 < 3.74);
    CHECK(v.stages[1].gap_ms.min == 1000.0);
    CHECK(v.stages[1].probe_ms.p50 == v.probe_ms.p50);
  }
  CHECK(r.variants[0].probe_ms.p50 > 217.242 * 0.95);
  CHECK(r.variants[0].probe_ms.p50 < 217.242 * 1.05);
  CHECK(r.variants[1].probe_ms.p50 > 6.369 * 0.8);
  CHECK(r.variants[1].probe_ms.p50 < 6.369 * 1.2);
  // summary.phases is Linux's alone: its disable wait after EDK2's enabled hand-off reads RDY=1,
  // sleeps once, reads RDY=0 (2 polls, 1 sleep in every trial). EDK2's own disable wait (1 poll
  // after its 1 ms stall) folded in would make the minimum 1.
  for (const VariantReport& v : r.variants) {
    INFO(v.name);
    CHECK(v.phases["disable"]["polls"]["min"].get<double>() == 2);
    CHECK(v.phases["disable"]["polls"]["max"].get<double>() == 2);
  }
  REQUIRE(r.paired.size() == 1);
  CHECK(r.paired[0].delta_ms.p50 > -216.0);
  CHECK(r.paired[0].delta_ms.p50 < -206.0);
}

TEST_CASE("kexec-5.7.json: the second kernel meets the enabled hand-off again after a 104-108.5 ms shutdown", "[chain][cases][systemc]") {
  const RunReport r = run_shipped("kexec-5.7.json");
  REQUIRE(r.variants.size() == 1);
  const VariantReport& v = r.variants[0];
  CHECK(v.status_counts[0] == 200);
  REQUIRE(v.stages.size() == 2);
  CHECK(v.stages[1].entry == "kexec");
  CHECK(v.stages[1].release_ms.min > 104.4);
  CHECK(v.stages[1].release_ms.max < 108.6);
  CHECK(v.stages[1].gap_ms.min == 200.0);
  for (const StageReport& s : v.stages) {
    CHECK(s.probe_ms.p50 > 6.369 * 0.8);
    CHECK(s.probe_ms.p50 < 6.369 * 1.2);
  }
}

TEST_CASE("spdk-takeover.json: Linux 5.7, the unbind's shutdown, then SPDK's 2 s post-reset wait and init", "[chain][cases][systemc]") {
  const RunReport r = run_shipped("spdk-takeover.json");
  REQUIRE(r.variants.size() == 1);
  const VariantReport& v = r.variants[0];
  CHECK(v.status_counts[0] == 200);
  REQUIRE(v.stages.size() == 2);
  CHECK(v.stages[0].probe_ms.p50 > 6.369 * 0.8);
  CHECK(v.stages[0].probe_ms.p50 < 6.369 * 1.2);
  CHECK(v.stages[1].driver == "spdk");
  CHECK(v.stages[1].release_ms.min > 104.4);
  CHECK(v.stages[1].release_ms.max < 108.6);
  CHECK(v.stages[1].time_ms.min > 2000.5);
  CHECK(v.stages[1].time_ms.max < 2003.7);
  CHECK(v.stages[1].time_ms.p50 > 2001.5);
  CHECK(v.stages[1].time_ms.p50 < 2002.0);
}

TEST_CASE("trace output: a boot chain's release, gap and stages on a track of their own", "[chain][trace]") {
  // kexec-5.7.json's trial 0: stage 1 from 0 to its time; the release right after it; the
  // 200 ms gap (the file's fixed gap) right after the release; stage 2 at the gap's end. Each
  // slice starts where the one before ended (us, from the trace's own numbers).
  const std::string file = "/tmp/nvmesim-test-chain-trace-" + std::to_string(::getpid()) + ".json";
  REQUIRE(test::run_nvmesim("run " + std::string(NVMESIM_SOURCE_DIR) + "/scenarios/kexec-5.7.json -n 1 -q --trace " +
                            file) == 0);
  const nlohmann::json j = nlohmann::json::parse(test::slurp(file));
  std::remove(file.c_str());
  int chain_tid = -1;
  for (const auto& e : j["traceEvents"])
    if (e["name"] == "thread_name" && e["args"]["name"] == "boot chain") chain_tid = e["tid"].get<int>();
  REQUIRE(chain_tid == 3);  // after nvme0's host (1) and device (2) tracks
  std::vector<nlohmann::json> slices;
  for (const auto& e : j["traceEvents"])
    if (e.value("tid", -1) == chain_tid && e["ph"] == "X") slices.push_back(e);
  REQUIRE(slices.size() == 4);
  CHECK(slices[0]["name"] == "stage 1: linux (ok)");
  CHECK(slices[1]["name"] == "release (kexec)");
  CHECK(slices[2]["name"] == "gap");
  CHECK(slices[3]["name"] == "stage 2: linux (ok)");
  CHECK(slices[0]["ts"].get<double>() == 0.0);
  CHECK(slices[2]["dur"].get<double>() == 200000.0);
  for (size_t k = 1; k < 4; ++k)
    CHECK(slices[k]["ts"].get<double>() ==
          Approx(slices[k - 1]["ts"].get<double>() + slices[k - 1]["dur"].get<double>()).margin(0.0011));
}

TEST_CASE("boot.chain: a kexec whose shutdown fails fails the trial, and says so in the stage's release_status",
          "[chain][process]") {
  // shutdown_latency 100 s: the old kernel's SHST wait ends at its timeout (Linux 5.7: the
  // shutdown timeout, 5 s here as the review measured, "Device shutdown incomplete") and the new
  // kernel probes the controller anyway: the OS's probe is ok, the trial is not. Before, the
  // release's failure was dropped: "3 ok".
  const std::string out = "/tmp/nvmesim-test-kexec-fail-" + std::to_string(::getpid()) + ".jsonl";
  const auto r = test::run_capture("run " + std::string(NVMESIM_SOURCE_DIR) + "/scenarios/kexec-5.7.json -n 3 -q --format jsonl "
                                   "--set '/controllers/0/shutdown_latency=\"100s\"' --out " + out);
  REQUIRE(r.status == 0);
  const std::string text = test::slurp(out);
  size_t trials = 0;
  for (size_t at = text.find("{\"record\":\"trial\""); at != std::string::npos; at = text.find("{\"record\":\"trial\"", at + 1)) {
    const std::string line = text.substr(at, text.find('\n', at) - at);
    INFO(line.substr(0, 400));
    CHECK(line.find("\"status\":\"ok\",\"probe_ns\"") == std::string::npos);  // the trial's status is not ok
    CHECK(line.find("\"entry\":\"kexec\",\"status\":\"ok\"") != std::string::npos);  // the new kernel's probe is
    CHECK(line.find("\"release_status\":\"ok\"") == std::string::npos);
    CHECK(line.find("\"release_status\":\"") != std::string::npos);
    ++trials;
  }
  CHECK(trials == 3);
  std::remove(out.c_str());
}

TEST_CASE("boot.chain --dmesg: each stage's lines in its own format, Linux's init line at its stage's start",
          "[chain][process]") {
  // edk2-linux-aws: EDK2's console lines carry no timestamp; Linux's init line is printed at the
  // Linux stage's start (after EDK2 and the 1 s gap), so `nvmesim dmesg` reads the OS's probe:
  // 5.6 p50 217 ms +- 5 % (the seed case), not EDK2 + gap + probe (~1.22 s, as before).
  const std::string d = "/tmp/nvmesim-test-chain-dmesg-" + std::to_string(::getpid());
  const auto r = test::run_capture("run " + std::string(NVMESIM_SOURCE_DIR) + "/scenarios/edk2-linux-aws.json -n 20 -q --dmesg " +
                                   d + ".txt --out " + d + ".json");
  REQUIRE(r.status == 0);
  const std::string log = test::slurp(d + ".txt");
  // The Linux stage's init line: at boot.probe_start_s (0.537088 s, the seed log's nvme_init)
  // + EDK2's stage (2.7-3.8 ms) + the 1000 ms gap = 1.5398-1.5409 s; before, it was at 0.537088.
  const size_t init = log.find("] initcall nvme_init");
  REQUIRE(init != std::string::npos);
  const double init_s = std::stod(log.substr(log.rfind('[', init) + 1));
  CHECK(init_s > 1.5397);
  CHECK(init_s < 1.5410);
  CHECK(log.find("[    0.537088] initcall nvme_init") == std::string::npos);
  // EDK2's lines carry no printk time.
  CHECK(log.find("\nNvmExpressDriverBindingStart: start\n") != std::string::npos);
  const auto m = test::run_capture("dmesg " + d + ".txt --out " + d + ".dm.json");
  REQUIRE(m.status == 0);
  const auto j = nlohmann::json::parse(test::slurp(d + ".dm.json"));
  INFO(j.dump().substr(0, 800));
  bool seen = false;
  for (const auto& v : j["sources"][0]["variants"]) {
    if (v["variant"] != "5.6 msleep(100)") continue;
    const double p50 = v["summary"]["p50"].get<double>();
    CHECK(p50 > 217.242 * 0.95);
    CHECK(p50 < 217.242 * 1.05);
    seen = true;
  }
  CHECK(seen);
  for (const char* ext : {".txt", ".json", ".dm.json"}) std::remove((d + ext).c_str());
}

TEST_CASE("boot.chain: a freebsd stage without hz takes host's hz when host is freebsd too", "[chain][scenario]") {
  // The rule (docs/hosts.md, "Boot chain"): a key the stage leaves out has host's value. The
  // freebsd table's finish gave such a stage kern.hz 1000 whatever host said.
  const Scenario s = load_scenario_text(R"({"schema": "nvmesim.scenario/1", "host": {"driver": "freebsd", "release": "older", "hz": 100},
      "controllers": [{}], "boot": {"chain": [{"driver": "edk2"}, {"driver": "freebsd"}]}})", "s.json");
  REQUIRE(s.variants.at(0).chain.size() == 2);
  CHECK(s.variants[0].chain[1].host.timers.hz == 100);
  CHECK(s.variants[0].chain[1].host.driver_release == "older");
  // With host on another driver (Linux by default), FreeBSD's own default (1000), not Linux's
  // CONFIG_HZ (250)...
  const Scenario l = load_scenario_text(R"({"schema": "nvmesim.scenario/1", "host": {},
      "controllers": [{}], "boot": {"chain": [{"driver": "edk2"}, {"driver": "freebsd"}]}})", "l.json");
  CHECK(l.variants.at(0).chain[1].host.timers.hz == 1000);
  // ... and a host hz there, which no stage reads (EDK2 has no HZ, FreeBSD takes host's only
  // when host is FreeBSD), is refused rather than ignored (this stop: a file's host key that no
  // stage reads ran as if never written).
  CHECK_THROWS_WITH(load_scenario_text(R"({"schema": "nvmesim.scenario/1", "host": {"hz": 250},
      "controllers": [{}], "boot": {"chain": [{"driver": "edk2"}, {"driver": "freebsd"}]}})", "h.json"),
                    Catch::StartsWith("h.json: /host/hz: the boot.chain's stages override host.hz: no stage's driver reads it"));
}

namespace {
// The message of loading `text` (with --set `sets`), or "" when it loads.
std::string chain_load_error(const std::string& text, const std::vector<std::string>& sets = {}) {
  LoadOptions lo;
  for (const std::string& s : sets) lo.sets.push_back(parse_set(s));
  try {
    (void)load_scenario_text(text, "c.json", lo);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
// EDK2, then Linux naming its kernel: every stage names its driver, the Linux stage its kernel.
const char* kNamedChain = R"({"schema": "nvmesim.scenario/1", "host": {}, "controllers": [{}],
    "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux", "kernel": "5.7"}]}, "variants": [{"name": "a"}, VARIANT]})";
std::string with_variant(const std::string& variant) {
  std::string s = kNamedChain;
  return s.replace(s.find("VARIANT"), 7, variant);
}
}  // namespace

TEST_CASE("boot.chain: a variant's host key that every stage overrides is refused at the variant's entry",
          "[chain][scenario]") {
  // Issue 13: a variant's /host/driver (or /host/kernel) under a chain whose every stage names
  // its own ran as if never written. Refused at the variant's patch or set entry.
  CHECK(chain_load_error(with_variant(R"({"name": "b", "patch": {"host": {"driver": "uboot"}}})")) ==
        "c.json: /variants/1/patch/host/driver: the boot.chain's stages override host.driver: every stage sets it "
        "itself (/boot/chain/0/driver, /boot/chain/1/driver), so this change would be ignored; change the stages "
        "instead (docs/hosts.md, \"Boot chain\")");
  CHECK_THAT(chain_load_error(with_variant(R"({"name": "b", "set": {"/host/kernel": "5.6"}})")),
             Catch::StartsWith("c.json: /variants/1/set/~1host~1kernel: the boot.chain's stages override host.kernel: "
                               "the stages that read it set it themselves (/boot/chain/1/kernel)"));
  // host.overrides: the Linux stage sets kernel, which selects its row afresh (docs/hosts.md).
  CHECK_THAT(chain_load_error(with_variant(R"x({"name": "b", "patch": {"host": {"overrides": {"poll": "msleep(100)"}}}})x")),
             Catch::StartsWith("c.json: /variants/1/patch/host/overrides: the boot.chain's stages override host.overrides"));
  // A whole /host object set: each of its keys.
  CHECK_THAT(chain_load_error(with_variant(R"({"name": "b", "set": {"/host": {"kernel": "5.6"}}})")),
             Catch::StartsWith("c.json: /variants/1/set/~1host/kernel: the boot.chain's stages override host.kernel"));
  // A stage that leaves the key out reads host's: the variant's kernel reaches Linux's stage.
  const Scenario ok = load_scenario_text(R"({"schema": "nvmesim.scenario/1", "host": {}, "controllers": [{}],
      "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux"}]},
      "variants": [{"name": "a"}, {"name": "b", "set": {"/host/kernel": "5.6"}}]})",
                                         "c.json");
  CHECK(ok.variants.at(1).chain.at(1).host.kernel.to_string() == "5.6");
  // host.driver "freebsd" does reach a Linux stage without hz: host's kern.hz default is 1000
  // (Linux's CONFIG_HZ default 250), and the stage meets host's hz.
  const Scenario fb = load_scenario_text(with_variant(R"({"name": "b", "patch": {"host": {"driver": "freebsd"}}})"), "c.json");
  CHECK(fb.variants.at(1).chain.at(1).host.timers.hz == 1000);
  CHECK(fb.variants.at(0).chain.at(1).host.timers.hz == 250);
  // Judged per variant: the shipped qemu-seabios.json's base host.driver serves the variants
  // without a chain, and a variant that changes host.driver without a chain is fine.
  CHECK_NOTHROW(load_scenario_file(std::string(NVMESIM_SOURCE_DIR) + "/scenarios/qemu-seabios.json"));
}

TEST_CASE("boot.chain: a --set of a host key that no stage reads is refused naming the option", "[chain][scenario]") {
  const std::string one = R"({"schema": "nvmesim.scenario/1", "host": {}, "controllers": [{}],
      "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux", "kernel": "5.7"}]}})";
  CHECK(chain_load_error(one, {"/host/kernel=\"5.6\""}) ==
        "c.json: --set /host/kernel: the boot.chain's stages override host.kernel: the stages that read it set it "
        "themselves (/boot/chain/1/kernel), so this change would be ignored; change the stages instead "
        "(docs/hosts.md, \"Boot chain\")");
  CHECK_THAT(chain_load_error(one, {"/host/driver=\"uboot\""}), Catch::StartsWith("c.json: --set /host/driver: "));
  // A key some stage reads is fine (hz: Linux's stage leaves it out).
  CHECK(chain_load_error(one, {"/host/hz=1000"}).empty());
  // With variants: refused only when no variant's chain reads it; a variant without a chain does.
  const std::string two = R"({"schema": "nvmesim.scenario/1", "host": {}, "controllers": [{}],
      "variants": [{"name": "chain", "patch": {"boot": {"chain": [{"driver": "edk2"}, {"driver": "linux", "kernel": "5.7"}]}}},
                   {"name": "plain"}]})";
  CHECK(chain_load_error(two, {"/host/kernel=\"5.6\""}).empty());
  const std::string both = R"({"schema": "nvmesim.scenario/1", "host": {}, "controllers": [{}],
      "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux", "kernel": "5.7"}]},
      "variants": [{"name": "a"}, {"name": "b", "set": {"/boot/chain/1/kernel": "5.6"}}]})";
  CHECK_THAT(chain_load_error(both, {"/host/kernel=\"6.6\""}),
             Catch::StartsWith("c.json: --set /host/kernel: in every variant the boot.chain's stages override host.kernel"));
}

TEST_CASE("boot.chain: a file's host key that no variant's chain reads is refused at /host", "[chain][scenario]") {
  // Attack of stop 25: with variants the file-level check was skipped, so a base kernel that the
  // only variant's chain overrides ran as if never written.
  const std::string unread = R"({"schema": "nvmesim.scenario/1", "host": {"kernel": "5.6"}, "controllers": [{}],
      "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux", "kernel": "5.7"}]}, "variants": [{"name": "only"}]})";
  CHECK_THAT(chain_load_error(unread),
             Catch::StartsWith("c.json: /host/kernel: no variant reads it (each sets it itself or runs a chain that does not); in variant "
                               "\"only\" (/variants/0; its chain resolved) the boot.chain's stages override host.kernel: "
                               "the stages that read it set it themselves (/boot/chain/1/kernel)"));
  // An empty variant name (review of stop 25: "" read as "no variant" in --dmesg's markers).
  CHECK_THAT(chain_load_error(R"({"schema": "nvmesim.scenario/1", "controllers": [{}], "variants": [{"name": ""}]})"),
             Catch::StartsWith("c.json: /variants/0/name: is empty; a variant needs a name"));
  // Read by one variant (the one without a chain): fine.
  const std::string one_reads = R"({"schema": "nvmesim.scenario/1", "host": {"kernel": "5.6"}, "controllers": [{}],
      "variants": [{"name": "chain", "patch": {"boot": {"chain": [{"driver": "edk2"}, {"driver": "linux", "kernel": "5.7"}]}}},
                   {"name": "plain"}]})";
  CHECK(chain_load_error(one_reads).empty());
  // Overridden by every variant: the usual base value that each variant replaces, not refused.
  const std::string all_name = R"({"schema": "nvmesim.scenario/1", "host": {"kernel": "5.6"}, "controllers": [{}],
      "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux"}]},
      "variants": [{"name": "a", "patch": {"host": {"kernel": "5.7"}}}, {"name": "b", "set": {"/host/kernel": "6.1"}}]})";
  CHECK(chain_load_error(all_name).empty());
}

TEST_CASE("boot.chain: a stage's key is named at its stage, not at /host", "[chain][scenario]") {
  // Issue 13: the I/O-queue budget check named /host/max_events_per_trial for the Linux stage's
  // own limit. 64 queue pairs x 4 doorbell writes = 256 > 100.
  CHECK_THAT(chain_load_error(R"({"schema": "nvmesim.scenario/1", "controllers": [{"io_queues": 64}],
      "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux", "kernel": "5.7", "max_events_per_trial": 100}]}})"),
             Catch::StartsWith("c.json: /boot/chain/1/max_events_per_trial: variant \"base\": a trial whose probes "
                               "succeed makes at least 256 MMIO accesses"));
  // A FreeBSD stage's hz is judged by FreeBSD's list (the stage names the driver after hz).
  CHECK(chain_load_error(R"({"schema": "nvmesim.scenario/1", "controllers": [{}],
      "boot": {"chain": [{"driver": "edk2"}, {"hz": "1000", "driver": "freebsd"}]}})") ==
        "c.json: /boot/chain/1/hz: FreeBSD's kern.hz must be 100 or 1000, not the string \"1000\"");
}

TEST_CASE("boot.chain: the timeline's and the trace's dmesg lines are in each stage's format", "[chain][process]") {
  // Issue 13: only --dmesg was per stage; the timeline and the trace printed EDK2's console
  // lines with Linux's printk time (the last stage's format). edk2-linux-aws, trial 0: EDK2's
  // `NvmExpressDriverBindingStart: start` bare, Linux's `nvme nvme0: pci function ...` after
  // "[    1.5" (boot.probe_start_s 0.537088 + EDK2's stage + the 1 s gap).
  const std::string d = "/tmp/nvmesim-test-chain-lines-" + std::to_string(::getpid());
  REQUIRE(test::run_nvmesim("run " + std::string(NVMESIM_SOURCE_DIR) + "/scenarios/edk2-linux-aws.json -n 1 -q --out " + d +
                            ".json --trace " + d + ".trace.json") == 0);
  const nlohmann::json tl = nlohmann::json::parse(test::slurp(d + ".json"));
  const auto& lines = tl["variants"][0]["trials"][0]["dmesg"];
  REQUIRE(lines.is_array());
  bool edk2 = false, linux_line = false;
  for (const auto& l : lines) {
    const std::string s = l.get<std::string>();
    if (s.find("NvmExpressDriverBindingStart: start") != std::string::npos) {
      CHECK(s == "NvmExpressDriverBindingStart: start");
      edk2 = true;
    }
    if (s.find("nvme nvme0: pci function") != std::string::npos) {
      CHECK(s.rfind("[    1.5", 0) == 0);
      linux_line = true;
    }
  }
  CHECK(edk2);
  CHECK(linux_line);
  const nlohmann::json tr = nlohmann::json::parse(test::slurp(d + ".trace.json"));
  bool traced = false;
  for (const auto& e : tr["traceEvents"])
    if (e.value("cat", "") == "dmesg" && e["name"] == "NvmExpressDriverBindingStart: start" && !traced) {
      CHECK(e["args"]["line"] == "NvmExpressDriverBindingStart: start");
      traced = true;
    }
  CHECK(traced);
  std::remove((d + ".json").c_str());
  std::remove((d + ".trace.json").c_str());
}
