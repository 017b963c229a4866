// Issue 16, the findings of the last attack on main (brief "hard"): NUL and invalid UTF-8 in
// messages, control characters in predict's table, --set values echoed as written, the sweep
// manifest's point fields, a swapped or replaced point file on --resume, merge's --out format, the
// sweep summary line of a long name, and the operation budget of a probe whose CC.CSS the
// controller does not support. Each case failed on main at ea55015. Process tests run the binary.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/terminal_text.hpp"
#include "support.hpp"

namespace fs = std::filesystem;

using nvmesim::terminal_text;
using nvmesim::test::run_capture;
using nvmesim::test::slurp;
using nvmesim::test::spit;
using ojson = nlohmann::ordered_json;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path d = fs::current_path() / ("hardening16d_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// Whether `text` holds a byte below 0x20 other than the newline, DEL, or a byte of no
/// well-formed UTF-8 sequence (checked by terminal_text: the text it would change).
bool has_raw_control(const std::string& text) {
  for (const char c : text)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) return true;
  std::string no_newlines = text;
  for (char& c : no_newlines)
    if (c == '\n') c = ' ';
  return terminal_text(no_newlines) != no_newlines;
}

/// A sweep of `points` seeds over a one-controller scenario, `trials` trials per point, in `d`,
/// named `name`.
std::string seed_sweep(const fs::path& d, int points, int trials, const std::string& name = "s") {
  std::string seeds;
  for (int i = 0; i < points; ++i) seeds += (i ? "," : "") + std::to_string(i);
  const std::string path = (d / "s.sweep.json").string();
  spit(path, R"({"schema": "nvmesim.sweep/1", "name": ")" + name + R"(", "trials": )" + std::to_string(trials) +
                 R"(, "scenario": {"schema": "nvmesim.scenario/1", "host": {"kernel": "5.7", "hz": 250},
                 "controllers": [{"enable_latency": {"dist": "uniform", "min": "1ms", "max": "3ms"}}]},
                 "grid": {"/seed": [)" + seeds + "]}}");
  return path;
}

/// Runs `nvmesim ARGS` and returns its stdout (stderr discarded).
std::string run_stdout(const std::string& args) {
  const std::string cmd = std::string(NVMESIM_BINARY) + " " + args + " 2>/dev/null";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

}  // namespace

