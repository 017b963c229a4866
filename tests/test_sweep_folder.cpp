// The sweep folder under attack (issue 16 items 13-16 and 19): a killed sweep's folder is claimed
// from its start, merge never writes over its inputs and writes its pair of outputs together, a
// sweep removes only the files it made, a point file is trusted only with all its trial lines,
// and an I/O failure stops the sweep with exit 3. Process tests: they run the nvmesim binary.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cfloat>
#include <cstdlib>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.hpp"
#include "sweep/folder.hpp"
#include "sweep/sweep.hpp"

using nvmesim::test::run_capture;
using nvmesim::test::run_nvmesim;
using nvmesim::test::slurp;
using nvmesim::test::spit;
using ojson = nlohmann::ordered_json;

namespace {

using nvmesim::test::entries;
using nvmesim::test::remove_tree;


bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}


// A sweep of `points` seeds (0 .. points-1) over a one-controller scenario with `trials` trials.
std::string write_seed_sweep(const std::string& name, int points, int trials) {
  std::string seeds;
  for (int i = 0; i < points; ++i) seeds += (i ? "," : "") + std::to_string(i);
  const std::string path = name + ".sweep.json";
  spit(path, R"({"schema": "nvmesim.sweep/1", "name": ")" + name + R"(", "trials": )" + std::to_string(trials) +
                 R"(, "scenario": {"schema": "nvmesim.scenario/1", "host": {"kernel": "5.7", "hz": 250},
                   "controllers": [{"enable_latency": {"dist": "uniform", "min": "1ms", "max": "3ms"}}]},
                 "grid": {"/seed": [)" + seeds + "]}}");
  return path;
}

}  // namespace

TEST_CASE("a sweep killed before its first point has claimed its folder (issue 16 item 13)", "[sweep][process]") {
  // 3000 points: reading the folder's state takes a while after points/ is made, and a kill then
  // left points/ and .work/ without a manifest, which any other sweep took over.
  const std::string sweep = write_seed_sweep("tc", 3000, 1);
  const std::string other = write_seed_sweep("tc-other", 2, 1);
  remove_tree("tc-d");
  nvmesim::test::SpawnOptions o;
  o.ready = [] { return exists("tc-d/points"); };  // the first thing of the sweep in DIR
  o.poll = std::chrono::milliseconds(0);            // spin: kill it at once after that
  o.signals = {SIGKILL};
  const auto killed = nvmesim::test::spawn_nvmesim({"sweep", sweep, "--out", "tc-d", "--jobs", "1", "-q"}, o);
  INFO(killed.err);
  CHECK(killed.status == 128 + SIGKILL);
  REQUIRE(exists("tc-d/points"));
  // The claim was there before points/: the manifest, of this sweep and shard.
  REQUIRE(exists("tc-d/manifest.json"));
  const ojson m = ojson::parse(slurp("tc-d/manifest.json"));
  CHECK(m["sweep"]["name"] == "tc");
  CHECK(m["points"].size() == 3000);
  // Another sweep, another shard, or this one without --resume: refused, exit 2.
  auto r = run_capture("sweep " + other + " --out tc-d --resume -q");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("holds another sweep"));
  CHECK(run_nvmesim("sweep " + other + " --out tc-d -q") == 2);
  r = run_capture("sweep " + sweep + " --out tc-d --shard 1/2 --resume -q");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--shard 0/1"));
  CHECK(run_nvmesim("sweep " + sweep + " --out tc-d -q") == 2);
  CHECK(ojson::parse(slurp("tc-d/manifest.json"))["sweep"]["name"] == "tc");
  remove_tree("tc-d");
  for (const auto& f : {sweep, other}) std::remove(f.c_str());
}

