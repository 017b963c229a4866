// Honest summaries (issue 10 items 4 and 5): no zero that was not measured, outcomes apart, and
// what each variant actually ran. The statistics tests feed VariantStats/RunStats by hand (no
// SystemC); the process tests run the nvmesim binary.
#include <catch2/catch.hpp>

#include "core/version.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "engine/variant_stats.hpp"
#include "outputs/report.hpp"
#include "outputs/table.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nvmesim::test::slurp;

namespace {

const std::string kSrc = NVMESIM_SOURCE_DIR;

int shell(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

nvmesim::TrialResult result(nvmesim::ProbeStatus st, int64_t probe_ms, const nvmesim::Recorder& rec) {
  nvmesim::TrialResult r;
  r.status = st;
  r.probe_status = st;  // a failure of the probe itself
  r.probe_ps = probe_ms * 1'000'000'000;
  r.critical_path_ps = r.probe_ps;
  r.recorder = &rec;
  return r;
}

}  // namespace

TEST_CASE("summaries: probe over the ok trials, time to failure over the failed ones, pairs counted", "[summaries]") {
  using nvmesim::ProbeStatus;
  nvmesim::Scenario sc;
  sc.trials = 3;
  sc.variants.resize(2);
  sc.variants[0].name = "base";
  sc.variants[1].name = "other";
  nvmesim::Recorder rec;
  nvmesim::RunStats stats(2);
  // Baseline: ok 10 ms, ok 20 ms, ok 30 ms. Other: ok 16 ms, enodev after 5 ms, ok 27 ms.
  const ProbeStatus base_st[] = {ProbeStatus::ok, ProbeStatus::ok, ProbeStatus::ok};
  const int64_t base_ms[] = {10, 20, 30};
  const ProbeStatus other_st[] = {ProbeStatus::ok, ProbeStatus::enodev, ProbeStatus::ok};
  const int64_t other_ms[] = {16, 5, 27};
  for (size_t v = 0; v < 2; ++v)
    for (uint64_t k = 0; k < 3; ++k) {
      nvmesim::TrialRequest req;
      req.variant = &sc.variants[v];
      req.variant_index = v;
      req.trial = k;
      stats.add(req, v == 0 ? result(base_st[k], base_ms[k], rec) : result(other_st[k], other_ms[k], rec));
    }
  const nvmesim::VariantReport r = stats.report(1, sc.variants[1]);
  CHECK(r.trials == 3);
  // probe over the 2 ok trials: (16 + 27) / 2 = 21.5 ms, min 16, max 27 (on fc661df: 3 trials, mean 16).
  CHECK(r.probe_ms.count == 2);
  CHECK(r.probe_ms.mean == Approx(21.5));
  CHECK(r.probe_ms.min == Approx(16.0));
  CHECK(r.probe_ms.max == Approx(27.0));
  CHECK(r.time_to_failure_ms.count == 1);
  CHECK(r.time_to_failure_ms.max == Approx(5.0));
  // Pairs: trials 0 and 2 (trial 1 failed in "other"): 16 - 10 = +6, 27 - 30 = -3; mean +1.5.
  const auto paired = stats.paired(sc);
  REQUIRE(paired.size() == 1);
  CHECK(paired[0].delta_ms.count == 2);
  CHECK(paired[0].trials == 3);
  CHECK(paired[0].delta_ms.mean == Approx(1.5));
  const auto pj = nvmesim::paired_json(paired[0]);
  CHECK(pj["pairs"] == 2);
  CHECK(pj["delta_ms"]["count"] == 2);
  const auto sj = nvmesim::summary_json(r);
  CHECK(sj["trials"] == 3);
  CHECK(sj["probe_ms"]["count"] == 2);
  CHECK(sj["time_to_failure_ms"]["count"] == 1);
  // The baseline failed nowhere: no time to failure, and JSON says null, not zeros.
  CHECK(nvmesim::summary_json(stats.report(0, sc.variants[0]))["time_to_failure_ms"].is_null());
}

TEST_CASE("summaries: a paired delta over 0 pairs is n/a and null, never +0.000", "[summaries]") {
  nvmesim::PairedReport p;
  p.variant = "6.3";
  p.baseline = "6.1";
  p.trials = 20;  // delta_ms.count 0: no trial succeeded in both
  const auto j = nvmesim::paired_json(p);
  CHECK(j["pairs"] == 0);
  CHECK(j["delta_ms"].is_null());
}

TEST_CASE("run crto-bogus: 6.3's failures are failures, its pairs n/a (issue 10 item 4)", "[summaries][process]") {
  const fs::path d = fs::current_path() / "summaries_crto";
  fs::remove_all(d);
  fs::create_directories(d);
  const std::string table = (d / "table.txt").string(), json = (d / "t.json").string();
  REQUIRE(shell(std::string(NVMESIM_BINARY) + " run " + kSrc + "/scenarios/crto-bogus.json --detail-trials 0 --out '" +
                json + "' > '" + table + "'") == 0);
  const std::string t = slurp(table);
  // 6.3 takes CRTO.CRWMT = 0 instead of CAP.TO (reference section 2, 5.19 - 6.5): every one of its 20
  // trials fails with -ENODEV, so no trial succeeded in both 6.3 and 6.1.
  CHECK(t.find("paired probe delta 6.3 - 6.1 (0 of 20 trials whose probes succeeded in both): n/a (no trial's probe succeeded in both)\n") !=
        std::string::npos);
  CHECK(t.find("paired probe delta 6.6 - 6.1 (20 of 20 trials whose probes succeeded in both):\n") != std::string::npos);
  // (6.1.y with the max rule - 6.1 is +0.000 over 20 real pairs: the same release rules.)
  CHECK(t.find("paired probe delta 6.1.y with the max rule - 6.1 (20 of 20 trials whose probes succeeded in both):\n  p50 +0.000 ms") !=
        std::string::npos);
  // The 6.3 row: 0 ok, 20 failed, no probe percentile (n/a), its time to failure in its own columns.
  const size_t row = t.find("\n6.3 ");
  REQUIRE(row != std::string::npos);
  const std::string line = t.substr(row + 1, t.find('\n', row + 1) - row - 1);
  CHECK(line.find(" 0       20        n/a        n/a        n/a        n/a ") != std::string::npos);
  const auto j = nlohmann::json::parse(slurp(json));
  const auto& s = j["variants"][1]["summary"];
  CHECK(s["trials"] == 20);
  CHECK(s["probe_ms"].is_null());
  CHECK(s["critical_path_ms"].is_null());
  CHECK(s["time_to_failure_ms"]["count"] == 20);
  CHECK(j["paired"][0]["pairs"] == 0);
  CHECK(j["paired"][0]["delta_ms"].is_null());
  CHECK(j["paired"][1]["pairs"] == 20);
  fs::remove_all(d);
}

TEST_CASE("run: the table and the summary show what each variant ran (issue 10 item 5)", "[summaries][process]") {
  const fs::path d = fs::current_path() / "summaries_ran";
  fs::remove_all(d);
  fs::create_directories(d);
  // A variant named "5.7" that runs 6.6 (the patch says so), at HZ 1000.
  std::ofstream(d / "s.json") << R"({"schema": "nvmesim.scenario/1", "name": "ran", "trials": 1,
    "host": {"kernel": "5.6", "hz": 1000},
    "controllers": [{"pci_id": "1d0f:8061", "cap": {"to": 30}, "enable_latency": "5ms"}],
    "variants": [{"name": "5.6", "patch": {}}, {"name": "5.7", "patch": {"host": {"kernel": "6.6"}}}]})";
  const std::string table = (d / "table.txt").string(), json = (d / "t.json").string();
  REQUIRE(shell(std::string(NVMESIM_BINARY) + " run '" + (d / "s.json").string() + "' --out '" + json + "' > '" +
                table + "'") == 0);
  const auto j = nlohmann::json::parse(slurp(json));
  // Reference (linux-readiness.md section 2, with section 6's 6.9 message change): 6.6 is in the row 6.6 - 6.8 and polls with
  // usleep_range(1000, 2000); 5.6 polls with msleep(100), the row up to 5.6.
  const auto& ran57 = j["variants"][1]["summary"]["ran"];
  CHECK(ran57["kernel"] == "6.6");
  CHECK(ran57["profile"] == "6.6-6.8");
  CHECK(ran57["poll_sleep"] == "usleep_range(1000, 2000)");
  CHECK(ran57["hz"] == 1000);
  const auto& ran56 = j["variants"][0]["summary"]["ran"];
  CHECK(ran56["kernel"] == "5.6");
  CHECK(ran56["poll_sleep"] == "msleep(100)");
  CHECK(ran56["profile"].get<std::string>().size() >= 3);
  CHECK(ran56["profile"].get<std::string>().substr(ran56["profile"].get<std::string>().size() - 3) == "5.6");
  const std::string t = slurp(table);
  const size_t row = t.find("\n5.7 ");
  REQUIRE(row != std::string::npos);
  const std::string line = t.substr(row + 1, t.find('\n', row + 1) - row - 1);
  CHECK(line.find("  6.6      6.6-6.8     1000  usleep_range(1000, 2000)") != std::string::npos);
  fs::remove_all(d);
}

