// The outputs as sinks (outputs/sink.hpp, issue 12 item 5): every output of a run is committed
// together or none is.
// The process tests run the nvmesim binary; none of them elaborates SystemC in this process.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "outputs/csv.hpp"
#include "outputs/sink.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nvmesim::test::slurp;

namespace {

const std::string kSrc = NVMESIM_SOURCE_DIR;
const std::string kAws = kSrc + "/scenarios/aws-c5.12xlarge.json";

// A fresh folder for one test's files.
fs::path scratch(const std::string& name) {
  const fs::path d = fs::current_path() / ("sinks_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::vector<std::string> listing(const fs::path& d) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Runs a shell command line; its exit status (128 + signal when killed).
int shell(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// A file sink that writes `text` at the end, or fails while preparing.
class TextSink : public nvmesim::FileSink {
 public:
  TextSink(const std::string& path, std::string text, bool fail) : FileSink(path), text_(std::move(text)), fail_(fail) {}
  void on_trial(const nvmesim::TrialRequest&, const nvmesim::TrialResult&) override {}

 private:
  void write_end(const nvmesim::RunReport&) override {
    if (fail_) throw nvmesim::IoError("disk full (test)");
    write(text_);
  }
  std::string text_;
  bool fail_;
};

}  // namespace

TEST_CASE("a sink set commits every output or none", "[sinks]") {
  const fs::path d = scratch("set");
  {
    nvmesim::SinkSet ok;
    ok.add(std::make_unique<TextSink>((d / "a").string(), "A", false));
    ok.add(std::make_unique<TextSink>((d / "b").string(), "B", false));
    ok.commit({});
  }
  CHECK(slurp((d / "a").string()) == "A");
  CHECK(slurp((d / "b").string()) == "B");
  {
    // The first sink prepares fine, the second fails: neither file changes, no temporary is left.
    nvmesim::SinkSet failing;
    failing.add(std::make_unique<TextSink>((d / "a").string(), "new A", false));
    failing.add(std::make_unique<TextSink>((d / "b").string(), "new B", true));
    CHECK_THROWS_AS(failing.commit({}), nvmesim::IoError);
  }
  CHECK(slurp((d / "a").string()) == "A");
  CHECK(slurp((d / "b").string()) == "B");
  CHECK(listing(d) == std::vector<std::string>{"a", "b"});
  fs::remove_all(d);
}

TEST_CASE("run: when one output cannot be written, no output of the run appears", "[sinks][process]") {
  // A file size limit of 64 KiB (ulimit -f counts 1 KiB blocks): the VCD of 200 trials (~150 KiB),
  // the last sink to be prepared, fails with EFBIG; the dmesg of trial 0 (~0.4 KiB) and the trace of
  // trial 0 (~14 KiB) fit and are prepared first. On fc661df they were renamed into place one
  // after another, before the VCD failed; now none may appear (and no temporary stays).
  const fs::path d = scratch("together");
  const std::string dmesg = (d / "d.txt").string(), trace = (d / "tr.json").string(), vcd = (d / "w.vcd").string();
  const std::string outputs = " --dmesg '" + dmesg + "' --dmesg-trials 0 --trace '" + trace + "' --vcd '" + vcd + "'";
  const int rc = shell("trap '' XFSZ; ulimit -f 64; " + std::string(NVMESIM_BINARY) + " run " + kAws +
                       " --trials 200 -q" + outputs + " 2>/dev/null");
  CHECK(rc == 3);
  CHECK(listing(d).empty());  // neither the small outputs nor any temporary
  // Without the limit the same run writes all four.
  REQUIRE(shell(std::string(NVMESIM_BINARY) + " run " + kAws + " --trials 2 -q --out '" + (d / "t.json").string() +
                "'" + outputs) == 0);
  CHECK(listing(d) == std::vector<std::string>{"d.txt", "t.json", "tr.json", "w.vcd"});
  fs::remove_all(d);
}

// --- CSV (issue 10 item 10) ---

TEST_CASE("csv: milliseconds from picoseconds, exact, and RFC 4180 quoting", "[sinks][csv]") {
  // 21 349 356 789 ps = 21 349 356 ns (the 789 ps are dropped, as the timeline's *_ns) = 21.349356 ms.
  CHECK(nvmesim::csv_ms(21'349'356'789) == "21.349356");
  CHECK(nvmesim::csv_ms(0) == "0.000000");
  CHECK(nvmesim::csv_ms(999) == "0.000000");                 // under 1 ns
  CHECK(nvmesim::csv_ms(1'000) == "0.000001");               // 1 ns
  CHECK(nvmesim::csv_ms(-211'456'956'000) == "-211.456956"); // a negative delta keeps its sign
  CHECK(nvmesim::csv_ms(-500'000) == "-0.000500");
  CHECK(nvmesim::csv_quote("6.1") == "6.1");
  CHECK(nvmesim::csv_quote("a,b") == "\"a,b\"");
  CHECK(nvmesim::csv_quote("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(nvmesim::csv_quote("two\nlines") == "\"two\nlines\"");
}

namespace {
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) f.push_back(cell);
    if (!line.empty() && line.back() == ',') f.push_back("");
    rows.push_back(f);
  }
  return rows;
}
}  // namespace

TEST_CASE("run --out x.csv: one row per trial, the same times as the timeline", "[sinks][csv][process]") {
  const fs::path d = scratch("csv");
  const std::string csv = (d / "t.csv").string(), jsonl = (d / "t.jsonl").string();
  const std::string run = std::string(NVMESIM_BINARY) + " run " + kSrc + "/scenarios/crto-bogus.json --trials 3 -q";
  REQUIRE(shell(run + " --out '" + csv + "'") == 0);
  REQUIRE(shell(run + " --out '" + jsonl + "'") == 0);
  const auto rows = csv_rows(slurp(csv));
  REQUIRE(rows.size() == 1 + 4 * 3);  // header + 4 variants x 3 trials
  CHECK(rows[0] == std::vector<std::string>{"variant", "trial", "status", "probe_ms", "critical_path_ms", "namespace_ms",
                                            "workload_ms", "polls", "sleeps", "phases"});
  // Hand calculation, 6.1 trial 0 (crto-bogus.json: CAP.TO 30, enable_latency 20 ms): 6.1 waits
  // CAP.TO = 15 s with usleep_range(1000, 2000), which sleeps its upper end (2 ms) on an idle CPU.
  // The enable wait starts at ~1.0048 ms, CSTS.RDY rises 20 ms later (~21.007 ms); its reads at
  // 1.0067 + k x 2.000946 ms see RDY first at k = 10: 11 reads, 10 sleeps. The disable wait reads
  // CSTS once (RDY already 0), no sleep. Trial total: 12 polls, 10 sleeps.
  CHECK(rows[1][0] == "6.1");
  CHECK(rows[1][1] == "0");
  CHECK(rows[1][2] == "ok");
  CHECK(rows[1][5] == "");  // no CAP.CRIMS: no namespace time
  CHECK(rows[1][6] == "");  // probe workload: no workload time
  CHECK(rows[1][7] == "12");
  CHECK(rows[1][8] == "10");
  CHECK(rows[1][9] == "pre_probe[0]:0/0 disable[0]:1/0 enable[0]:11/10 admin[0]:0/0");
  // 6.3 takes CRTO.CRWMT = 0 as its timeout: every trial fails with -ENODEV.
  for (size_t r = 4; r <= 6; ++r) CHECK(rows[r][2] == "enodev");
  // Every row's times are the timeline's, trial by trial (ns there, ms with 6 decimals here).
  std::istringstream lines(slurp(jsonl));
  std::string line;
  size_t r = 1;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j["record"] != "trial") continue;
    REQUIRE(r < rows.size());
    CHECK(rows[r][0] == j["variant"].get<std::string>());
    CHECK(rows[r][1] == std::to_string(j["trial"].get<int>()));
    CHECK(rows[r][2] == j["status"].get<std::string>());
    const int64_t probe_ns = j["probe_ns"].get<int64_t>(), cp_ns = j["critical_path_ns"].get<int64_t>();
    CHECK(rows[r][3] == nvmesim::csv_ms(probe_ns * 1000));
    CHECK(rows[r][4] == nvmesim::csv_ms(cp_ns * 1000));
    ++r;
  }
  CHECK(r == rows.size());
  // --format csv says the same whatever the file is called.
  REQUIRE(shell(run + " --format csv --out '" + (d / "t.txt").string() + "'") == 0);
  CHECK(slurp((d / "t.txt").string()) == slurp(csv));
  fs::remove_all(d);
}

TEST_CASE("run: two outputs at one path, or an output at the scenario's path, are refused before the run", "[sinks][process]") {
  namespace fs = std::filesystem;
  const fs::path d = fs::current_path() / "sinks_same_path";
  fs::remove_all(d);
  fs::create_directories(d);
  const std::string dir = d.string();
  // --out and --trace at one file: only the last renamed would survive, silently. Exit 2, nothing written.
  auto r = nvmesim::test::run_capture("run -q --trials 2 --out x.json --trace ./x.json", "cd '" + dir + "' && ");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--trace ./x.json: the same file as --out (x.json)"));
  CHECK(!fs::exists(d / "x.json"));
  // --out at the scenario's own path would replace the input.
  fs::copy_file(std::string(NVMESIM_SOURCE_DIR) + "/scenarios/reload-32q.json", d / "in.json");
  const auto before = fs::file_size(d / "in.json");
  r = nvmesim::test::run_capture("run -q --trials 2 in.json --out in.json", "cd '" + dir + "' && ");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--out in.json: the same file as the scenario (in.json)"));
  CHECK(fs::file_size(d / "in.json") == before);
}