// Bytes that are no well-formed UTF-8 (RFC 3629) are written \xNN, byte by byte: a lone
// continuation byte, Latin-1 e-acute, an overlong "/" (C0 AF), a UTF-16 surrogate (ED A0 80), a
// code point above U+10FFFF (F4 90 80 80), a sequence cut at the end (E2 82). Well-formed ones of
// 2, 3 and 4 bytes stay; NUL is \x00 like the other C0 controls.
TEST_CASE("item 2 (last findings): terminal_text escapes each byte of invalid UTF-8 and keeps valid UTF-8", "[issue16d]") {
  CHECK(terminal_text("a\x80" "b") == "a\\x80b");
  CHECK(terminal_text("caf\xe9") == "caf\\xe9");
  CHECK(terminal_text("\xc0\xaf") == "\\xc0\\xaf");
  CHECK(terminal_text("\xed\xa0\x80") == "\\xed\\xa0\\x80");
  CHECK(terminal_text("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");
  CHECK(terminal_text("x\xe2\x82") == "x\\xe2\\x82");
  CHECK(terminal_text("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");  // U+00E9 U+20AC U+1F600
  CHECK(terminal_text(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(terminal_text("\xc2\x9b" "2J") == "\\u009b2J");  // the C1 CSI as before
}

// A JSON key "a\u0000b\u001bc" of a controller: the error names it whole, NUL as \x00 (on main
// the message ended at the NUL, before "b", and before the list of allowed keys).
TEST_CASE("item 1 (last findings): a NUL in a JSON string does not cut the error message", "[issue16d]") {
  const fs::path d = scratch("nul");
  const std::string f = (d / "nul.json").string();
  spit(f, "{\"schema\":\"nvmesim.scenario/1\",\"controllers\":[{\"a\\u0000b\\u001bc\":1}]}");
  const auto r = run_capture("validate " + f);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_FALSE(has_raw_control(r.err));
  CHECK(r.err.find(f + ": /controllers/0/a\\x00b\\x1bc: unknown key \"a\\x00b\\x1bc\"") != std::string::npos);
  CHECK(r.err.find("Allowed keys: name, count,") != std::string::npos);
  CHECK(r.err.find('\n') == r.err.size() - 1);
}

// A file name holding the bytes FF and E9 (Latin-1 "e-acute"; no UTF-8): the error names it with
// \xff and \xe9 and no raw byte reaches stderr (on main the bytes went through as they were).
TEST_CASE("item 2 (last findings): invalid UTF-8 in a file name is escaped in messages", "[issue16d]") {
  const fs::path d = scratch("utf8");
  const std::string f = (d / "caf\xe9\xff.json").string();
  spit(f, R"({"schema":"nvmesim.scenario/1","trials":0,"controllers":[{}]})");
  auto r = run_capture("validate '" + f + "'");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_FALSE(has_raw_control(r.err));
  CHECK(r.err.find("caf\\xe9\\xff.json: /trials: must be from 1 to") != std::string::npos);
  r = run_capture("run '" + (d / "missing\xff.json").string() + "' -q");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_FALSE(has_raw_control(r.err));
  CHECK(r.err.find("missing\\xff.json") != std::string::npos);
}

// predict's table names each what-if: a --whatif file's name with ESC and a newline is printed
// escaped, on one row (on main ESC went to the terminal raw and the newline began a forged row).
// A name of 300 characters is printed whole (on main a 256-byte buffer cut the row).
TEST_CASE("item 3 (last findings): predict's table escapes what-if names and never cuts them", "[issue16d][predict]") {
  const std::string posterior = std::string(NVMESIM_SOURCE_DIR) + "/tests/data/fit/aws-c5.12xlarge.posterior.json";
  const fs::path d = scratch("predict");
  const std::string wf = (d / "w.json").string();
  const std::string long_name(300, 'n');
  spit(wf, R"({"whatifs": [{"name": "red\u001b[31m\nforged 1.000", "host": {"kernel": "5.7"}},)"
           R"( {"name": ")" + long_name + R"(", "host": {"kernel": "5.7"}}]})");
  const std::string out = run_stdout("predict " + posterior + " --whatif " + wf + " --draws 10 --trials 1 --out " +
                                     (d / "p.json").string());
  INFO(out);
  CHECK_FALSE(has_raw_control(out));
  CHECK(out.find("red\\x1b[31m\\x0aforged 1.000 probe_ms") != std::string::npos);
  CHECK(out.find(long_name + " probe_ms") != std::string::npos);
}

// --set echoes VALUE as the user wrote it: 5.10 (which JSON reads as the number 5.1) and 1e3
// (1000.0 once re-serialised). The kernel's message says to write it as a string.
TEST_CASE("item 4 (last findings): --set values are echoed as written", "[issue16d]") {
  const fs::path d = scratch("set");
  const std::string f = (d / "s.json").string();
  spit(f, R"({"schema":"nvmesim.scenario/1","host":{},"controllers":[{}]})");
  auto r = run_capture("run " + f + " -q --set /host/kernel=5.10");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(f + ": /host/kernel: must be a string, not the number 5.1") != std::string::npos);
  CHECK(r.err.find("write it as a string: \"5.1\", or \"5.10\" if that is the release meant") != std::string::npos);
  CHECK(r.err.find("(this value comes from --set /host/kernel=5.10)") != std::string::npos);
  r = run_capture("run " + f + " -q --set /host/hz=1e3");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("(this value comes from --set /host/hz=1e3)") != std::string::npos);
}

// A what-if's name made of --set echoes the value as written (on main the JSON value was
// re-serialised: "background_irq_rate_hz=1000.0" for 1e3).
TEST_CASE("item 4 (last findings): predict names a --set what-if with the value as written", "[issue16d][predict]") {
  const std::string posterior = std::string(NVMESIM_SOURCE_DIR) + "/tests/data/fit/aws-c5.12xlarge.posterior.json";
  const fs::path d = scratch("predict_set");
  const std::string out = run_stdout("predict " + posterior + " --kernel 5.7 --set /host/background_irq_rate_hz=1e3 "
                                     "--draws 10 --trials 1 --out " + (d / "p.json").string());
  INFO(out);
  CHECK(out.find("5.7 background_irq_rate_hz=1e3 ") != std::string::npos);
}

// host.hz lists its four values for any wrong value, whatever its type or size (on main a string
// or 20000 gave "must be an integer from 1 to 10000" / "must be from 1 to 10000").
TEST_CASE("item 5 (last findings): the hz error lists the allowed values", "[issue16d]") {
  const fs::path d = scratch("hz");
  const std::string f = (d / "s.json").string();
  spit(f, R"({"schema":"nvmesim.scenario/1","host":{},"controllers":[{}]})");
  for (const char* v : {"0", "20000", "-5", "2.5e2", "true", "'\"1000\"'"}) {
    const auto r = run_capture("run " + f + " -q --set /host/hz=" + std::string(v));
    INFO(v << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(f + ": /host/hz: must be one of 100, 250, 300, 1000 (CONFIG_HZ), not ") != std::string::npos);
    CHECK(r.err.find("from 1 to") == std::string::npos);
  }
}

namespace {

/// A two-point sweep with --dmesg, run to its end in d/sw; returns the folder.
std::string dmesg_sweep(const fs::path& d) {
  const std::string sw = seed_sweep(d, 2, 2);
  const std::string dir = (d / "sw").string();
  REQUIRE(run_capture("sweep " + sw + " --out " + dir + " -q -j 1 --dmesg").status == 0);
  return dir;
}

/// merge of `dir` after `edit` changed its manifest: the result, the manifest restored after.
nvmesim::test::CliResult merge_edited(const std::string& dir, const fs::path& out,
                                      const std::function<void(ojson&)>& edit) {
  const std::string manifest = dir + "/manifest.json", kept = slurp(manifest);
  ojson m = ojson::parse(kept);
  edit(m);
  spit(manifest, m.dump(2) + "\n");
  const auto r = run_capture("merge " + dir + " --out " + out.string());
  spit(manifest, kept);
  return r;
}

}  // namespace

// Each field of a done point's "outputs" record is checked, with its pointer: a negative size, a
// hash that is not 16 hex digits, a name that is a path ("../x", "a/b") or not the point's output,
// a key besides bytes and fnv1a64. A done point with an "error" and a failed point without one
// are refused. On main all of them merged (exit 0 or 1). The folder as the sweep left it merges.
TEST_CASE("item 6 (last findings): merge validates each field of a point's outputs and its error", "[issue16d][sweep]") {
  const fs::path d = scratch("outputs");
  const std::string dir = dmesg_sweep(d);
  const std::string manifest = dir + "/manifest.json";
  const ojson m0 = ojson::parse(slurp(manifest));
  const std::string id0 = m0["points"][0]["id"], dm = id0 + ".dmesg";
  const fs::path out = d / "sum.json";
  struct Case {
    std::function<void(ojson&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[&](ojson& m) { m["points"][0]["outputs"][dm]["bytes"] = -1; },
       ": /points/0/outputs/" + dm + "/bytes: must be an integer from 0 to 9223372036854775807, not -1"},
      {[&](ojson& m) { m["points"][0]["outputs"][dm]["fnv1a64"] = "XYZ"; },
       ": /points/0/outputs/" + dm + "/fnv1a64: must be 16 lowercase hex digits (an FNV-1a 64 hash), not \"XYZ\""},
      {[&](ojson& m) {
         m["points"][0]["outputs"]["../" + dm] = m["points"][0]["outputs"][dm];
         m["points"][0]["outputs"].erase(dm);
       },
       ": /points/0/outputs/..~1" + dm + ": is not an output file name of this point: allowed " + id0 + ".trace.json, " +
           id0 + ".vcd, " + id0 + ".dmesg"},
      {[&](ojson& m) {
         m["points"][0]["outputs"]["a/" + dm] = m["points"][0]["outputs"][dm];
         m["points"][0]["outputs"].erase(dm);
       },
       ": /points/0/outputs/a~1" + dm + ": is not an output file name of this point"},
      {[&](ojson& m) { m["points"][0]["outputs"][dm]["extra"] = 1; }, ": /points/0/outputs/" + dm + "/extra: unknown key"},
      {[&](ojson& m) { m["points"][0]["error"] = "boom"; }, ": /points/0/error: is given for a done point"},
      {[&](ojson& m) {
         m["points"][1]["status"] = "failed";
         for (const char* k : {"file", "variants", "paired", "outputs"}) m["points"][1].erase(k);
       },
       ": /points/1: is failed but has no \"error\""},
  };
  for (const auto& c : cases) {
    const auto r = merge_edited(dir, out, c.edit);
    INFO(c.message << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("nvmesim: error: " + manifest + c.message) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
  // A failed point whose error is empty: merged (exit 1), and the message says so.
  const auto r = merge_edited(dir, out, [](ojson& m) {
    m["points"][1]["status"] = "failed";
    m["points"][1]["error"] = "";
    for (const char* k : {"file", "variants", "paired", "outputs"}) m["points"][1].erase(k);
  });
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.err.find("point 1 (" + std::string(m0["points"][1]["id"]) + ") failed in shard 0/1 (" + dir + "): no error recorded\n") != std::string::npos);
  fs::remove(out);
  fs::remove(d / "sum.csv");
  CHECK(run_capture("merge " + dir + " --out " + out.string()).status == 0);
}

// One folder whose manifest's point 1 says index 0: the message names the repeated index (on
// main: "point 0 differs from the same point in another folder", with one folder given).
TEST_CASE("item 7 (last findings): an edited index of a one-folder sweep is named as such", "[issue16d][sweep]") {
  const fs::path d = scratch("index");
  const std::string sw = seed_sweep(d, 2, 1);
  const std::string dir = (d / "sw").string();
  REQUIRE(run_capture("sweep " + sw + " --out " + dir + " -q -j 1").status == 0);
  const auto r = merge_edited(dir, d / "sum.json", [](ojson& m) {
    // (Its parameters made point 0's too: an id and parameters are required since stop 25.)
    m["points"][1]["index"] = 0;
    m["points"][1]["parameters"] = m["points"][0]["parameters"];
    m["points"][1]["id"] = m["points"][0]["id"];
    m["points"][1]["file"] = m["points"][0]["file"];
  });
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(dir + "/manifest.json: /points/1/index: is 0, the index of /points/0 too; a manifest lists each point "
                         "once") != std::string::npos);
  CHECK(r.err.find("another folder") == std::string::npos);
  // --resume reads the same manifest: the same message.
  const std::string manifest = dir + "/manifest.json", kept = slurp(manifest);
  ojson m = ojson::parse(kept);
  m["points"][1]["index"] = 0;
  spit(manifest, m.dump(2) + "\n");
  const auto s = run_capture("sweep " + sw + " --out " + dir + " -q -j 1 --resume");
  INFO(s.err);
  CHECK(s.status == 2);
  CHECK(s.err.find("/points/1/index: is 0, the index of /points/0 too") != std::string::npos);
  spit(manifest, kept);
}

// Point 0's and point 1's files swapped: --resume says which point's scenario the file holds (on
// main: "holds another scenario ...; the sweep file or its base changed"). Swapped back, --resume
// keeps both.
TEST_CASE("item 8 (last findings): point files swapped on --resume are named as such", "[issue16d][sweep]") {
  const fs::path d = scratch("swap");
  const std::string sw = seed_sweep(d, 2, 1);
  const std::string dir = (d / "sw").string();
  REQUIRE(run_capture("sweep " + sw + " --out " + dir + " -q -j 1").status == 0);
  const ojson m = ojson::parse(slurp(dir + "/manifest.json"));
  const std::string id0 = m["points"][0]["id"], id1 = m["points"][1]["id"];
  const std::string f0 = dir + "/points/" + id0 + ".jsonl", f1 = dir + "/points/" + id1 + ".jsonl";
  fs::rename(f0, f0 + ".x");
  fs::rename(f1, f0);
  fs::rename(f0 + ".x", f1);
  auto r = run_capture("sweep " + sw + " --out " + dir + " -j 1 --resume");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(f0 + ": is point 0's file (id " + id0 + ") but holds point 1's scenario (id " + id1 +
                   "): the point files were renamed or swapped") != std::string::npos);
  CHECK(r.err.find("the sweep file or its base changed") == std::string::npos);
  fs::rename(f0, f0 + ".x");
  fs::rename(f1, f0);
  fs::rename(f0 + ".x", f1);
  r = run_capture("sweep " + sw + " --out " + dir + " -j 1 --resume");
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.err.find("2 done (2 already complete)") != std::string::npos);
}

// merge --out m.csv writes the CSV to m.csv and the summary to m.json (on main: JSON in m.csv and
// the CSV in m.csv.csv); --out m.txt is refused, nothing written. Both names give the same bytes.
TEST_CASE("item 9 (last findings): merge's --out takes FILE.json or FILE.csv", "[issue16d][sweep]") {
  const fs::path d = scratch("mergeout");
  const std::string sw = seed_sweep(d, 2, 1);
  const std::string dir = (d / "sw").string();
  REQUIRE(run_capture("sweep " + sw + " --out " + dir + " -q -j 1").status == 0);
  REQUIRE(run_capture("merge " + dir + " --out " + (d / "a.json").string()).status == 0);
  auto r = run_capture("merge " + dir + " --out " + (d / "b.csv").string());
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_FALSE(fs::exists(d / "b.csv.csv"));
  CHECK(slurp((d / "b.csv").string()) == slurp((d / "a.csv").string()));
  CHECK(slurp((d / "b.json").string()) == slurp((d / "a.json").string()));
  CHECK(slurp((d / "b.csv").string()).rfind("index,id,", 0) == 0);
  r = run_capture("merge " + dir + " --out " + (d / "c.txt").string());
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("--out " + (d / "c.txt").string() + ": must end in .json") != std::string::npos);
  CHECK_FALSE(fs::exists(d / "c.txt"));
  CHECK_FALSE(fs::exists(d / "c.txt.csv"));
}