TEST_CASE("a sweep removes only the files it made in DIR/.work and DIR/points (issue 16 item 15)", "[sweep][process]") {
  const std::string sweep = write_seed_sweep("tl", 2, 3);
  remove_tree("tl-d");
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tl-d -q") == 0);
  const auto files = entries("tl-d/points");
  REQUIRE(files.size() == 2);
  const std::string id0 = files[0].substr(0, files[0].size() - 6);  // without ".jsonl"
  std::remove(("tl-d/points/" + files[0]).c_str());                  // to be run again
  // Leftovers of a killed worker of this sweep (AtomicFile's ".NAME.tmp.<pid>.<n>", its scratch files)...
  const std::string ours = "tl-d/points/." + files[0] + ".tmp.4242.0";
  spit(ours, "{\"record\":\"header\"");
  mkdir("tl-d/.work", 0777);
  spit("tl-d/.work/" + id0 + ".json", "{}");
  spit("tl-d/.work/" + id0 + ".stderr", "");
  spit("tl-d/.work/" + id0 + ".check.json", "{\"complete\":");  // a forked worker's check (stop 27)
  // ...and files of the user's with similar names.
  const std::vector<std::string> users = {"tl-d/points/.notes.tmp.1", "tl-d/points/." + files[0] + ".tmp.mine",
                                          "tl-d/points/.other-0123.jsonl.tmp.77.0"};
  for (const auto& u : users) spit(u, "mine");
  spit("tl-d/.work/notes.txt", "mine");
  // A file in .work that the sweep did not make: refused, exit 2, nothing removed.
  auto r = run_capture("sweep " + sweep + " --out tl-d --resume -q");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("tl-d/.work/notes.txt: is not a file of this sweep's workers"));
  CHECK(slurp("tl-d/.work/notes.txt") == "mine");
  CHECK(exists(ours));
  CHECK(exists("tl-d/.work/" + id0 + ".json"));
  std::remove("tl-d/.work/notes.txt");
  // Without it: the sweep's own leftovers go, the user's files stay.
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tl-d --resume -q") == 0);
  CHECK(!exists(ours));
  CHECK(!exists("tl-d/.work"));
  for (const auto& u : users) CHECK(slurp(u) == "mine");
  CHECK(exists("tl-d/points/" + files[0]));
  remove_tree("tl-d");
  std::remove(sweep.c_str());
}

TEST_CASE("sweep --resume trusts a point file only with every trial line its summary counts (issue 16 item 16)", "[sweep][process]") {
  const std::string sweep = write_seed_sweep("tv", 2, 4);
  remove_tree("tv-d");
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tv-d -q") == 0);
  const auto files = entries("tv-d/points");
  REQUIRE(files.size() == 2);
  const std::string path = "tv-d/points/" + files[1], whole = slurp(path);
  // header, 4 trial lines (trials 0-3 of the one variant), summary.
  std::vector<std::string> lines;
  for (size_t pos = 0; pos < whole.size();) {
    const size_t nl = whole.find('\n', pos);
    lines.push_back(whole.substr(pos, nl - pos + 1));
    pos = nl + 1;
  }
  REQUIRE(lines.size() == 6);
  REQUIRE(lines[1].rfind("{\"record\":\"trial\",", 0) == 0);
  const std::vector<std::string> damaged = {
      lines[0] + lines[5],                                        // the trial lines deleted
      lines[0] + lines[1] + lines[2] + lines[3] + lines[5],       // the last trial line deleted
      lines[0] + lines[2] + lines[1] + lines[3] + lines[4] + lines[5],  // two trials swapped
      lines[0] + lines[1] + lines[2] + lines[3] + lines[4] + lines[4] + lines[5],  // one repeated
  };
  for (const auto& d : damaged) {
    spit(path, d);
    REQUIRE(run_nvmesim("sweep " + sweep + " --out tv-d --resume -q") == 0);
    CHECK(slurp(path) == whole);  // run again, not kept
  }
  // The intact file is kept (not run again: its modification is kept too).
  spit(path, whole);
  struct stat before, after;
  stat(path.c_str(), &before);
  usleep(20000);
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tv-d --resume -q") == 0);
  stat(path.c_str(), &after);
  CHECK(before.st_ino == after.st_ino);
  remove_tree("tv-d");
  std::remove(sweep.c_str());
}

