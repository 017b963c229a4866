// Issue 16 (the attack review of 2026-12-01): limits on what an input may build, manifests read
// back as inputs, and parsing in linear time. Each case names the item it guards; each failed on
// main at f5f5cc1 (a signal, exit 4, a wrong place in the message, or no error at all).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "scenario/scenario.hpp"
#include "sweep/folder.hpp"
#include "support.hpp"
#include "sweep/sweep.hpp"

using nvmesim::test::run_capture;
using nvmesim::test::slurp;
using nvmesim::test::spit;
using ojson = nlohmann::ordered_json;

namespace {

const char* kScenario = R"({"schema": "nvmesim.scenario/1", "trials": 2, "controllers": [{}]})";

std::string nested(size_t depth) { return std::string(depth, '[') + "0" + std::string(depth, ']'); }

// "/description" followed by `zeros` times "/0".
std::string pointer_into_description(size_t zeros) {
  std::string p = "/description";
  for (size_t i = 0; i < zeros; ++i) p += "/0";
  return p;
}

std::string error_of_sweep(const std::string& text) {
  try {
    (void)nvmesim::load_sweep_text(text, "s.json");
  } catch (const nvmesim::InputError& e) {
    return e.what();
  }
  return "no error";
}

// A manifest as `nvmesim sweep` writes it, for 2 x 1 points over /seed, one done and one failed.
// A manifest as a sweep writes it (no sweep.trials: an axis sets /trials): the sweep's id is its
// definition's (the scenario and the axes)
// and each point's id its parameters' (check_manifest recomputes both), set by the functions the
// sweep itself names them with.
ojson good_manifest() {
  ojson m = ojson::parse(R"({
    "schema": "nvmesim.sweep-manifest/1", "tool": {"name": "nvmesim", "version": "x"},
    "sweep": {"name": "", "description": "", "id": "0123456789abcdef", "points": 2,
              "axes": [{"pointer": "/seed", "kind": "grid", "values": [1, 2]},
                       {"pointer": "/trials", "kind": "zip", "values": [2]}],
              "scenario": {}},
    "shard": {"index": 0, "count": 1}, "run": {},
    "points": [
      {"index": 0, "id": "seed_1-a", "parameters": {"/seed": 1, "/trials": 2}, "status": "done",
       "variants": [{"name": "base", "summary": {"trials": 2, "status": {"ok": 2}}}], "paired": []},
      {"index": 1, "id": "seed_2-b", "parameters": {"/seed": 2, "/trials": 2}, "status": "failed", "error": "x"}]})");
  m["sweep"]["id"] = nvmesim::sweep_detail::definition_id_of(m["sweep"]["scenario"], m["sweep"]["axes"]);
  for (auto& p : m["points"]) p["id"] = nvmesim::point_id(p["parameters"]);
  return m;
}

// `nvmesim merge` of a folder holding `manifest`: exit status and stderr; checks nothing was written.
nvmesim::test::CliResult merge_of(const ojson& manifest, const std::string& dir) {
  (void)std::system(("rm -rf " + dir + " " + dir + "-out.json " + dir + "-out.csv; mkdir -p " + dir).c_str());
  // The point file of the done point 0, whose summary merge checks the manifest's against.
  const ojson p0 = good_manifest()["points"][0];
  (void)std::system(("mkdir -p " + dir + "/points").c_str());
  const std::string file0 = dir + "/points/" + p0["id"].get<std::string>() + ".jsonl";
  spit(file0, "{\"record\":\"header\"}\n" +
       ojson{{"record", "summary"}, {"variants", p0["variants"]}, {"paired", p0["paired"]}}.dump() + "\n");
  // As the sweep writes it, a done point records its file's size and hash (item 16); a case that
  // is about another field keeps its own value of it.
  ojson m = manifest;
  if (m.is_object() && m.contains("points") && m["points"].is_array() && !m["points"].empty() &&
      m["points"][0].is_object() && m["points"][0].value("status", ojson()) == "done" && !m["points"][0].contains("jsonl"))
    m["points"][0]["jsonl"] = nvmesim::sweep_detail::jsonl_record(file0);
  spit(dir + "/manifest.json", m.dump(2));
  const auto r = run_capture("merge " + dir + " --out " + dir + "-out.json");
  if (r.status == 2) {
    CHECK(slurp(dir + "-out.json").empty());
    CHECK(slurp(dir + "-out.csv").empty());
  }
  return r;
}

}  // namespace

