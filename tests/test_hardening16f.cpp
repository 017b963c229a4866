// Issue 16, the items still without a test or a fix (part B, branch hard16b): item 4 (the time
// of a 16 MiB file and of a 300k-component mixture), item 7 (a 1000-point sweep over a 1 MB
// base), item 8 (the tables copied per variant: bounded), item 9 (dmesg keeps the intervals as
// sketches), item 11 (--vcd streams SystemC's VCD), and the last attack's merge and error-place
// findings. Speed and memory are asserted as a complexity class with a wide margin (a CPU-time
// limit or a peak resident set several times from both the fixed and the broken behaviour),
// never a tight time; the figures measured are in bench/results.md.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/scenario.hpp"
#include "support.hpp"

namespace fs = std::filesystem;

using nvmesim::test::run_capture;
using nvmesim::test::slurp;
using nvmesim::test::spit;
using ojson = nlohmann::ordered_json;

namespace {

// The peak-RSS bounds below are properties of the program as users run it (the default and
// Release builds): under AddressSanitizer the shadow memory, the redzones and the quarantine of
// freed blocks (up to 256 MB by default) are counted in the same RSS, so a streaming program that
// frees what it read still grows there. The asan suite runs every other check of these tests;
// CI's normal suite runs the bounds.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kRssMeasurable = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kRssMeasurable = false;
#else
constexpr bool kRssMeasurable = true;
#endif
#else
constexpr bool kRssMeasurable = true;
#endif

// CHECKs peak RSS < limit_kib where it means something; says so where it does not.
void check_peak_rss(long peak_rss_kib, long limit_kib) {
  if (kRssMeasurable) {
    CHECK(peak_rss_kib < limit_kib);
  } else {
    WARN("peak RSS " << peak_rss_kib << " KiB not checked against " << limit_kib
                     << " KiB under AddressSanitizer (its shadow and quarantine count in RSS)");
  }
}

fs::path scratch(const std::string& name) {
  const fs::path d = fs::current_path() / ("hardening16f_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// Shell text that limits the CPU time of what follows to `s` seconds (SIGXCPU past it: status
/// 128 + 24 = 152). CPU time, not wall time: the shared machine's load does not move it.
std::string cpu_limit(int s) { return "ulimit -t " + std::to_string(s) + "; "; }

/// `n` copies of `item` joined by commas.
std::string repeat_list(const std::string& item, size_t n) {
  std::string s;
  s.reserve(n * (item.size() + 1));
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ',';
    s += item;
  }
  return s;
}

}  // namespace

// ---- item 4: parsing and reading are linear ------------------------------------------------

// The issue's target: a 16 MiB file validates in under 2 s. bench/results.md measured 1.1-1.3 CPU s
// (Release and the default preset); nlohmann 3.11.2's callback parser, which the SAX builder
// replaced, needed about 2 h for 16 MiB (600 KB took 10 s, quadratic: (16 MiB / 600 KB)^2 x 10 s).
// 20 CPU s is 15x above the fixed figure (room for ASan) and 360x below the broken one.
TEST_CASE("item 4: a 16 MiB scenario validates within 20 CPU seconds", "[issue16f][limits][process]") {
  const fs::path d = scratch("big");
  // An empirical distribution of 2.5 M samples ("1us" .. "9us", 6 bytes each with ", "): 15 MiB,
  // and a description that pads the file to just under the 16 MiB limit.
  std::string samples;
  samples.reserve(size_t{16} << 20);
  for (size_t i = 0; i < 2'500'000; ++i) {
    if (i) samples += ',';
    samples += "\"" + std::to_string(1 + i % 9) + "us\"";
  }
  std::string text = R"({"schema": "nvmesim.scenario/1", "trials": 1, "host": {"kernel": "5.7"}, "controllers": [{"enable_latency": {"dist": "empirical", "samples": [)" +
                     samples + "]}}], \"description\": \"";
  const size_t limit = size_t{16} << 20;
  text += std::string(limit - 100 - text.size(), 'x') + "\"}";
  REQUIRE(text.size() > limit - 120);
  REQUIRE(text.size() <= limit);
  const std::string f = (d / "big.json").string();
  spit(f, text);
  const auto r = run_capture("validate " + f, cpu_limit(20));
  INFO(r.err);
  CHECK(r.status == 0);  // 152 (SIGXCPU) for a parser that is not linear
  fs::remove_all(d);
}

// The issue's other reproducer: a mixture of 300 000 components took 100 s to validate on the
// issue's main. Now 1.2 CPU s (bench/results.md), linear in the components (30k: 0.11 s, 100k:
// 0.35 s, 300k: 1.16 s user). 20 CPU s: 16x above, 5x below the 100 s of the issue.
TEST_CASE("item 4: a 300k-component mixture validates within 20 CPU seconds", "[issue16f][limits][process]") {
  const fs::path d = scratch("mixture");
  std::string comps;
  comps.reserve(300'000 * 40);
  for (size_t i = 0; i < 300'000; ++i) {
    if (i) comps += ',';
    comps += R"({"weight": 1, "latency": ")" + std::to_string(1 + i % 1000) + "us\"}";
  }
  const std::string f = (d / "mix.json").string();
  spit(f, R"({"schema": "nvmesim.scenario/1", "trials": 1, "host": {"kernel": "5.7", "init_to_probe": {"dist": "mixture", "components": [)" +
              comps + "]}}, \"controllers\": [{}]}");
  const auto r = run_capture("validate " + f, cpu_limit(20));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  fs::remove_all(d);
}

// ---- item 7: the points of a sweep are placed into the parsed base ---------------------------

// A 1000-point sweep over a 1 MB base (110 000 empirical samples): 35 s to load on the issue's
// main, which dumped and parsed the base again per point and checked its samples per point;
// 0.23 CPU s now (bench/results.md). 5 CPU s is 20x above that and 7x below the broken loader.
TEST_CASE("item 7: a 1000-point sweep over a 1 MB base loads within 5 CPU seconds", "[issue16f][sweep][process]") {
  const fs::path d = scratch("sweep1000");
  std::string samples;
  for (size_t i = 0; i < 110'000; ++i) {
    if (i) samples += ", ";
    samples += "\"" + std::to_string(100 + i % 5000) + "us\"";
  }
  spit((d / "base.json").string(),
       R"({"schema": "nvmesim.scenario/1", "trials": 1, "host": {"kernel": "5.7"}, "controllers": [{"enable_latency": {"dist": "empirical", "samples": [)" +
           samples + "]}}]}");
  REQUIRE(fs::file_size(d / "base.json") > 1'000'000);
  std::string seeds;
  for (int i = 0; i < 1000; ++i) seeds += (i ? "," : "") + std::to_string(i);
  const std::string sw = (d / "s.json").string();
  spit(sw, R"({"schema": "nvmesim.sweep/1", "base": "base.json", "grid": {"/seed": [)" + seeds + "]}}");
  const auto r = run_capture("validate " + sw, cpu_limit(5));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  fs::remove_all(d);
}

// ---- item 8: the tables a scenario holds are bounded ----------------------------------------

// A table a variant inherits unchanged is the base's: one immutable copy, shared (the stop-23
// brief's case, bench/results.md): 1000 variants over an empirical of 6000 samples (the brief's file
// was 109 KB; this one, each variant setting host.cpus, 92 KB).
// Main at fc584b9 read a copy per variant and stopped at kMaxTableEntries, exit 2 at /variants/698
// (6000 + 699 x 6000 > 2^22); with a copy per variant and no bound it took 70 MB (hard16b's table).
// Shared, the 6000 samples are 48 KB once; measured 14.5 MB peak, 0.95 CPU s (bench/results.md),
// allowed 40 MB.
TEST_CASE("item 8: 1000 variants that inherit a 6000-sample table share it, validate within 40 MB", "[issue16f][process]") {
  const fs::path d = scratch("tables1000");
  std::string samples;
  for (size_t i = 0; i < 6000; ++i) samples += std::string(i ? "," : "") + "\"" + std::to_string(100 + i % 900) + "us\"";
  std::string variants;
  for (int i = 0; i < 1000; ++i)
    variants += std::string(i ? "," : "") + "{\"name\": \"v" + std::to_string(i) + "\", \"set\": {\"/host/cpus\": " +
                std::to_string(1 + i % 64) + "}}";
  const std::string f = (d / "t.json").string();
  spit(f, R"({"schema": "nvmesim.scenario/1", "trials": 1, "host": {"kernel": "5.7"}, "controllers": [{"enable_latency": {"dist": "empirical", "samples": [)" +
              samples + "]}}], \"variants\": [" + variants + "]}");
  REQUIRE(fs::file_size(f) > 90'000);  // 92 KB
  nvmesim::test::SpawnOptions o;
  o.end_within = std::chrono::minutes(2);
  const auto r = nvmesim::test::spawn_nvmesim({"validate", f}, o);
  INFO(r.err);
  CHECK(r.status == 0);
  check_peak_rss(r.peak_rss_kib, 40 * 1000);
  fs::remove_all(d);
}

// Sharing has its own bound, on time: each variant copies the base document (with its tables) to
// apply its patch and compares each inherited table with the base's. 200 variants over 600 000
// samples (a 4.8 MB file) inherit 120 M entries; the load stops past kMaxInheritedTableEntries
// (2^24 = 16 777 216: variants 0-26 inherit 27 x 600 000 = 16.2 M; variant 27's makes 16.8 M),
// exit 2 at that variant. Measured 3.6 CPU s (load 10) and 154 MB peak (bench/results.md); main read a copy
// per variant (178 MB, exit 2 at /variants/5); with neither bound 1.09 GB.
TEST_CASE("item 8: 200 variants inheriting 600 000 samples exit 2 at the inherited bound within 250 MB", "[issue16f][process]") {
  const fs::path d = scratch("tables");
  std::string samples;
  for (size_t i = 0; i < 600'000; ++i) {
    if (i) samples += ',';
    samples += "\"" + std::to_string(100 + i % 900) + "us\"";
  }
  std::string variants;
  for (int i = 0; i < 200; ++i) variants += std::string(i ? "," : "") + "{\"name\": \"v" + std::to_string(i) + "\"}";
  const std::string f = (d / "t.json").string();
  spit(f, R"({"schema": "nvmesim.scenario/1", "trials": 1, "host": {"kernel": "5.7"}, "controllers": [{"enable_latency": {"dist": "empirical", "samples": [)" +
              samples + "]}}], \"variants\": [" + variants + "]}");
  nvmesim::test::SpawnOptions o;
  o.end_within = std::chrono::minutes(5);
  const auto r = nvmesim::test::spawn_nvmesim({"validate", f}, o);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(f + ": /variants/27: the patched scenario is invalid at /controllers/0/enable_latency (the base's value; "
                       "this variant does not set it): the tables the variants inherit (empirical samples, quantile points, "
                       "mixture components) come to more than 16777216 entries over all variants, here with 600000 more") !=
        std::string::npos);
  check_peak_rss(r.peak_rss_kib, 250 * 1000);
  fs::remove_all(d);
}

// The bound on distinct tables still holds: a variant whose "set" changes one sample of an
// inherited table reads a table of its own. A file that holds 2 M samples once is read; two
// variants that inherit it share it; a variant changing sample 0 adds 2 M (4 M, under 4 194 304),
// and a second one passes the bound. A process each (the loads hold hundreds of MB, which the
// process tests below would count in this process's image).
TEST_CASE("item 8: the tables' bound counts distinct tables - a variant's changed copy counts, an inherited one does not",
          "[issue16f][process]") {
  const fs::path d = scratch("tables1");
  const std::string one = repeat_list("\"1us\"", 2'000'000);
  const std::string head = R"({"schema": "nvmesim.scenario/1", "trials": 1, "host": {"kernel": "5.7"}, "controllers": [{"enable_latency": {"dist": "empirical", "samples": [)" + one + "]}}]";
  const std::string f = (d / "t.json").string();
  spit(f, head + R"(, "variants": [{"name": "a"}, {"name": "b"}, {"name": "c", "set": {"/host/cpus": 2}}]})");
  auto r = run_capture("validate " + f);
  INFO(r.err);
  CHECK(r.status == 0);
  const std::string set0 = R"("set": {"/controllers/0/enable_latency/samples/0": "2us"})";
  spit(f, head + R"(, "variants": [{"name": "a"}, {"name": "b", )" + set0 + R"(}, {"name": "c"}]})");
  r = run_capture("validate " + f);
  CHECK(r.status == 0);
  spit(f, head + R"(, "variants": [{"name": "a", )" + set0 + R"(}, {"name": "b"}, {"name": "c", )" + set0 + "}]}");
  r = run_capture("validate " + f);
  CHECK(r.status == 2);
  CHECK(r.err.find(f + ": /variants/2/set/~1controllers~10~1enable_latency~1samples~10: ") != std::string::npos);
  CHECK(r.err.find("come to more than 4194304 entries in all, here with 2000000 more") != std::string::npos);
  fs::remove_all(d);
}

// In one process: the variants and a controller's `count` copies hold the base's table itself
// (Distribution::table_owners counts the holders of one table), and a changed table is another.
TEST_CASE("item 8: variants and count copies hold the base's table itself, a changed one its own", "[issue16f][memory]") {
  const std::string e = R"({"dist": "empirical", "samples": ["1us", "2us", "3us", "4us"]})";
  const nvmesim::Scenario sc = nvmesim::load_scenario_text(
      R"({"schema": "nvmesim.scenario/1", "host": {"kernel": "5.7"}, "controllers": [{"count": 2, "enable_latency": )" + e +
          R"(, "disable_latency": )" + e + R"(}], "variants": [{"name": "a"}, {"name": "b", "set": {"/host/cpus": 2}},
          {"name": "c", "set": {"/controllers/0/enable_latency/samples/0": "5us"}}]})",
      "t.json");
  REQUIRE(sc.variants.size() == 3);
  const nvmesim::Distribution& base = sc.variants[0].controllers[0].enable_latency;
  // Holders of the one table: variants a and b, 2 controllers each, enable and disable (the same
  // JSON: shared too), and c's disable_latency on 2 controllers: 2 x 2 x 2 + 2 = 10.
  CHECK(base.table_owners() == 10);
  CHECK(sc.variants[1].controllers[1].disable_latency.table_owners() == 10);
  // c's enable_latency is its own table (5us in place of 1us), shared by its 2 controllers only.
  const nvmesim::Distribution& changed = sc.variants[2].controllers[0].enable_latency;
  CHECK(changed.table_owners() == 2);
  CHECK(changed.min_ps() == 2'000'000);  // sorted 2, 3, 4, 5 us
  CHECK(changed.max_ps() == 5'000'000);
  CHECK(base.min_ps() == 1'000'000);
}