TEST_CASE("run: the table's header lists the --set patches it ran with", "[summaries][process]") {
  // Left finding of stop 29: a table made with --set looked like the file's own.
  const fs::path d = fs::current_path() / "summaries_sets";
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "s.json") << R"({"schema": "nvmesim.scenario/1", "name": "sets", "trials": 1,
    "host": {"kernel": "5.6"}, "controllers": [{"enable_latency": "5ms"}]})";
  const std::string plain = (d / "plain.txt").string(), patched = (d / "patched.txt").string();
  REQUIRE(shell(std::string(NVMESIM_BINARY) + " run '" + (d / "s.json").string() + "' > '" + plain + "'") == 0);
  REQUIRE(shell(std::string(NVMESIM_BINARY) + " run '" + (d / "s.json").string() +
                "' --set /host/hz=1000 --set '/controllers/0/name=Disk 2' > '" + patched + "'") == 0);
  // The header line, then one line per --set in order, VALUE as the user wrote it (the name
  // unquoted, as typed; the attack of stop 31: JSON wrote 1e3 back as 1000.0), then the blank
  // line before the columns.
  CHECK(slurp(plain).rfind("nvmesim " + std::string(nvmesim::kVersion) + ": sets, 1 trial per variant, seed 1\n\nvariant ", 0) == 0);
  CHECK(slurp(patched).rfind("nvmesim " + std::string(nvmesim::kVersion) + ": sets, 1 trial per variant, seed 1\n"
                             "  --set /host/hz=1000\n"
                             "  --set /controllers/0/name=Disk 2\n\nvariant ", 0) == 0);
  // A long value is cut at 200 bytes, never inside a UTF-8 character (stop 30's attack printed a
  // --set of any size whole). "/description=" is 13 bytes, then "xx" (13-14), then 150 x "é" (C3 A9
  // at bytes 15-16, ..., 313-314): 315 bytes. Byte 200 is an A9 ((200 - 15) is odd), so the cut
  // is at 199: "xx" and 92 "é" shown, 315 - 199 = 116 bytes left out.
  std::string e150;
  for (int i = 0; i < 150; ++i) e150 += "\xC3\xA9";
  const std::string longer = (d / "long.txt").string();
  REQUIRE(shell(std::string(NVMESIM_BINARY) + " run '" + (d / "s.json").string() + "' --set '/description=xx" + e150 +
                "' > '" + longer + "'") == 0);
  std::string e92;
  for (int i = 0; i < 92; ++i) e92 += "\xC3\xA9";
  CHECK(slurp(longer).rfind("nvmesim " + std::string(nvmesim::kVersion) + ": sets, 1 trial per variant, seed 1\n"
                            "  --set /description=xx" + e92 +
                            "... (116 more bytes; the JSON output's \"scenario\" holds the value whole)\n\nvariant ", 0) == 0);
  // The bound: "/description=" (13 bytes) and 187 'b' make 200 bytes, shown whole; 188 make 201,
  // cut at 200 with 1 byte left out.
  for (const size_t bs : {size_t{187}, size_t{188}}) {
    const std::string at_bound = (d / ("bound" + std::to_string(bs) + ".txt")).string();
    REQUIRE(shell(std::string(NVMESIM_BINARY) + " run '" + (d / "s.json").string() + "' --set '/description=" +
                  std::string(bs, 'b') + "' > '" + at_bound + "'") == 0);
    CHECK(slurp(at_bound).rfind("nvmesim " + std::string(nvmesim::kVersion) + ": sets, 1 trial per variant, seed 1\n"
                                "  --set /description=" + std::string(187, 'b') +
                                (bs == 187 ? "\n\nvariant "
                                           : "... (1 more byte; the JSON output's \"scenario\" holds the value whole)\n\nvariant "),
                                0) == 0);
  }
  // Nor inside a JSON escape the user wrote: '/description="' is 14 bytes, 184 x 'a' (14-197),
  // then \u0001 at 198-203 and '"' at 204: 205 bytes. The cut at 200 would split the escape, so it
  // is at 198: 205 - 198 = 7 bytes left out (the attack of stop 31 got "...aaaa\u0...").
  const std::string escaped = (d / "escaped.txt").string();
  REQUIRE(shell(std::string(NVMESIM_BINARY) + " run '" + (d / "s.json").string() + "' --set '/description=\"" +
                std::string(184, 'a') + "\\u0001\"' > '" + escaped + "'") == 0);
  CHECK(slurp(escaped).rfind("nvmesim " + std::string(nvmesim::kVersion) + ": sets, 1 trial per variant, seed 1\n"
                             "  --set /description=\"" + std::string(184, 'a') +
                             "... (7 more bytes; the JSON output's \"scenario\" holds the value whole)\n\nvariant ", 0) == 0);
  fs::remove_all(d);
}