// A sweep named with 600 characters: the summary line holds the name whole and its counts after
// it (on main a 512-byte buffer cut the line inside the name).
TEST_CASE("item 10 (last findings): the sweep summary line is not cut by a long name", "[issue16d][sweep]") {
  const fs::path d = scratch("longname");
  const std::string name(600, 'w');
  const std::string sw = seed_sweep(d, 1, 1, name);
  const auto r = run_capture("sweep " + sw + " --out " + (d / "sw").string() + " -j 1");
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.err.find("nvmesim sweep " + name + ": 1 point: 1 done (0 already complete), 0 failed, 0 not run; ") !=
        std::string::npos);
}

// A folder in place of point 0's file, and one in place of point 1's .dmesg: --resume exits 2
// naming it (on main: exit 3 once the worker could not replace it). So does merge for the point
// file.
TEST_CASE("item 11 (last findings): a folder in place of a point file or an output on --resume is exit 2", "[issue16d][sweep]") {
  const fs::path d = scratch("dirs");
  const std::string dir = dmesg_sweep(d);
  const std::string sw = (d / "s.sweep.json").string();
  const ojson m = ojson::parse(slurp(dir + "/manifest.json"));
  const std::string id0 = m["points"][0]["id"], id1 = m["points"][1]["id"];
  const std::string f0 = dir + "/points/" + id0 + ".jsonl", dm1 = dir + "/points/" + id1 + ".dmesg";
  fs::rename(f0, (d / "keep.jsonl").string());
  fs::create_directories(f0 + "/inside");
  auto r = run_capture("sweep " + sw + " --out " + dir + " -q -j 1 --dmesg --resume");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(f0 + ": is a directory, expected a file (point 0's point file)") != std::string::npos);
  r = run_capture("merge " + dir + " --out " + (d / "sum.json").string());
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(f0 + ": is a directory, expected a file (point 0's point file)") != std::string::npos);
  fs::remove_all(f0);
  fs::rename((d / "keep.jsonl").string(), f0);
  fs::rename(dm1, (d / "keep.dmesg").string());
  fs::create_directories(dm1 + "/inside");
  r = run_capture("sweep " + sw + " --out " + dir + " -q -j 1 --dmesg --resume");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(dm1 + ": is a directory, expected a file (an output of point 1)") != std::string::npos);
}

