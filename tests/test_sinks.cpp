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
#include <string>
#include <vector>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
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