TEST_CASE("merge never writes over its inputs, and writes its JSON and CSV together (issue 16 item 14)", "[sweep][process]") {
  const std::string sweep = write_seed_sweep("tm", 2, 3);
  remove_tree("tm-d");
  remove_tree("tm-out");
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tm-d -q") == 0);
  const std::string manifest = slurp("tm-d/manifest.json");
  const auto files = entries("tm-d/points");
  // The manifest, a point file, a file in points/ or .work/, or the folder as --out: exit 2, nothing written.
  for (const std::string& out : std::vector<std::string>{"tm-d/manifest.json", "./tm-d/../tm-d/manifest.json", "tm-d/points/" + files[0],
                                "tm-d/points/summary.json", "tm-d/.work/s.json", "tm-d"}) {
    const auto r = run_capture("merge tm-d --out " + out);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("an input of this merge"));
  }
  CHECK(slurp("tm-d/manifest.json") == manifest);
  CHECK(entries("tm-d/points") == files);
  CHECK(entries("tm-d") == std::vector<std::string>{"manifest.json", "points"});
  // A summary beside the manifest is fine.
  CHECK(run_nvmesim("merge tm-d --out tm-d/summary.json") == 0);
  CHECK(exists("tm-d/summary.csv"));
  // The CSV cannot be written (its path is a folder): exit 3 and no JSON either.
  mkdir("tm-out", 0777);
  mkdir("tm-out/s.csv", 0777);
  const auto r = run_capture("merge tm-d --out tm-out/s.json");
  CHECK(r.status == 3);
  CHECK(!exists("tm-out/s.json"));
  CHECK(entries("tm-out") == std::vector<std::string>{"s.csv"});
  remove_tree("tm-d");
  remove_tree("tm-out");
  std::remove(sweep.c_str());
}

TEST_CASE("an I/O failure in a sweep stops it with exit 3 and starts no more points (issue 16 item 19)", "[sweep][process]") {
  // A file size limit of 16 KiB (SIGXFSZ ignored, so that a write beyond it fails with EFBIG as on
  // a full disk): the manifest (~5 KB for 6 points) fits, a point file of 300 trials (~150 bytes
  // a trial line) does not, so the first worker fails with exit 3.
  const std::string sweep = write_seed_sweep("tx", 6, 300);
  remove_tree("tx-d");
  const auto r = run_capture("sweep " + sweep + " --out tx-d --jobs 1", "trap '' XFSZ; ulimit -f 16; ");
  CHECK(r.status == 3);
  CHECK_THAT(r.err, Catch::Contains("I/O failure"));
  CHECK_THAT(r.err, Catch::Contains("--resume"));
  // The point file named as the user knows it, under DIR, not from the worker's DIR/.work.
  CHECK_THAT(r.err, Catch::Contains(": tx-d/points/") && !Catch::Contains("../points/"));
  const ojson m = ojson::parse(slurp("tx-d/manifest.json"));
  size_t pending = 0, failed = 0;
  for (const auto& p : m["points"]) {
    pending += p["status"] == "pending";
    failed += p["status"] == "failed";
  }
  CHECK(failed == 0);   // the points did nothing wrong: they are run again on --resume
  CHECK(pending == 6);  // --jobs 1: no point after the first was started
  CHECK(entries("tx-d/points").empty());
  // With room again, --resume completes the sweep.
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tx-d --resume -q") == 0);
  CHECK(entries("tx-d/points").size() == 6);
  remove_tree("tx-d");
  std::remove(sweep.c_str());
}