// ---- item 9: dmesg keeps the intervals as sketches ------------------------------------------

// 2 500 000 probe intervals in one log (220 MB, under the 256 MiB a log may have): the report keeps a summary per log, variant and
// controller, each exact up to 512 values then a QuantileSketch (~16 KiB per power of two seen).
// Keeping every value, as the issue's reader did, is 3 summaries x 2.5 M x 8 bytes = 60 MB of
// vectors (100 MB of capacity once grown to 2^22), besides the DOM the issue measured at ~12x the
// input. Measured 10.7 MB here, 75.7 MB with every value kept (kExact unbounded); 45 MB allowed.
TEST_CASE("item 9: nvmesim dmesg summarises 2.5 million intervals within 45 MB", "[issue16f][dmesg][process]") {
  const fs::path d = scratch("dmesgmany");
  const std::string log = (d / "many.dmesg").string();
  {
    std::ofstream f(log, std::ios::binary);
    char line[128];
    for (int i = 0; i < 2'500'000; ++i) {
      // Each probe 1 s after the last; the interval is 76.461 ms + i % 1000 us (distinct values).
      const long start_us = 1'000'000L * (i + 1);
      const long end_us = start_us + 76'461 + i % 1000;
      const int n = std::snprintf(line, sizeof line, "[%ld.%06ld] nvme_init\n[%ld.%06ld] nvme nvme0: 32/0/0 default/read/poll queues\n",
                                  start_us / 1'000'000, start_us % 1'000'000, end_us / 1'000'000, end_us % 1'000'000);
      f.write(line, n);
    }
  }
  nvmesim::test::SpawnOptions o;
  o.end_within = std::chrono::minutes(10);
  // --empirical writes the 2.5 M durations (33 MB) rather than every interval's record (570 MB);
  // the summaries are kept as for the report (DmesgReport::on_interval).
  const auto r = nvmesim::test::spawn_nvmesim({"dmesg", log, "--empirical", "--out", (d / "e.json").string()}, o);
  INFO(r.err);
  CHECK(r.status == 0);
  check_peak_rss(r.peak_rss_kib, 45 * 1000);
  const std::string e = slurp((d / "e.json").string());
  CHECK(e.rfind("{\"dist\":\"empirical\",\"samples\":[", 0) == 0);
  size_t n = 0;
  for (size_t at = e.find("ns\""); at != std::string::npos; at = e.find("ns\"", at + 3)) ++n;
  CHECK(n == 2'500'000);
  // The first interval is 76.461 ms, the 1000th 76.461 + 0.999 = 77.460 ms.
  CHECK(e.find("\"76461000ns\"") != std::string::npos);
  CHECK(e.find("\"77460000ns\"") != std::string::npos);
  fs::remove_all(d);
}

