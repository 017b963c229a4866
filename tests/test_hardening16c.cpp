// Issue 16, the items an attack found left after the first round (brief hard16c): control
// characters in error messages, `merge` of one folder twice, the exit status of a held sweep
// folder, sidecar files and hand-edited manifests on --resume and merge, the operation budget of
// failing probes, and the time-limit message of decoupled hosts. Each case failed on main at
// 6480db5. Process tests: they run the nvmesim binary.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "support.hpp"
#include "sweep/sweep.hpp"

namespace fs = std::filesystem;

using nvmesim::test::run_capture;
using nvmesim::test::slurp;
using nvmesim::test::spit;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path d = fs::current_path() / ("hardening16c_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// A sweep of `points` seeds over a one-controller scenario, `trials` trials per point, in `d`.
std::string seed_sweep(const fs::path& d, int points, int trials) {
  std::string seeds;
  for (int i = 0; i < points; ++i) seeds += (i ? "," : "") + std::to_string(i);
  const std::string path = (d / "s.sweep.json").string();
  spit(path, R"({"schema": "nvmesim.sweep/1", "name": "s", "trials": )" + std::to_string(trials) +
                 R"(, "scenario": {"schema": "nvmesim.scenario/1", "host": {"kernel": "5.7", "hz": 250},
                 "controllers": [{"enable_latency": {"dist": "uniform", "min": "1ms", "max": "3ms"}}]},
                 "grid": {"/seed": [)" + seeds + "]}}");
  return path;
}

/// Whether `text` holds a byte below 0x20 other than the newline, or DEL.
bool has_raw_control(const std::string& text) {
  for (const char c : text)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

}  // namespace

// A file name with ESC and a newline, an unknown key with ESC and a variant name with a newline
// each reach stderr escaped as terminal_text writes them (ESC = \x1b, LF = \x0a), and the error
// stays one line: "nvmesim: error: " once, then nothing but the final newline.
TEST_CASE("item 1: control characters of names, keys and file names are escaped in error messages", "[issue16c]") {
  const fs::path d = scratch("ctl");
  const std::string bad_name = (d / "a\x1b[31mred\nforged.json").string();
  spit(bad_name, R"({"schema":"nvmesim.scenario/1","trials":0,"controllers":[{}]})");
  auto r = run_capture("validate '" + bad_name + "'");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_FALSE(has_raw_control(r.err));
  CHECK(r.err.find("a\\x1b[31mred\\x0aforged.json") != std::string::npos);
  CHECK(r.err.find('\n') == r.err.size() - 1);

  const std::string key = (d / "key.json").string();
  spit(key, "{\"schema\":\"nvmesim.scenario/1\",\"controllers\":[{\"\\u001b[2Jx\":1}]}");
  r = run_capture("run " + key + " -q");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_FALSE(has_raw_control(r.err));
  CHECK(r.err.find("\\x1b[2Jx") != std::string::npos);

  const std::string variant = (d / "variant.json").string();
  // host.max_events_per_trial 1 is below the 8 doorbell writes of one controller's probe: the
  // error names the variant.
  spit(variant, "{\"schema\":\"nvmesim.scenario/1\",\"host\":{\"max_events_per_trial\":1},\"controllers\":[{}],"
                "\"variants\":[{\"name\":\"v\\nnvmesim: ok\"}]}");
  r = run_capture("run " + variant + " -q");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("v\\x0anvmesim: ok") != std::string::npos);
  CHECK(r.err.find('\n') == r.err.size() - 1);
}