TEST_CASE("item 2: every field of a manifest is checked before merge uses it", "[limits][process]") {
  const std::string dir = "tl-merge";
  // The manifest as written merges (one point failed: exit 1).
  CHECK(merge_of(good_manifest(), dir).status == 1);
  struct Bad {
    const char* ptr;        // where to change the manifest
    const char* value;      // the new value (JSON)
    const char* expected;   // the message, from "manifest.json: "
  };
  const std::vector<Bad> bad = {
      // [] and 5 made point_parameters divide by zero (SIGFPE).
      {"/sweep/axes/0/values", "[]", "/sweep/axes/0/values: must hold 1 to 10000 values, not 0"},
      {"/sweep/axes/0/values", "5", "/sweep/axes/0/values: must be an array, not an integer"},
      // 1e12 and -5 allocated without limit.
      {"/sweep/points", "1000000000000", "/sweep/points: must be an integer from 1 to 100000"},
      {"/sweep/points", "-5", "/sweep/points: must be an integer from 1 to 100000"},
      // Wrong types were "internal error", exit 4.
      {"/sweep/points", "\"24\"", "/sweep/points: must be an integer from 1 to 100000"},
      {"/sweep/points", "3", "/sweep/points: is 3 but the axes give 2 points"},
      {"/points/0/status", "5", "/points/0/status: must be a string"},
      {"/points/0/status", "\"ok\"", "/points/0/status: "},
      {"/points/0/variants", "[1, 2]", "/points/0/variants/0: must be an object, not an integer"},
      {"/points/0/variants/0/name", "7", "/points/0/variants/0/name: must be a string"},
      {"/points/1/error", "5", "/points/1/error: must be a string"},
      {"/points/1/index", "2", "/points/1/index: must be an integer from 0 to 1"},
      {"/sweep/id", "7", "/sweep/id: must be a string"},
      {"/shard/index", "1", "/shard/index: must be an integer from 0 to 0"},
      {"/sweep/axes/1/kind", "\"zap\"", "/sweep/axes/1/kind: "},
      // The attack of stop 25: an edited scenario or trial count, a point's id swapped for
      // another's, keys no sweep writes, and a point outside the folder's shard were merged.
      {"/sweep/scenario/host", "{\"kernel\": \"5.4\"}", "/sweep/id: is not the id of the manifest's own scenario and axes"},
      {"/sweep/scenario/trials", "1000", "/sweep/id: is not the id of the manifest's own scenario and axes"},
      {"/points/0/id", "\"seed_2-d24d8ad93f1ef9c4\"", "/points/0/id: is not the id of this point's parameters"},
      {"/bogus", "1", "/bogus: unknown key"},
      {"/sweep/bogus", "1", "/sweep/bogus: unknown key"},
      {"/run/bogus", "1", "/run/bogus: unknown key"},
      {"/tool/bogus", "1", "/tool/bogus: unknown key"},
      {"/shard", "{\"index\": 1, \"count\": 2}", "/points/0/index: is 0, a point of shard 0/2, not of this folder's shard 1/2"},
      {"/sweep/trials", "1000", "/sweep/trials: is not the scenario's trials (1): the manifest was edited"},
  };
  for (const auto& b : bad) {
    ojson m = good_manifest();
    m[ojson::json_pointer(b.ptr)] = ojson::parse(b.value);
    const auto r = merge_of(m, dir);
    INFO(b.ptr << " = " << b.value << ": " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(dir + "/manifest.json: " + b.expected));
  }
  // Fields removed (review of stop 25: without "parameters" or "scenario" the id checks were
  // skipped, and a point's results could be swapped or the trial count edited unseen).
  const std::vector<std::pair<const char*, const char*>> removed = {
      {"/points/0/parameters", "/points/0: needs \"parameters\""},
      {"/points/1/id", "/points/1: needs \"id\""},
      {"/sweep/scenario", "/sweep: needs \"scenario\""},
      {"/sweep/axes", "/sweep/points: is 2 but the axes give 1 points"},  // no axes: one point
  };
  for (const auto& [ptr, expected] : removed) {
    ojson m = good_manifest();
    const ojson::json_pointer jp(ptr);
    m[jp.parent_pointer()].erase(jp.back());
    const auto r = merge_of(m, dir);
    INFO(ptr << " removed: " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(dir + "/manifest.json: " + expected));
  }
  (void)std::system(("rm -rf " + dir + " " + dir + "-out.json " + dir + "-out.csv").c_str());
}