// ---- item 11: --vcd streams SystemC's VCD ---------------------------------------------------

// A never-ready controller polled for CAP.TO = 60 (30 s) per trial writes ~0.85 MB of VCD per
// trial: 140 trials give a VCD of ~120 MB, copied back from SystemC's temporary in 64 KiB blocks.
// Reading it back whole (the issue: ~4x the file) needs 120 MB or more; measured 11.5 MB here,
// 257 MB with the file read into one string first; 60 MB allowed.
TEST_CASE("item 11: run --vcd writes a 120 MB VCD within 60 MB", "[issue16f][process]") {
  const fs::path d = scratch("vcd");
  const std::string sc = (d / "nr.json").string();
  spit(sc, R"({"schema": "nvmesim.scenario/1", "trials": 140, "host": {"kernel": "5.7"}, "controllers": [{"cap": {"to": 60}, "faults": {"never_ready": true}}]})");
  nvmesim::test::SpawnOptions o;
  o.end_within = std::chrono::minutes(10);
  const auto r = nvmesim::test::spawn_nvmesim({"run", sc, "--vcd", (d / "w.vcd").string(), "-q"}, o);
  INFO(r.err);
  CHECK(r.status == 0);  // every trial fails (never ready): a result, exit 0
  REQUIRE(fs::exists(d / "w.vcd"));
  CHECK(fs::file_size(d / "w.vcd") > 100'000'000);
  check_peak_rss(r.peak_rss_kib, 60 * 1000);
  fs::remove_all(d);
}

