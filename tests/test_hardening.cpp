// Bad input, failing outputs, signals and limits (issue 6): whatever the input, nvmesim answers
// with a clear error or a correct result, never a crash, a hang or a half-written file.
// Runs the nvmesim binary, one process per run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/duration.hpp"
#include "core/signals.hpp"
#include "core/version.hpp"
#include "scenario/scenario.hpp"
#include "support.hpp"

namespace fs = std::filesystem;

using nvmesim::test::slurp;

namespace {

struct Result {
  int status = -1;   ///< exit status, or 128 + signal when killed
  std::string err;   ///< stderr
};

// Runs `nvmesim ARGS` through the shell; stdout is discarded, stderr captured.
Result run_cli(const std::string& args, const std::string& prefix = "") {
  const std::string cmd = prefix + std::string(NVMESIM_BINARY) + " " + args + " 2>&1 >/dev/null";
  Result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.err.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}


// A fresh folder for one test's outputs.
fs::path scratch(const std::string& name) {
  const fs::path d = fs::current_path() / ("hardening_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Names of the files in `dir` (temporary files of AtomicFile start with a dot).
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

const std::string kSource = NVMESIM_SOURCE_DIR;
const std::string kAws = kSource + "/scenarios/aws-c5.12xlarge.json";

}  // namespace

TEST_CASE("every file of the bad corpus exits 2 with its message and writes nothing", "[hardening][bad]") {
  // Paths relative to the source folder, as a user would type them: the message starts with it.
  const fs::path dir = fs::path(kSource) / "tests/data/bad";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 30);
  const fs::path out = scratch("bad");
  for (const fs::path& f : files) {
    const fs::path expect_file = fs::path(f).replace_extension(".expect");
    REQUIRE(fs::exists(expect_file));
    std::string expect = slurp(expect_file.string());
    while (!expect.empty() && (expect.back() == '\n' || expect.back() == '\r')) expect.pop_back();
    REQUIRE(!expect.empty());
    const std::string rel = "tests/data/bad/" + f.filename().string();
    const std::string want = "nvmesim: error: " + rel + expect;
    INFO(rel);
    const Result v = run_cli("validate " + rel, "cd '" + kSource + "' && ");
    CHECK(v.status == 2);
    CHECK_THAT(v.err, Catch::Contains(want));
    const std::string target = (out / "out.json").string();
    const Result r = run_cli("run " + rel + " -q --out '" + target + "'", "cd '" + kSource + "' && ");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(want));
    CHECK(listing(out).empty());  // neither the output nor a temporary file
  }
  fs::remove_all(out);
}