// host.cpus 4096 and io_queues 4096: a probe that succeeds creates 4096 queue pairs, 4 doorbell
// writes each = 16384 MMIO accesses, more than host.max_events_per_trial 5000. A controller with
// CAP.CSS 64 (bit 6, I/O command sets, without bit 0, NVM): Linux 4.8 writes CC.CSS 000b (its CSS
// is not taken from CAP before 5.10), which that CAP.CSS does not support: every enable ends in
// CSTS.CFS and no queue is created (CAP.TO 1 bounds the enable wait to 500 ms, whose polls fit
// 5000). It runs (exit 0, every trial "fatal"); on main it was refused as if it made 16384. At
// 5.10 the same controller gets CC.CSS 110b, which bit 6 supports: refused. CAP.CSS 128 (admin
// only) at 5.10: CC.CSS 000b again, unsupported: runs. CAP.CSS 1 (NVM) at 4.8: refused.
TEST_CASE("item 12 (last findings): the operation budget counts no queue pairs for an unsupported CC.CSS", "[issue16d][budget]") {
  const fs::path d = scratch("css");
  auto scenario = [&](const std::string& name, const std::string& kernel, int css) {
    const std::string p = (d / name).string();
    spit(p, R"({"schema":"nvmesim.scenario/1","trials":2,"host":{"kernel":")" + kernel +
                R"(","cpus":4096,"max_events_per_trial":5000},"controllers":[{"cap":{"to":1,"css":)" + std::to_string(css) +
                R"(},"io_queues":4096}]})");
    return p;
  };
  const std::string out = (d / "o.jsonl").string();
  const std::string refused = "makes at least 16384 MMIO accesses (1 controllers,";
  auto r = run_capture("run " + scenario("a.json", "4.8", 64) + " -q -o " + out);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(slurp(out).find("\"status\":\"ok\"") == std::string::npos);
  CHECK(slurp(out).find("\"status\":\"fatal\"") != std::string::npos);
  r = run_capture("run " + scenario("b.json", "5.10", 64) + " -q");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(refused) != std::string::npos);
  fs::remove(out);
  r = run_capture("run " + scenario("c.json", "5.10", 128) + " -q -o " + out);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(slurp(out).find("\"status\":\"fatal\"") != std::string::npos);
  r = run_capture("run " + scenario("d.json", "4.8", 1) + " -q");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(refused) != std::string::npos);
}