// The same folder twice, by the same name, by "DIR/." and by a symbolic link: exit 2 naming both
// arguments (on main: exit 0, one shard merged with itself). One folder alone merges (exit 0).
TEST_CASE("item 2: merge refuses a folder given twice, also by another path", "[issue16c][sweep]") {
  const fs::path d = scratch("twice");
  const std::string sw = seed_sweep(d, 2, 1);
  const std::string m0 = (d / "m0").string();
  REQUIRE(run_capture("sweep " + sw + " --out " + m0 + " -q -j 1").status == 0);
  fs::create_directory_symlink(m0, d / "link");
  const std::string out = (d / "sum.json").string();
  for (const std::string& again : {m0, m0 + "/.", (d / "link").string()}) {
    const auto r = run_capture("merge " + m0 + " " + again + " --out " + out);
    INFO(again << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("merge " + m0 + " and " + again + ": are the same sweep folder (arguments 1 and 2)") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
  // Two folders whose manifest.json is one file (a hard link): the same manifest.
  fs::create_directories(d / "m1");
  fs::create_hard_link(d / "m0" / "manifest.json", d / "m1" / "manifest.json");
  auto r = run_capture("merge " + m0 + " " + (d / "m1").string() + " --out " + out);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("hold the same manifest.json (arguments 1 and 2)") != std::string::npos);
  r = run_capture("merge " + m0 + " --out " + out);
  INFO(r.err);
  CHECK(r.status == 0);
}

// A folder whose lock another process holds (this test takes it as a running sweep does: flock
// on the folder): the second sweep is refused with exit 2, a usage error (on main: exit 3).
TEST_CASE("item 3: a sweep on a folder another sweep holds exits 2", "[issue16c][sweep]") {
  const fs::path d = scratch("lock");
  const std::string sw = seed_sweep(d, 1, 1);
  const fs::path held = d / "held";
  fs::create_directories(held);
  const int fd = ::open(held.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  const auto r = run_capture("sweep " + sw + " --out " + held.string() + " -q -j 1");
  ::close(fd);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(held.string() + ": in use by another 'nvmesim sweep'") != std::string::npos);
  CHECK_FALSE(fs::exists(held / "manifest.json"));
}

// Two points with --dmesg. Point 0's .dmesg is cut to half its bytes, point 1's replaced by
// another log of the same size; --resume runs both again (on main it kept both: they existed),
// and gives the original bytes back (same scenario and seed). A third --resume keeps both. A
// manifest whose record of a point's outputs is gone (hand-edited, or a sweep killed before it
// wrote the manifest) runs that point again.
TEST_CASE("item 4: --resume checks a point's .dmesg against the manifest's size and hash", "[issue16c][sweep]") {
  const fs::path d = scratch("sidecar");
  const std::string sw = seed_sweep(d, 2, 3);
  const std::string dir = (d / "sw").string();
  REQUIRE(run_capture("sweep " + sw + " --out " + dir + " -q -j 1 --dmesg").status == 0);
  nlohmann::ordered_json m = nlohmann::ordered_json::parse(slurp(dir + "/manifest.json"));
  const std::string id0 = m["points"][0]["id"], id1 = m["points"][1]["id"];
  const std::string log0 = dir + "/points/" + id0 + ".dmesg", log1 = dir + "/points/" + id1 + ".dmesg";
  const std::string orig0 = slurp(log0), orig1 = slurp(log1);
  REQUIRE(orig0.size() > 10);
  CHECK(m["points"][0]["outputs"][id0 + ".dmesg"]["bytes"] == orig0.size());
  spit(log0, orig0.substr(0, orig0.size() / 2));
  spit(log1, std::string(orig1.size(), 'x'));
  auto r = run_capture("sweep " + sw + " --out " + dir + " -j 1 --dmesg --resume");
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.err.find("2 done (0 already complete)") != std::string::npos);
  CHECK(slurp(log0) == orig0);
  CHECK(slurp(log1) == orig1);
  r = run_capture("sweep " + sw + " --out " + dir + " -j 1 --dmesg --resume");
  INFO(r.err);
  CHECK(r.err.find("2 done (2 already complete)") != std::string::npos);
  m = nlohmann::ordered_json::parse(slurp(dir + "/manifest.json"));
  m["points"][1].erase("outputs");
  spit(dir + "/manifest.json", m.dump(2) + "\n");
  r = run_capture("sweep " + sw + " --out " + dir + " -j 1 --dmesg --resume");
  INFO(r.err);
  CHECK(r.err.find("2 done (1 already complete)") != std::string::npos);
  CHECK(slurp(log1) == orig1);
}

// A manifest whose done point says another probe mean than its point file (edited by hand) is
// refused with its pointer (on main: merged as a result, exit 0); so is a done point whose point
// file is gone. The folder as the sweep left it merges (exit 0, tested in item 2).
TEST_CASE("item 5: merge checks a manifest's summaries against the point files", "[issue16c][sweep]") {
  const fs::path d = scratch("edited");
  const std::string sw = seed_sweep(d, 2, 3);
  const std::string dir = (d / "sw").string();
  REQUIRE(run_capture("sweep " + sw + " --out " + dir + " -q -j 1").status == 0);
  const std::string manifest = dir + "/manifest.json", out = (d / "sum.json").string();
  const std::string kept = slurp(manifest);
  nlohmann::ordered_json m = nlohmann::ordered_json::parse(kept);
  m["points"][1]["variants"][0]["summary"]["probe_ms"]["mean"] = 0.001;
  spit(manifest, m.dump(2) + "\n");
  auto r = run_capture("merge " + dir + " --out " + out);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(manifest + ": /points/1: the summary of point 1 differs from that of its point file") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(out));
  spit(manifest, kept);
  const std::string id0 = m["points"][0]["id"];
  fs::rename(dir + "/points/" + id0 + ".jsonl", (d / "moved.jsonl").string());
  r = run_capture("merge " + dir + " --out " + out);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(manifest + ": /points/0: point 0 is done, but its point file") != std::string::npos);
  fs::rename((d / "moved.jsonl").string(), dir + "/points/" + id0 + ".jsonl");
  CHECK(run_capture("merge " + dir + " --out " + out).status == 0);
  // The attack of stop 21: point 0's parameters edited from seed 0 to seed 1 (the axis /seed is
  // [0, 1]) were merged as point 0's, with seed 0's results under seed 1. Its id is left alone.
  m = nlohmann::ordered_json::parse(kept);
  m["points"][0]["parameters"]["/seed"] = 1;
  spit(manifest, m.dump(2) + "\n");
  fs::remove(out);
  r = run_capture("merge " + dir + " --out " + out);
  CHECK(r.status == 2);
  // (Since stop 25 the id, named after the parameters, gives it away first.)
  CHECK(r.err.find(manifest + ": /points/0/id: is not the id of this point's parameters") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  spit(manifest, kept);
}