TEST_CASE("item 3: chained set entries and --set options cannot build a document deeper than 64", "[limits]") {
  using Catch::Matchers::Contains;
  // "set": the first entry is 62 levels deep at /description (1 + 62 = 63 levels with the
  // scenario object: allowed), the second points 60 levels inside it and adds 62 more.
  const std::string first = "\"/description\": " + nested(62);
  const std::string second = "\"" + pointer_into_description(60) + "\": " + nested(62);
  const std::string sweep_head = std::string(R"({"schema": "nvmesim.sweep/1", "scenario": )") + kScenario;
  // The first alone passes the depth check (and then fails as a description must be a string).
  CHECK_THAT(error_of_sweep(sweep_head + ", \"set\": {" + first + "}}"),
             Contains("s.json: /set/~1description: must be a string"));
  // 61 tokens + 62 levels = 123 > 64. The error names the sweep file and the entry (main named the
  // pseudo-file "\x01sweep-point:1:200").
  CHECK_THAT(error_of_sweep(sweep_head + ", \"set\": {" + first + ", " + second + "}}"),
             Contains("s.json: /set/~1description" ) && Contains(": the value would be nested deeper than 64 levels once placed at /description/0/0"));
  // A grid value deep enough only once placed: reported at the value.
  // A grid value deep enough only once placed: 61 levels are allowed in the file (at /grid/P/1,
  // 3 + 61 = 64), but 4 tokens + 61 = 65 at /controllers/0/cap/to. Reported at the value.
  CHECK_THAT(error_of_sweep(R"({"schema": "nvmesim.sweep/1", "scenario": {"schema": "nvmesim.scenario/1",
                                 "controllers": [{"cap": {"to": 8}}]}, "grid": {"/controllers/0/cap/to": [1, )" +
                            nested(61) + "]}}"),
             Contains("s.json: /grid/~1controllers~10~1cap~1to/1: the value would be nested deeper than 64 levels"));
  // --set: the same chain.
  nvmesim::LoadOptions o;
  o.sets.push_back(nvmesim::parse_set("/description=" + nested(62)));
  CHECK_THROWS_WITH(nvmesim::load_scenario_text(kScenario, "t.json", o), Contains("/description: must be a string"));
  o.sets.push_back(nvmesim::parse_set(pointer_into_description(60) + "=" + nested(62)));
  CHECK_THROWS_WITH(nvmesim::load_scenario_text(kScenario, "t.json", o),
                    Contains("--set /description/0/0") && Contains("the value would be nested deeper than 64 levels"));
}

TEST_CASE("item 3: 515 chained set entries exit 2 on a 2 MB stack", "[limits][process]") {
  // The review's reproducer, smaller: 60 entries of 62 levels each, every one inside the one
  // before (depth 3720 once resolved). On main the recursive dump overflowed a small stack.
  std::string set = "{";
  std::string p = "/description";
  for (int k = 0; k < 60; ++k) {
    set += std::string(k ? ", " : "") + "\"" + p + "\": " + nested(62);
    for (int i = 0; i < 62; ++i) p += "/0";
  }
  spit("tl-chain.json", std::string(R"({"schema": "nvmesim.sweep/1", "scenario": )") + kScenario + ", \"set\": " + set + "}}");
  const auto r = run_capture("validate tl-chain.json", "ulimit -s 2048; ");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("tl-chain.json: /set/") && Catch::Contains("nested deeper than 64 levels once placed"));
  std::remove("tl-chain.json");
}