TEST_CASE("run shutdown-timeout: a shutdown that times out leaves its probe counted - its failure time is the shutdown's", "[summaries][process]") {
  const fs::path d = fs::current_path() / "summaries_shutdown";
  fs::remove_all(d);
  fs::create_directories(d);
  const std::string json = (d / "t.json").string();
  REQUIRE(shell(std::string(NVMESIM_BINARY) + " run " + kSrc + "/scenarios/shutdown-timeout.json -q --detail-trials 0 --out '" +
                json + "'") == 0);
  const auto j = nlohmann::json::parse(slurp(json));
  // Variant 1, "6.1 no RTD3E": the probe succeeds (init_to_probe 1 ms + enable 2 ms + admin, ~3.3 ms);
  // the shutdown then waits shutdown_timeout = 5 s (no RTD3E) for a 7 s shutdown and gives up:
  // every trial fails, none in its probe.
  const auto& s = j["variants"][1]["summary"];
  CHECK(s["trials"] == 5);
  CHECK(s["probe_ms"]["count"] == 5);
  CHECK(s["probe_ms"]["p50"].get<double>() > 3.0);
  CHECK(s["probe_ms"]["p50"].get<double>() < 4.0);
  CHECK(s["critical_path_ms"].is_null());
  // Time to failure: driver init (t = 0) to the shutdown giving up: the probe (~3.3 ms) plus 5 s
  // of 6.1's msleep(100) loop bounded by 5 * HZ jiffies, ending within one poll (100 ms + a tick)
  // after the deadline: in (5003, 5110) ms. The probe's own 3.3 ms would be the old, wrong figure.
  CHECK(s["time_to_failure_ms"]["count"] == 5);
  CHECK(s["time_to_failure_ms"]["p50"].get<double>() > 5003.0);
  CHECK(s["time_to_failure_ms"]["p50"].get<double>() < 5110.0);
  // The pairs are over the probes: both variants' probes succeed in all 5 trials.
  CHECK(j["paired"][0]["pairs"] == 5);
}