// Issue 16 item 22's parts found open when the map was made (each failed on main at ea55015):
// --set /controllers/00 (RFC 6901: no leading zero) and --set /schema/x (a key inside a string)
// showed nlohmann's exception text; the message now says what is wrong.
TEST_CASE("item 22: --set of a leading-zero index or a key inside a string says what is wrong", "[issue16d]") {
  const fs::path d = scratch("setptr");
  const std::string f = (d / "s.json").string();
  spit(f, R"({"schema":"nvmesim.scenario/1","controllers":[{}]})");
  auto r = run_capture("run " + f + " -q --set '/controllers/00={}'");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err == "nvmesim: error: --set /controllers/00: \"00\" is not an index of /controllers in " + f +
                     " (1 element); allowed: 0 to 1, or - to append\n");
  r = run_capture("run " + f + " -q --set /schema/x=1");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err == "nvmesim: error: --set /schema/x: the parent /schema is a string in " + f +
                     ", not an object or an array: --set sets a key of an object or an element of an array\n");
}

// merge's CSV: a text field that starts with = + - @ is a formula to a spreadsheet; it is
// written with a ' before it (the failed point's error "=HYPERLINK(...)" here, and a variant
// named "-x"). A negative number stays a number. On main both were written raw.
TEST_CASE("item 22: merge's CSV quotes text that a spreadsheet would run as a formula", "[issue16d][sweep]") {
  const fs::path d = scratch("formula");
  const std::string path = (d / "f.sweep.json").string();
  spit(path, R"({"schema": "nvmesim.sweep/1", "name": "f", "trials": 1, "scenario": {"schema": "nvmesim.scenario/1",
      "host": {"kernel": "5.7"}, "controllers": [{"enable_latency": "1ms"}], "variants": [{"name": "-x"}]},
      "grid": {"/seed": [0, 1]}})");
  const std::string dir = (d / "sw").string();
  REQUIRE(run_capture("sweep " + path + " --out " + dir + " -q -j 1").status == 0);
  const auto r = merge_edited(dir, d / "m.json", [](ojson& m) {
    m["points"][1]["status"] = "failed";
    m["points"][1]["error"] = "=HYPERLINK(\"http://x\")";
    for (const char* k : {"file", "variants", "paired", "outputs"}) m["points"][1].erase(k);
  });
  INFO(r.err);
  CHECK(r.status == 1);
  const std::string csv = slurp((d / "m.csv").string());
  INFO(csv);
  CHECK(csv.find(",'-x,") != std::string::npos);
  CHECK(csv.find(",\"'=HYPERLINK(\"\"http://x\"\")\"\n") != std::string::npos);
  CHECK(csv.find(",-x,") == std::string::npos);
}