// host.cpus 64 and io_queues 64: a probe that succeeds creates 64 queue pairs, 4 doorbell writes
// each = 256 MMIO accesses, more than host.max_events_per_trial 100. A controller whose every
// enable ends in CSTS.CFS (cfs_on_enable 1) fails every probe in its enable wait and creates no
// queue: at 4.8 the wait polls CSTS with msleep(100) until CAP.TO 1's 500 ms pass, 10 polls and
// 10 sleeps plus a few register accesses, under 100. That what-if runs (exit 0, every trial
// failed); on main it was refused as if it created 256. The same controller without the fault is still refused,
// and of two controllers one never ready, the other's 256 count.
TEST_CASE("item 6: the operation budget counts no queue pairs for a probe that always fails", "[issue16c][budget]") {
  const fs::path d = scratch("budget");
  auto scenario = [&](const std::string& name, const std::string& controllers) {
    const std::string p = (d / name).string();
    spit(p, R"({"schema":"nvmesim.scenario/1","trials":3,"host":{"kernel":"4.8","cpus":64,"max_events_per_trial":100},)"
            R"("controllers":[)" + controllers + "]}");
    return p;
  };
  const std::string dead = R"({"cap":{"to":1},"io_queues":64,"faults":{"cfs_on_enable":1}})";
  const std::string live = R"({"cap":{"to":1},"io_queues":64,"pci_address":"0000:00:05.0"})";
  const std::string out = (d / "dead.jsonl").string();
  auto r = run_capture("run " + scenario("dead.json", dead) + " -q -o " + out);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(slurp(out).find("\"status\":\"ok\"") == std::string::npos);
  r = run_capture("run " + scenario("live.json", live) + " -q");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("makes at least 256 MMIO accesses (1 controllers,") != std::string::npos);
  r = run_capture("run " + scenario("mixed.json", dead + "," + live) + " -q");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("makes at least 256 MMIO accesses (1 of the 2 controllers (the others' probes always fail") !=
        std::string::npos);
}

// The scenario of test_time_limit.cpp's wait case (trial 10's 900000 s wakeup passes 2^63 ps),
// run decoupled (no waveform: the host's local time runs ahead of SystemC's) and coupled (--vcd:
// every access waited out). The error is one text, time and all: on main the decoupled host
// reported 9000001.055511 s, the coupled one 9000001.055517 s (the host's unsynchronised offset).
TEST_CASE("item 7: the time-limit message is the same for decoupled and coupled hosts", "[issue16c][time]") {
  const fs::path d = scratch("limit");
  const std::string s = (d / "w.json").string();
  spit(s, R"({"schema":"nvmesim.scenario/1","trials":11,"host":{"kernel":"5.6","wakeup_latency":"900000s"},)"
          R"("controllers":[{"cap":{"to":255},"enable_latency":"10s"}]})");
  const auto decoupled = run_capture("run " + s + " -q -o " + (d / "w.jsonl").string());
  const auto coupled = run_capture("run " + s + " -q --vcd " + (d / "w.vcd").string());
  INFO(decoupled.err << coupled.err);
  CHECK(decoupled.status == 2);
  CHECK(coupled.status == 2);
  CHECK(decoupled.err.find("trial 10 of variant \"base\" stopped: the host needed an event after 2^63 ps") !=
        std::string::npos);
  CHECK(decoupled.err == coupled.err);
}

// The attack of stop 21: a file's "trials": "abc" and "seed": -5, or the same through --set, ran
// with exit 0 when --trials and --seed replaced them; validate refuses the same file. The
// options replace valid values only.
TEST_CASE("the trials and seed options do not hide an invalid trials or seed in the file or a set", "[issue16c]") {
  const fs::path d = scratch("trials");
  const std::string f = (d / "tb.json").string();
  spit(f, R"({"schema":"nvmesim.scenario/1","trials":"abc","seed":-5,"controllers":[{}]})");
  auto r = run_capture("run '" + f + "' -q --trials 1 --seed 1");
  CHECK(r.status == 2);
  CHECK(r.err.find("/trials") != std::string::npos);
  const std::string ok = (d / "ok.json").string();
  spit(ok, R"({"schema":"nvmesim.scenario/1","trials":3,"seed":7,"controllers":[{}]})");
  r = run_capture("run '" + ok + "' -q --trials 1 --set '/trials=\"abc\"'");
  CHECK(r.status == 2);
  CHECK(r.err.find("/trials") != std::string::npos);
  r = run_capture("run '" + ok + "' -q --seed 3 --set '/seed=-1'");
  CHECK(r.status == 2);
  CHECK(r.err.find("/seed") != std::string::npos);
  // Valid values are replaced: exit 0.
  r = run_capture("run '" + ok + "' -q --trials 1 --seed 3");
  CHECK(r.status == 0);
}