TEST_CASE("a sweep writes the sinks of run per point: --trace, --vcd, --dmesg (issue 12)", "[sweep][process]") {
  const std::string sweep = write_seed_sweep("to", 2, 3);
  remove_tree("to-d");
  REQUIRE(run_nvmesim("sweep " + sweep + " --out to-d -q --trace --trace-trials 0-1 --vcd --dmesg") == 0);
  const auto files = entries("to-d/points");
  REQUIRE(files.size() == 8);  // per point: .dmesg, .jsonl, .trace.json, .vcd
  const std::string id = files[0].substr(0, files[0].find('.'));
  for (const char* ext : {".dmesg", ".jsonl", ".trace.json", ".vcd"}) CHECK(exists("to-d/points/" + id + ext));
  // The same bytes as `run` gives for the point's scenario with the same options.
  remove_tree("to-r");
  mkdir("to-r", 0777);
  const std::string jsonl = slurp("to-d/points/" + id + ".jsonl");
  spit("to-r/s.json", ojson::parse(jsonl.substr(0, jsonl.find('\n')))["scenario"].dump());
  REQUIRE(run_nvmesim("run to-r/s.json -q --format jsonl --out to-r/x.jsonl --trace to-r/x.trace.json --trace-trials 0-1 "
                      "--vcd to-r/x.vcd --dmesg to-r/x.dmesg") == 0);
  CHECK(slurp("to-r/x.jsonl") == jsonl);
  CHECK(slurp("to-r/x.trace.json") == slurp("to-d/points/" + id + ".trace.json"));
  CHECK(slurp("to-r/x.dmesg") == slurp("to-d/points/" + id + ".dmesg"));
  CHECK(slurp("to-r/x.vcd") == slurp("to-d/points/" + id + ".vcd"));
  CHECK(slurp("to-d/points/" + id + ".dmesg").find("nvme") != std::string::npos);
  // The manifest records them; a resume with other outputs is refused, with the same it keeps all.
  const ojson m = ojson::parse(slurp("to-d/manifest.json"));
  CHECK(m["outputs"] == ojson::parse(R"({"trace": {"trials": "0-1"}, "vcd": {}, "dmesg": {"trials": "all"}})"));
  auto r = run_capture("sweep " + sweep + " --out to-d --resume -q --trace --vcd --dmesg");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("resume with the same --trace"));
  CHECK(run_nvmesim("sweep " + sweep + " --out to-d --resume -q") == 2);
  // A point missing one of its outputs is run again.
  std::remove(("to-d/points/" + id + ".vcd").c_str());
  REQUIRE(run_nvmesim("sweep " + sweep + " --out to-d --resume -q --trace --trace-trials 0-1 --vcd --dmesg") == 0);
  CHECK(slurp("to-r/x.vcd") == slurp("to-d/points/" + id + ".vcd"));
  CHECK(entries("to-d/points") == files);
  // Selections as run checks them: one without its output, or selecting no trial of a point.
  r = run_capture("sweep " + sweep + " --out to-e --trace-trials 0");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--trace-trials 0: selects trials for --trace, which is not given"));
  r = run_capture("sweep " + sweep + " --out to-e --dmesg --dmesg-trials 3-5");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("selects no trial of point 0 (3 per variant)"));
  CHECK(!exists("to-e"));
  // Without outputs selected the manifest has no "outputs" (its bytes as before issue 12).
  remove_tree("to-n");
  REQUIRE(run_nvmesim("sweep " + sweep + " --out to-n -q") == 0);
  CHECK(!ojson::parse(slurp("to-n/manifest.json")).contains("outputs"));
  for (const char* d : {"to-d", "to-r", "to-n"}) remove_tree(d);
  std::remove(sweep.c_str());
}