// A sweep whose axis is /trials: the manifest's "sweep" leaves "trials" out (each point's
// parameters hold it); on main it said the base's count (1 here) though the points ran 2 and 3.
// --out at a dangling symbolic link says so (on main: "exists and is not a folder").
TEST_CASE("item 22: the manifest of a /trials axis and a dangling --out link say what is true", "[issue16d][sweep]") {
  const fs::path d = scratch("trialsaxis");
  const std::string path = (d / "t.sweep.json").string();
  spit(path, R"({"schema": "nvmesim.sweep/1", "trials": 1, "scenario": {"schema": "nvmesim.scenario/1",
      "host": {"kernel": "5.7"}, "controllers": [{"enable_latency": "1ms"}]}, "grid": {"/trials": [2, 3]}})");
  const std::string dir = (d / "sw").string();
  REQUIRE(run_capture("sweep " + path + " --out " + dir + " -q -j 1").status == 0);
  const ojson m = ojson::parse(slurp(dir + "/manifest.json"));
  CHECK_FALSE(m["sweep"].contains("trials"));
  CHECK(m["points"][1]["parameters"]["/trials"] == 3);
  CHECK(run_capture("merge " + dir + " --out " + (d / "m.json").string()).status == 0);
  fs::create_symlink(d / "nowhere", d / "link");
  const auto r = run_capture("sweep " + path + " --out " + (d / "link").string() + " -q -j 1");
  INFO(r.err);
  CHECK(r.status == 3);
  CHECK(r.err.find((d / "link").string() + ": is a symbolic link to a path that does not exist (a dangling link)") !=
        std::string::npos);
}