TEST_CASE("item 4: a 4 MiB array of objects validates at once (parsing is linear)", "[limits][process]") {
  // nlohmann 3.11.2's callback parser rescanned the parent at every end of an object: 600 KB took
  // 10 s, so 4 MiB would take about (4 MiB / 600 KB)^2 x 10 s = 8 min. The SAX builder reads it in
  // well under a second; `timeout 60` turns the old behaviour into a failure, not a hang.
  std::string text = R"({"schema": "nvmesim.scenario/1", "controllers": [{}], "description": [)";
  for (int i = 0; i < 1'400'000; ++i) text += i ? ",{}" : "{}";
  text += "]}";
  REQUIRE(text.size() > (size_t{4} << 20));
  spit("tl-objects.json", text);
  const auto r = run_capture("validate tl-objects.json", "timeout 60 ");
  CHECK(r.status == 2);  // "description" must be a string: the file was read to its end
  CHECK_THAT(r.err, Catch::Contains("tl-objects.json: /description: must be a string"));
  std::remove("tl-objects.json");
}

TEST_CASE("item 20: integer axis values are compared exactly, not as doubles", "[limits]") {
  using Catch::Matchers::Contains;
  const std::string head = std::string(R"({"schema": "nvmesim.sweep/1", "scenario": )") + kScenario;
  // 2^53 = 9007199254740992 and 2^53 + 1 are one double, but two seeds.
  const auto sw = nvmesim::load_sweep_text(head + R"(, "grid": {"/seed": [9007199254740992, 9007199254740993]}})", "s.json");
  REQUIRE(sw.points.size() == 2);
  CHECK(sw.points[1].parameters["/seed"].get<uint64_t>() == 9007199254740993ULL);
  // 1 and 1.0 are still one value.
  CHECK_THAT(error_of_sweep(head + R"(, "grid": {"/seed": [1, 1.0]}})"), Contains("/grid/~1seed/1: the value 1.0 repeats"));
}

// The memory bound itself is measured in bench/ (bench/results.md: a 1.5 GB point file without a
// newline took 2.1 GB and 33 s on --resume at main, 141 MB and 0.9 s now). This case guards that
// such a file is run again, with a peak resident set far below the file's size.
TEST_CASE("item 11: --resume reruns a point whose first line has no end, within 600 MB", "[limits][process]") {
  const std::string d = "tl-resume";
  (void)std::system(("rm -rf " + d + " " + d + ".json").c_str());
  spit(d + ".json", std::string(R"({"schema": "nvmesim.sweep/1", "scenario": )") + kScenario + "}");
  REQUIRE(run_capture("sweep " + d + ".json --out " + d + " -q --jobs 1").status == 0);
  const std::string merged_before = (run_capture("merge " + d + " --out " + d + "-a.json").status == 0) ? slurp(d + "-a.json") : "";
  REQUIRE_FALSE(merged_before.empty());
  // The point file becomes 700 MB of NUL bytes without a newline (sparse: no disk used). Before the
  // fix getline read it whole: a peak resident set above 700 MB (and bad_alloc under a limit).
  const std::string pf = d + "/points/base-*.jsonl";
  REQUIRE(std::system(("f=$(ls " + pf + ") && rm \"$f\" && truncate -s 700M \"$f\"").c_str()) == 0);
  // The peak resident set from wait4's rusage rather than `ulimit -v`: AddressSanitizer reserves
  // terabytes of address space for its shadow and cannot start under an address-space limit.
  nvmesim::test::SpawnOptions o;
  o.end_within = std::chrono::minutes(10);
  const auto r = nvmesim::test::spawn_nvmesim({"sweep", d + ".json", "--out", d, "-q", "--jobs", "1", "--resume"}, o);
  INFO(r.err);
  CHECK(r.status == 0);  // the point was run again
  CHECK(r.peak_rss_kib < 600 * 1000);  // 600 MB, below the 700 MB the old getline held (ASan's shadow included)
  REQUIRE(run_capture("merge " + d + " --out " + d + "-b.json").status == 0);
  CHECK(slurp(d + "-b.json") == merged_before);
  (void)std::system(("rm -rf " + d + " " + d + ".json " + d + "-a.json " + d + "-a.csv " + d + "-b.json " + d + "-b.csv").c_str());
}