TEST_CASE("outputs to a device - a missing folder - a folder or a file in the path exit 3 and leave nothing", "[hardening][output]") {
  const fs::path d = scratch("targets");
  struct Case {
    std::string target, message;
  };
  std::ofstream(d / "plain") << "x";
  const std::vector<Case> cases = {
      {"/dev/full", "/dev/full: cannot write an output here: it is a character device"},
      {"/dev/null", "/dev/null: cannot write an output here: it is a character device"},
      {(d / "no-such-folder" / "t.json").string(), "does not exist"},
      {(d / "plain" / "t.json").string(), "cannot use the folder"},
      {d.string(), "it is a directory"},
      {(d / "").string(), "not a file name"},
  };
  for (const Case& c : cases) {
    INFO(c.target);
    const Result r = run_cli("run --trials 2 -q --out '" + c.target + "'");
    CHECK(r.status == 3);
    CHECK_THAT(r.err, Catch::StartsWith("nvmesim: error: ") && Catch::Contains(c.message));
  }
  // The devices are still devices (renaming the temporary file over them once replaced them).
  struct stat st {};
  REQUIRE(::stat("/dev/full", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(listing(d) == std::vector<std::string>{"plain"});
  fs::remove_all(d);
}

TEST_CASE("a full disk exits 3 and leaves the previous file as it was", "[hardening][output]") {
  // A file size limit of 64 KiB (ulimit -f counts 1 KiB blocks) makes write() fail with EFBIG as
  // a full disk fails with ENOSPC; SIGXFSZ is ignored so that the process sees the error.
  const fs::path d = scratch("full");
  const std::string target = (d / "t.json").string();
  std::ofstream(target) << "previous";
  const Result r = run_cli("run " + kAws + " --trials 200 -q --out '" + target + "'",
                           "trap '' XFSZ; ulimit -f 64; ");
  CHECK(r.status == 3);
  CHECK_THAT(r.err, Catch::Contains(target + ": write failed (File too large); nothing was written"));
  CHECK(slurp(target) == "previous");
  CHECK(listing(d) == std::vector<std::string>{"t.json"});
  // Results on stdout are an output too.
  const int st = std::system((std::string(NVMESIM_BINARY) + " run --trials 2 >/dev/full 2>/dev/null").c_str());
  CHECK(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 3);
  fs::remove_all(d);
}

namespace {
// Starts `nvmesim run` on a long run, waits until its temporary output exists, sends `sig`, and
// returns the exit status. The run must exit by itself (its handler turns the signal into a clean
// stop and exit 128 + signal); dying of the signal, as without a handler, fails. Fails if it does
// not stop within 60 s.
int interrupt_run(const fs::path& d, int sig) {
  const std::string target = (d / "t.jsonl").string();
  nvmesim::test::SpawnOptions o;
  o.ready = [&] {
    for (const auto& name : listing(d))
      if (name.rfind(".t.jsonl.tmp.", 0) == 0) return true;
    return false;
  };
  o.signals = {sig};
  // 10^6 trials x 2 variants: about a minute, far longer than the wait for the temporary.
  const auto r = nvmesim::test::spawn_nvmesim({"run", kAws, "--trials", "1000000", "-q", "--out", target}, o);
  INFO(r.err);
  CHECK(r.ready);
  CHECK(r.ended);
  CHECK(r.term_signal == 0);
  return r.status;
}
}  // namespace

TEST_CASE("SIGINT during run exits 130 and removes the partial output", "[hardening][signal]") {
  const fs::path d = scratch("sigint");
  CHECK(interrupt_run(d, SIGINT) == 130);
  CHECK(listing(d).empty());
  fs::remove_all(d);
}

TEST_CASE("SIGTERM during run exits 143 and removes the partial output", "[hardening][signal]") {
  const fs::path d = scratch("sigterm");
  CHECK(interrupt_run(d, SIGTERM) == 143);
  CHECK(listing(d).empty());
  fs::remove_all(d);
}

TEST_CASE("a busy poll against never-ready controllers ends with an error - not hours", "[hardening][limits]") {
  const fs::path d = scratch("limits");
  const std::string target = (d / "t.json").string();
  // 1024 never-ready controllers, CAP.TO 255 (127.5 s), polling without sleeping: the whole
  // deadline would be ~10^8 reads each. The per-trial limit stops it (lowered here to keep the
  // test fast; the default is 4000000).
  const std::string many = R"({"schema":"nvmesim.scenario/1","host":{"kernel":"5.6","overrides":{"poll":"busy"},)"
                           R"("max_events_per_trial":20000},"controllers":[{"count":1024,"cap":{"to":255},)"
                           R"("faults":{"never_ready":true}}]})";
  std::ofstream(d / "many.json") << many;
  Result r = run_cli("run '" + (d / "many.json").string() + "' -q --out '" + target + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("trial stopped: the trial made more than 20000 MMIO accesses and sleeps over all "
                                    "controllers (limit host.max_events_per_trial)"));
  // One controller: the per-wait poll limit.
  const std::string one = R"({"schema":"nvmesim.scenario/1","host":{"kernel":"5.6","overrides":{"poll":"busy"},)"
                          R"("max_polls_per_wait":5000},"controllers":[{"cap":{"to":255},"faults":{"never_ready":true}}]})";
  std::ofstream(d / "one.json") << one;
  r = run_cli("run '" + (d / "one.json").string() + "' -q --out '" + target + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("made 5000 CSTS reads in one readiness wait (limit host.max_polls_per_wait = 5000)"));
  CHECK(listing(d) == std::vector<std::string>{"many.json", "one.json"});
  fs::remove_all(d);
}

TEST_CASE("the default event limit stops a busy never-ready poll", "[hardening][limits]") {
  // Default limits, no output: 127.5 s of busy polling would be ~10^8 reads of ~1.1 us; the
  // default max_events_per_trial (4000000 reads and sleeps) ends it after 2000000 polls.
  const fs::path d = scratch("default_limit");
  std::ofstream(d / "s.json") << R"({"schema":"nvmesim.scenario/1","host":{"kernel":"5.6","overrides":{"poll":"busy"}},)"
                                 R"("controllers":[{"cap":{"to":255},"faults":{"never_ready":true}}]})";
  const Result r = run_cli("run '" + (d / "s.json").string() + "' -q");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("more than 4000000 MMIO accesses and sleeps"));
  fs::remove_all(d);
}

TEST_CASE("deep nesting - huge numbers and bad UTF-8 on the command line are input errors", "[hardening][bad]") {
  // Deeply nested arrays overflowed the stack when the document was copied (100000 levels in a
  // file crashed validate). One argument may hold at most 128 KiB, so 20000 levels here.
  const std::string deep = std::string(20000, '[') + std::string(20000, ']');
  Result r = run_cli("run -q --trials 1 --set '/description=" + deep + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("nvmesim: error: --set /description:1:65: JSON nested deeper than 64 levels"));
  r = run_cli("run -q --trials 1 --set \"/name=$(printf '\\377')\"");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--set /name: the value is not valid UTF-8 text"));
  // Setting index 9999999 of a one-element array used to fill it with 10^7 nulls (~0.5 GB).
  r = run_cli("run -q --trials 1 --set '/controllers/9999999={}'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--set /controllers/9999999: \"9999999\" is not an index of /controllers in "
                                    "aws-c5.12xlarge.json (built in) (1 element); allowed: 0 to 1, or - to append"));
  r = run_cli("validate '" + kSource + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(kSource + ": cannot read: it is a folder, not a file"));
}