TEST_CASE("sweep points over an empirical base are checked as with all its samples (issue 16 item 7)", "[sweep]") {
  // The points are checked against the base with each untouched empirical list cut to its
  // smallest and largest sample. The time budget needs trials x (init_to_probe's smallest sample
  // + the shortest enable latency, 1 ms) <= 2^63 ps = 9223372.04 s: with the smallest sample
  // 800 s, 10000 trials need 8000010 s (allowed) and 12000 trials 9600012 s (refused). Were the
  // first (2000 s) or the largest (3000 s) sample kept, 10000 trials would be refused too.
  const std::string head = R"({"schema": "nvmesim.sweep/1", "scenario": {"schema": "nvmesim.scenario/1",
    "host": {"kernel": "5.7", "init_to_probe": {"dist": "empirical", "samples": ["2000s", "800s", "3000s", "1000s"]}},
    "controllers": [{"enable_latency": "1ms"}]}, "grid": {"/trials": )";
  const nvmesim::Sweep ok = nvmesim::load_sweep_text(head + "[1, 10000]}}", "e.json");
  CHECK(ok.points.size() == 2);
  CHECK(ok.base["host"]["init_to_probe"]["samples"].size() == 4);  // the sweep keeps every sample
  try {
    (void)nvmesim::load_sweep_text(head + "[1, 10000, 12000]}}", "e.json");
    FAIL("12000 trials of at least 800 s were accepted");
  } catch (const nvmesim::InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("e.json: /grid/~1trials/2: 12000 trials x 1 variant need at least 9600012 s"));
  }
  // An axis inside the samples: they are checked in full, at the axis value.
  try {
    (void)nvmesim::load_sweep_text(R"({"schema": "nvmesim.sweep/1", "scenario": {"schema": "nvmesim.scenario/1",
      "host": {"kernel": "5.7", "init_to_probe": {"dist": "empirical", "samples": ["1ms", "2ms", "3ms"]}},
      "controllers": [{}]}, "grid": {"/host/init_to_probe/samples/1": ["4ms", "-1ms"]}})", "f.json");
    FAIL("a negative sample was accepted");
  } catch (const nvmesim::InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("f.json: /grid/~1host~1init_to_probe~1samples~11/1: "));
  }
}

TEST_CASE("merge lists at most 20 shards that no folder holds, then counts the rest (issue 16 attack)", "[sweep][process]") {
  // 30 points in 30 shards, only shard 0/30 run: 29 shards missing, one point each. 20 are listed
  // (a point line and a "run shard" line each), the 9 others in one line. Without the cap a
  // 1000000-shard sweep merged from one folder printed about 2 million lines.
  const std::string sweep = write_seed_sweep("tc-cap", 30, 1);
  remove_tree("tc-cap-0");
  REQUIRE(run_capture("sweep " + sweep + " --out tc-cap-0 --shard 0/30 -q").status == 0);
  const auto r = run_capture("merge tc-cap-0 --out tc-cap.json");
  CHECK(r.status == 1);
  size_t run_lines = 0, lines = 0;
  for (size_t at = 0; (at = r.err.find('\n', at)) != std::string::npos; ++at) ++lines;
  for (size_t at = 0; (at = r.err.find("nvmesim merge: run shard ", at)) != std::string::npos; ++at) ++run_lines;
  CHECK(run_lines == 20);
  CHECK_THAT(r.err, Catch::Contains("nvmesim merge: run shard 20/30 with:"));  // shards 1 .. 20
  CHECK_THAT(r.err, !Catch::Contains("run shard 21/30"));
  CHECK_THAT(r.err, Catch::Contains("... and 9 more shards of 30 that no folder given holds (K = 21-29; 9 points, every one "
                                    "listed in the summary); run each with --shard K/30 as above"));
  CHECK(lines == 1 + 20 * 2 + 1);  // the count line, 20 x (point, run), the rest
  // Every point is still in the summary, missing or done.
  const auto doc = nlohmann::json::parse(slurp("tc-cap.json"));
  CHECK(doc["points"].size() == 30);
  remove_tree("tc-cap-0");
  std::remove(sweep.c_str());
  std::remove("tc-cap.json");
  std::remove("tc-cap.csv");
}