// ---- the last attack's findings (item 6 of this task) ---------------------------------------

namespace {

/// A two-point sweep (seeds 0 and 1, 2 trials) with --dmesg, run to its end in d/sw.
std::string dmesg_sweep(const fs::path& d) {
  const std::string sw = (d / "s.sweep.json").string();
  spit(sw, R"({"schema": "nvmesim.sweep/1", "trials": 2, "scenario": {"schema": "nvmesim.scenario/1",
       "host": {"kernel": "5.7", "hz": 250}, "controllers": [{"enable_latency": {"dist": "uniform", "min": "1ms", "max": "3ms"}}]},
       "grid": {"/seed": [0, 1]}})");
  const std::string dir = (d / "sw").string();
  REQUIRE(run_capture("sweep " + sw + " --out " + dir + " -q -j 1 --dmesg").status == 0);
  return dir;
}

/// merge of `dir` after `edit` changed its manifest and `touch` its files; both restored after.
nvmesim::test::CliResult merge_edited(const std::string& dir, const fs::path& out, const std::function<void(ojson&)>& edit,
                                      const std::string& file = "", const std::string& file_text = "") {
  const std::string manifest = dir + "/manifest.json", kept = slurp(manifest);
  const std::string file_kept = file.empty() ? "" : slurp(file);
  ojson m = ojson::parse(kept);
  edit(m);
  spit(manifest, m.dump(2) + "\n");
  if (!file.empty()) {
    if (file_text.empty()) fs::remove(file);
    else spit(file, file_text);
  }
  const auto r = run_capture("merge " + dir + " --out " + out.string());
  spit(manifest, kept);
  if (!file.empty()) spit(file, file_kept);
  return r;
}

}  // namespace