// Issue 16 item 9's memory bound, which the functional test in test_dmesg_cli.cpp does not check:
// a 300 MiB log (a sparse hole of NUL bytes, then one probe) is read with a peak resident set
// far below its size (10 MB measured; 100 MB allowed, ASan's shadow included), so a reader that
// holds the file or its lines whole (300 MiB) fails here.
TEST_CASE("item 9: nvmesim dmesg reads a 300 MiB log within 100 MB", "[issue16d][dmesg]") {
  const fs::path d = scratch("dmesgrss");
  const std::string log = (d / "big.dmesg").string();
  fs::resize_file((spit(log, ""), log), std::uintmax_t{300} << 20);
  {
    std::ofstream f(log, std::ios::binary | std::ios::app);
    f << "\n[  714.456099] nvme_init\n[  714.532560] nvme nvme0: 32/0/0 default/read/poll queues\n";
  }
  const auto r = nvmesim::test::spawn_nvmesim({"dmesg", log, "--empirical", "--out", (d / "e.json").string()});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.peak_rss_kib < 100 * 1000);
  CHECK(slurp((d / "e.json").string()).find("76461000ns") != std::string::npos);
  fs::remove(log);
}

TEST_CASE("a shutdown after a boot in which no controller probed reports no workload time", "[issue16d]") {
  // The attack of stop 22: a never-ready controller fails every probe, so the shutdown has no
  // controller to act on; the summary said "workload: p50 0.000 ms" over 2 trials and each trial
  // "workload_ns": 0, a time over nothing. Now neither is reported; a working controller (the
  // control) still reports its shutdown.
  const fs::path d = scratch("noworkload");
  const auto scenario = [&](bool never_ready) {
    const std::string path = (d / (never_ready ? "never.json" : "ok.json")).string();
    spit(path, std::string(R"({"schema": "nvmesim.scenario/1", "trials": 2, "workload": "shutdown",
      "host": {"kernel": "5.7"}, "controllers": [{"cap": {"to": 1}, "handoff": "disabled")") +
                   (never_ready ? R"(, "faults": {"never_ready": true})" : "") + "}]}");
    return path;
  };
  const std::string never = scenario(true), ok = scenario(false);
  const auto r = run_capture("run " + never + " -q --out " + (d / "never.out.json").string());
  REQUIRE(r.status == 0);
  const ojson j = ojson::parse(slurp((d / "never.out.json").string()));
  const ojson& s = j["variants"][0]["summary"];
  CHECK(s["status"]["enodev"].get<int>() == 2);
  CHECK(!s.contains("workload_ms"));
  for (const auto& t : j["variants"][0]["trials"]) CHECK(!t.contains("workload_ns"));
  const std::string table = run_stdout("run " + never);
  CHECK(table.find("workload: p50") == std::string::npos);
  REQUIRE(run_capture("run " + ok + " -q --out " + (d / "ok.out.json").string()).status == 0);
  const ojson k = ojson::parse(slurp((d / "ok.out.json").string()));
  CHECK(k["variants"][0]["summary"]["workload_ms"]["count"].get<int>() == 2);
  fs::remove_all(d);
}