// Issue 15 item 5 (stop 27): a forked worker's verdict on its outputs, as it leaves it in
// DIR/.work/<id>.check.json and the sweep reads it back into the manifest.
TEST_CASE("a worker's check reads back as written, for its point only, and not when cut", "[sweep]") {
  using nvmesim::sweep_detail::check_text;
  using nvmesim::sweep_detail::PointCheck;
  using nvmesim::sweep_detail::read_check;
  PointCheck c;
  c.complete = true;
  // Doubles whose shortest text is long or odd: the manifest must get the same bytes as from the
  // summary line itself (nlohmann's dump of each value parses back to the same double).
  c.summary = ojson::parse(R"({"record":"summary","variants":[{"name":"v","summary":{"probe_ms":{"mean":1.0246170000000001,
      "min":5e-324,"max":1.7976931348623157e+308,"p50":0.1,"stddev":-0.0,"count":18446744073709551615}}}]})");
  c.outputs = ojson();
  c.jsonl = ojson::parse(R"({"bytes":97372,"fnv1a64":"0123456789abcdef"})");
  const std::string path = "tck.check.json";
  spit(path, check_text("pt-1", c));
  PointCheck back;
  REQUIRE(read_check(path, "pt-1", back));
  CHECK(back.complete);
  CHECK(back.summary.dump() == c.summary.dump());
  CHECK(back.summary["variants"][0]["summary"]["probe_ms"]["min"].get<double>() == 5e-324);
  CHECK(back.summary["variants"][0]["summary"]["probe_ms"]["max"].get<double>() == DBL_MAX);
  CHECK(back.jsonl == c.jsonl);
  CHECK(back.outputs.is_null());
  // Another point's verdict is not this one's.
  CHECK_FALSE(read_check(path, "pt-2", back));
  // Cut anywhere before its newline: not taken (the sweep then checks the files itself).
  const std::string whole = check_text("pt-1", c);
  for (const size_t cut : {size_t{0}, size_t{1}, whole.size() / 2, whole.size() - 2, whole.size() - 1}) {
    spit(path, whole.substr(0, cut));
    CHECK_FALSE(read_check(path, "pt-1", back));
  }
  // "Not complete" is a verdict too.
  spit(path, check_text("pt-1", PointCheck{}));
  back.complete = true;
  REQUIRE(read_check(path, "pt-1", back));
  CHECK_FALSE(back.complete);
  // Complete without the point file's record, or with a record without its size: not a verdict.
  spit(path, R"({"id":"pt-1","complete":true,"summary":{},"outputs":null})" "\n");
  CHECK_FALSE(read_check(path, "pt-1", back));
  spit(path, R"({"id":"pt-1","complete":true,"summary":{},"outputs":null,"jsonl":{"fnv1a64":"00"}})" "\n");
  CHECK_FALSE(read_check(path, "pt-1", back));
  spit(path, "not json\n");
  CHECK_FALSE(read_check(path, "pt-1", back));
  std::remove(path.c_str());
  CHECK_FALSE(read_check(path, "pt-1", back));  // missing
}

// Review and attack of stop 27: with DIR/.work a symbolic link to another folder, the workers
// wrote their outputs to that folder's points/ ("../points" from the link's target) and their
// checks said done, so the sweep recorded every point done with DIR/points empty. Refused now,
// before anything is removed in the link's target. Mutant: drop require_own_work_dir: this fails.
TEST_CASE("a sweep refuses a DIR/.work that is a symbolic link", "[sweep][process]") {
  const std::string sweep = write_seed_sweep("tw", 2, 3);
  for (const char* d : {"tw-d", "tw-else"}) remove_tree(d);
  REQUIRE(::mkdir("tw-d", 0777) == 0);
  REQUIRE(::mkdir("tw-else", 0777) == 0);
  REQUIRE(::mkdir("tw-else/w", 0777) == 0);
  REQUIRE(::mkdir("tw-else/points", 0777) == 0);
  REQUIRE(::symlink("../tw-else/w", "tw-d/.work") == 0);
  auto r = run_capture("sweep " + sweep + " --out tw-d -q");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("tw-d/.work: is a symbolic link"));
  CHECK(entries("tw-else/points").empty());
  CHECK(entries("tw-d/points").empty());
  // On --resume too, with a file named as a worker's scratch file in the link's target: it stays.
  REQUIRE(::unlink("tw-d/.work") == 0);
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tw-d -q") == 0);
  const auto files = entries("tw-d/points");
  REQUIRE(files.size() == 2);
  const std::string id0 = files[0].substr(0, files[0].size() - 6);
  spit("tw-else/w/" + id0 + ".stderr", "theirs");
  REQUIRE(::symlink("../tw-else/w", "tw-d/.work") == 0);
  r = run_capture("sweep " + sweep + " --out tw-d --resume -q");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("is a symbolic link"));
  CHECK(slurp("tw-else/w/" + id0 + ".stderr") == "theirs");
  for (const char* d : {"tw-d", "tw-else"}) remove_tree(d);
  std::remove(sweep.c_str());
}