// merge now checks what --resume checks: the manifest's "outputs" selection is read like the
// rest, and each done point's selected output exists with its recorded size and FNV-1a hash.
// On main each of these merged with exit 0 (a missing or replaced .dmesg was not looked at).
TEST_CASE("item 6 (this stop): merge checks the outputs selection and each done point's .dmesg", "[issue16f][sweep]") {
  const fs::path d = scratch("mergeouts");
  const std::string dir = dmesg_sweep(d);
  const ojson m0 = ojson::parse(slurp(dir + "/manifest.json"));
  REQUIRE(m0["outputs"] == ojson::parse(R"({"dmesg": {"trials": "all"}})"));
  const std::string id0 = m0["points"][0]["id"], dm = dir + "/points/" + id0 + ".dmesg";
  const uint64_t bytes = m0["points"][0]["outputs"][id0 + ".dmesg"]["bytes"];
  const std::string hash = m0["points"][0]["outputs"][id0 + ".dmesg"]["fnv1a64"];
  const fs::path out = d / "sum.json";
  const std::string manifest = dir + "/manifest.json";
  auto none = [](ojson&) {};
  struct Case {
    std::function<void(ojson&)> edit;
    std::string file, file_text, message;
  };
  const std::vector<Case> cases = {
      {[](ojson& m) { m["outputs"] = ojson::array(); }, "", "", ": /outputs: must be an object"},
      {[](ojson& m) { m["outputs"]["dmesg"]["trials"] = 5; }, "", "", ": /outputs/dmesg/trials: must be a string"},
      {[](ojson& m) { m["outputs"]["pcap"] = ojson::object(); }, "", "", ": /outputs/pcap: unknown key"},
      {[](ojson& m) { m["outputs"] = ojson::object(); }, "", "", ": /outputs: selects no output"},
      // A point's keys are those a sweep writes; its "file" is points/ID.jsonl (attack of stop 24).
      {[](ojson& m) { m["points"][0]["weight"] = 2; }, "", "", ": /points/0/weight: unknown key"},
      {[](ojson& m) { m["points"][0].erase("id"); m["points"][0].erase("outputs"); }, "", "",
       ": /points/0: needs \"id\" (a sweep writes it for every point)"},
      {[&](ojson& m) { m["points"][0]["file"] = "points/" + id0 + "x.jsonl"; }, "", "",
       ": /points/0/file: is not this point's file: a sweep writes point " + id0 + "'s trials to points/" + id0 + ".jsonl"},
      {[](ojson& m) { m["outputs"]["dmesg"].erase("trials"); }, "", "", ": /outputs/dmesg: needs \"trials\""},
      // The selection dropped while the points still record a .dmesg.
      {[](ojson& m) { m.erase("outputs"); }, "", "",
       ": /points/0/outputs: point 0 records the output " + id0 + ".dmesg, which the manifest's \"outputs\" does not select"},
      // A done point without its record.
      {[](ojson& m) { m["points"][0].erase("outputs"); }, "", "",
       ": /points/0: point 0 is done, but the manifest records no size and hash of its output " + dm},
      // The .dmesg removed, then replaced by one byte more.
      {none, dm, "", ": /points/0: point 0 is done, but its output " + dm + " is missing"},
      {none, dm, slurp(dm) + "x",
       ": /points/0: point 0's output " + dm + " has " + std::to_string(bytes + 1) + " bytes (FNV-1a "},
  };
  for (const auto& c : cases) {
    const auto r = merge_edited(dir, out, c.edit, c.file, c.file_text);
    INFO(c.message << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("nvmesim: error: " + manifest + c.message) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
  // The last message goes on with the recorded size and hash.
  const auto r = merge_edited(dir, out, none, dm, slurp(dm) + "x");
  CHECK(r.err.find("the manifest records " + std::to_string(bytes) + " bytes (FNV-1a " + hash + ")") != std::string::npos);
  // The folder as the sweep left it merges.
  CHECK(run_capture("merge " + dir + " --out " + out.string()).status == 0);
  fs::remove_all(d);
}

// `merge --out` over an input: the message names the file of the pair that collides. On main the
// first check passed --out as both halves of the pair and said "its CSV" for the JSON too.
TEST_CASE("item 6 (this stop): merge's collision message names the JSON or the CSV that collides", "[issue16f][sweep]") {
  const fs::path d = scratch("mergecollide");
  const std::string dir = dmesg_sweep(d);
  const std::string in_points = dir + "/points/x.json";
  auto r = run_capture("merge " + dir + " --out " + in_points);
  CHECK(r.status == 2);
  CHECK(r.err.find("--out " + in_points + ": would be written over an input of this merge") != std::string::npos);
  CHECK(r.err.find("its CSV") == std::string::npos);
  // --out X.csv whose JSON beside it is the manifest: the JSON is named.
  r = run_capture("merge " + dir + " --out " + dir + "/manifest.csv");
  CHECK(r.status == 2);
  CHECK(r.err.find("--out " + dir + "/manifest.csv: its summary JSON " + dir + "/manifest.json would be written over") !=
        std::string::npos);
  // --out X.json whose CSV beside it is the sweep folder itself (named sw.csv): the CSV is named.
  const std::string moved = (d / "sw.csv").string();
  fs::rename(dir, moved);
  r = run_capture("merge " + moved + " --out " + (d / "sw.json").string());
  CHECK(r.status == 2);
  CHECK(r.err.find("--out " + (d / "sw.json").string() + ": its CSV " + moved + " would be written over") != std::string::npos);
  fs::remove_all(d);
}

// A sweep point whose base value (no axis sets it) fails with the point's values: the error names
// the base file and the pointer there. On main it named only the sweep file, with the pointer in
// the text ("s.json: the scenario of point 1 ... is invalid at /host/sleep_lateness: ...").
TEST_CASE("item 6 (this stop): a sweep point's error names the base file and the pointer", "[issue16f][sweep]") {
  const fs::path d = scratch("pointerr");
  spit((d / "base.json").string(), R"({"schema": "nvmesim.scenario/1", "controllers": [{}],
       "host": {"driver": "freebsd", "release": "13.1+", "sleep_lateness": "none"}})");
  const std::string sw = (d / "s.json").string();
  spit(sw, R"({"schema": "nvmesim.sweep/1", "base": "base.json", "grid": {"/host/release": ["13.1+", "older"]}})");
  const auto r = run_capture("validate " + sw);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find((d / "base.json").string() + ": /host/sleep_lateness: the scenario of point 1 {\"/host/release\":\"older\"} "
                   "is invalid here (a value of the base the axes do not set): FreeBSD \"older\" busy-waits") != std::string::npos);
  // An inline base: the sweep file at /scenario + the pointer.
  spit(sw, R"({"schema": "nvmesim.sweep/1", "scenario": {"schema": "nvmesim.scenario/1", "controllers": [{}],
       "host": {"driver": "freebsd", "release": "13.1+", "sleep_lateness": "none"}}, "grid": {"/host/release": ["13.1+", "older"]}})");
  const auto r2 = run_capture("validate " + sw);
  CHECK(r2.status == 2);
  CHECK(r2.err.find(sw + ": /scenario/host/sleep_lateness: the scenario of point 1") != std::string::npos);
  fs::remove_all(d);
}