TEST_CASE("repeated runs give the same bytes in both formats and record the version and resolved scenario", "[hardening][determinism]") {
  const fs::path d = scratch("determinism");
  for (const char* ext : {"json", "jsonl"}) {
    std::string first;
    for (int i = 0; i < 3; ++i) {
      const std::string out = (d / ("r" + std::to_string(i) + "." + ext)).string();
      const Result r = run_cli("run " + kAws + " --trials 30 --seed 11 --set /host/hz=1000 -q --out '" + out + "'");
      REQUIRE(r.status == 0);
      const std::string bytes = slurp(out);
      CHECK(bytes.size() > 1000);
      if (i == 0) first = bytes;
      else CHECK(bytes == first);
    }
    // The header names the tool and version, and holds the scenario as run: after --set, --trials
    // and --seed.
    const std::string line = first.substr(0, first.find('\n'));
    const auto j = nlohmann::json::parse(std::string(ext) == "json" ? first : line);
    CHECK(j["tool"]["name"] == "nvmesim");
    CHECK(j["tool"]["version"] == nvmesim::kVersion);
    CHECK(j["scenario"]["host"]["hz"] == 1000);
    CHECK(j["scenario"]["trials"] == 30);
    CHECK(j["scenario"]["seed"] == 11);
    CHECK(first.find(kSource) == std::string::npos);  // no paths in outputs
  }
  fs::remove_all(d);
}

TEST_CASE("regression inputs of the fuzz targets load or fail with an input error", "[hardening][fuzz]") {
  size_t n = 0;
  for (const char* kind : {"scenario", "duration"}) {
    const fs::path dir = fs::path(kSource) / "tests/data/fuzz" / kind;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string text = slurp(e.path().string());
      INFO(e.path().string());
      ++n;
      try {
        if (std::string(kind) == "scenario") (void)nvmesim::load_scenario_text(text, "fuzz.json");
        else (void)nvmesim::parse_duration_ps(text);
      } catch (const nvmesim::InputError& err) {
        CHECK_THAT(err.what(), Catch::StartsWith("fuzz.json"));
      } catch (const nvmesim::ParseError&) {
      }
    }
  }
  CHECK(n >= 5);
  // The duration that used to overflow parses exactly: 0.1 s = 10^11 ps.
  CHECK(nvmesim::parse_duration_ps(slurp(kSource + "/tests/data/fuzz/duration/fraction-30-digits")) ==
        100'000'000'000);
}

TEST_CASE("AtomicFile replaces the target only on commit - and StopSignals turns signals into a flag", "[hardening][output][signal]") {
  const fs::path d = scratch("atomic");
  const std::string target = (d / "t.txt").string();
  std::ofstream(target) << "old";
  {
    nvmesim::AtomicFile f(target);
    f.write("half of it");
    CHECK(listing(d).size() == 2);  // the target and the temporary file beside it
  }                                 // not committed: the temporary is removed
  CHECK(listing(d) == std::vector<std::string>{"t.txt"});
  CHECK(slurp(target) == "old");
  {
    nvmesim::AtomicFile f(target);
    f.write("new");
    f.commit();
    CHECK_THROWS_AS(f.commit(), nvmesim::IoError);
  }
  CHECK(slurp(target) == "new");
  CHECK(listing(d) == std::vector<std::string>{"t.txt"});
  // A symbolic link as the target is refused: the rename would replace the link, not write
  // through it (attack of stop 25: `-o /dev/stdout` replaced the system's link).
  fs::create_symlink("t.txt", d / "link.txt");
  CHECK_THROWS_WITH(nvmesim::AtomicFile((d / "link.txt").string()),
                    Catch::Contains("link.txt: cannot write an output here: it is a symbolic link (to t.txt)"));
  CHECK(fs::is_symlink(d / "link.txt"));
  CHECK(slurp(target) == "new");
  fs::remove_all(d);

  // 128 + signal, as shells report a process killed by the signal.
  CHECK(nvmesim::Interrupted(SIGINT).exit_status() == 130);
  CHECK(nvmesim::Interrupted(SIGTERM).exit_status() == 143);
  struct sigaction before {};
  ::sigaction(SIGTERM, nullptr, &before);
  {
    nvmesim::StopSignals guard;
    CHECK_FALSE(nvmesim::stop_requested());
    std::raise(SIGTERM);  // only sets the flag: this process goes on
    CHECK(nvmesim::stop_requested());
    CHECK(nvmesim::stop_signal() == SIGTERM);
  }
  struct sigaction after {};
  ::sigaction(SIGTERM, nullptr, &after);
  CHECK(after.sa_handler == before.sa_handler);  // the guard restored the previous handler
  nvmesim::clear_stop();
}
