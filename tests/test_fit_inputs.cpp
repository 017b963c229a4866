// Bad inputs of `nvmesim fit` (the attack campaign's findings on issue 14): intervals a log cannot
// hold, the same evidence twice, outputs at an input's path, missing options, hosts the simulator
// refuses, and SIGINT/SIGTERM during the fit. Each is exit 2 naming the file and the JSON pointer
// or the log line (exit 130/143 for a signal), with nothing written and no temporary folder left.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "fit/observations.hpp"
#include "support.hpp"

using namespace nvmesim;
namespace fs = std::filesystem;

namespace {

const std::string kDir = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/observations/";
const char* kHost = R"("hosts": {"h": {"kernel": "5.6", "hz": 250, "tick": "nohz_idle", "cpus": 48}})";
const char* kInit = "initcall nvme_init+0x0/0x5b returned 0 after 37 usecs";
const char* kQueues = "nvme nvme0: 2/0/0 default/read/poll queues";

std::string log_error(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  try {
    (void)read_log_runs(text, "boot.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string obs_error(const std::string& logs) {
  try {
    (void)parse_observations(std::string(R"({"schema": "nvmesim.observations/1", )") + kHost + ", \"logs\": " + logs + "}",
                             "obs.json", "/tmp");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// A private folder per test (the fit's temporary folders go into it through TMPDIR).
std::string fresh_dir(const std::string& name) {
  const std::string d = "/tmp/nvmesim-test-" + name + "-" + std::to_string(::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("fit logs: zero, backwards and huge intervals are exit 2 at the log line", "[fit][obs][inputs]") {
  // Two lines of a run at the same microsecond: no stage takes 0 us.
  CHECK_THAT(log_error({std::string("[    1.000000] ") + kInit, std::string("[    1.000000] ") + kQueues}),
             Catch::Contains("boot.txt: line 2: the \"queues\" line is at the same time as the \"init\" line 1 (0 us apart)"));
  // The time going backwards inside a run, before its queues line (as nvmesim dmesg, it ends the run).
  CHECK_THAT(log_error({std::string("[    1.000000] ") + kInit, "[    0.500000] random line", std::string("[    1.2] ") + kQueues}),
             Catch::Contains("boot.txt: line 2: the time goes backwards (line 1 is later) inside the run of line 1, before its queues line"));
  CHECK_THAT(log_error({std::string("[    1.000000] ") + kInit, std::string("[    0.500000] ") + kQueues}),
             Catch::Contains("line 2: the time goes backwards"));
  // A stage line out of the chain's order: the partition line before the queues line.
  CHECK_THAT(log_error({std::string("[    1.000000] ") + kInit, "[    1.100000]  nvme0n1: p1", std::string("[    1.200000] ") + kQueues}),
             Catch::Contains("line 2: the \"part\" line is earlier than the \"queues\" line 3"));
  // 99998 s from driver init to the queues line: more than 300 s (2 x CAP.TO max 127.5 s + admin).
  CHECK_THAT(log_error({std::string("[    1.000000] ") + kInit, std::string("[99999.000000] ") + kQueues}),
             Catch::Contains("line 2: the \"queues\" line is 99998 s after the \"init\" line 1; an interval may be at most 300 s"));
  // 300 s exactly is allowed, 300 s + 1 us is not.
  CHECK(log_error({std::string("[    1.000000] ") + kInit, std::string("[  301.000000] ") + kQueues}) == "no error");
  CHECK_THAT(log_error({std::string("[    1.000000] ") + kInit, std::string("[  301.000001] ") + kQueues}),
             Catch::Contains("at most 300 s"));
  // Two boots in one log, the clock restarting between them: two runs, 217.242 and 6.369 ms.
  const std::string two = std::string("[    0.546936] ") + kInit + "\n[    0.764178] " + kQueues + "\n[    0.000000] Linux version 5.7\n" +
                          "[    0.537088] " + kInit + "\n[    0.543457] " + kQueues + "\n";
  const auto runs = read_log_runs(two, "two.txt");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].at(BootLine::queues) - runs[0].at(BootLine::init) == 217'242'000);
  CHECK(runs[1].at(BootLine::queues) - runs[1].at(BootLine::init) == 6'369'000);
  // The CLI: exit 2 naming the file and line, no posterior.
  const std::string d = fresh_dir("fit-zero");
  test::spit(d + "/zero.txt", std::string("[    1.000000] ") + kInit + "\n[    1.000000] " + kQueues + "\n");
  const auto r = test::run_capture("fit --log " + d + "/zero.txt --kernel 5.6 --hz 250 --tick nohz_idle --cpus 4 --out " + d + "/p.json");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("zero.txt: line 2: the \"queues\" line is at the same time as"));
  CHECK_FALSE(fs::exists(d + "/p.json"));
  fs::remove_all(d);
}

TEST_CASE("fit observations: the same run given twice is exit 2 naming both logs", "[fit][obs][inputs]") {
  const std::string log = std::string(R"(["[    0.546936] )") + kInit + R"(", "[    0.764178] )" + kQueues + R"("])";
  CHECK_THAT(obs_error("[{\"host\": \"h\", \"text\": " + log + "}, {\"host\": \"h\", \"text\": " + log + "}]"),
             Catch::Contains("obs.json: /logs/1: obs.json: /logs/1/text: the run at line 1 is the run at line 1 of /logs/0 "
                             "(obs.json: /logs/0/text) again"));
  // The same file listed twice (a path each time).
  const std::string d = fresh_dir("fit-twice");
  test::spit(d + "/boot.txt", std::string("[    0.546936] ") + kInit + "\n[    0.764178] " + kQueues + "\n");
  test::spit(d + "/obs.json", std::string(R"({"schema": "nvmesim.observations/1", )") + kHost +
                                  R"(, "logs": [{"host": "h", "path": "boot.txt"}, {"host": "h", "path": "./boot.txt"}]})");
  const auto r = test::run_capture("fit " + d + "/obs.json --out " + d + "/p.json");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("/logs/1: boot.txt: the run at line 1 is the run at line 1 of /logs/0 (boot.txt) again"));
  CHECK_FALSE(fs::exists(d + "/p.json"));
  // Two different boots are two runs.
  const std::string other = std::string(R"(["[    0.546936] )") + kInit + R"(", "[    0.764179] )" + kQueues + R"("])";
  CHECK(obs_error("[{\"host\": \"h\", \"text\": " + log + "}, {\"host\": \"h\", \"text\": " + other + "}]") == "no error");
  fs::remove_all(d);
}

TEST_CASE("fit: inputs the simulator would refuse are exit 2 at the log, never exit 4 at a temporary file", "[fit][obs][inputs]") {
  // "0/0/0 default/read/poll queues": the chunk scenario's io_queues 0 was exit 4 naming
  // /tmp/nvmesim-fit-*/c0.json.
  CHECK_THAT(obs_error(std::string(R"([{"host": "h", "text": ["[    0.5] )") + kInit +
                       R"(", "[    0.7] nvme nvme0: 0/0/0 default/read/poll queues"]}])"),
             Catch::Contains("obs.json: /logs/0: line 2 of the log: 0 I/O queues in the queues line"));
  const std::string d = fresh_dir("fit-q0");
  test::spit(d + "/q0.txt", std::string("[    0.5] ") + kInit + "\n[    0.7] nvme nvme0: 0/0/0 default/read/poll queues\n");
  const auto r = test::run_capture("fit --log " + d + "/q0.txt --kernel 5.6 --hz 250 --tick nohz_idle --cpus 4 --out " + d + "/p.json",
                                   "TMPDIR=" + d + " ");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("q0.txt"));
  CHECK_THAT(r.err, !Catch::Contains("nvmesim-fit-"));
  // Empty files, folders, binary files and truncated JSON as the observation file, the --log
  // file and a log named in the observation file: exit 2 naming the user's file.
  test::spit(d + "/empty.txt", "");
  fs::create_directories(d + "/folder");
  test::spit(d + "/binary.txt", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\xff\xfe", 12));
  test::spit(d + "/trunc.json", std::string(R"({"schema": "nvmesim.observations/1", "hosts": {"h": {"kernel": )"));
  for (const std::string f : {"empty.txt", "folder", "binary.txt", "trunc.json"}) {
    INFO(f);
    const std::string p = d + "/" + f;
    auto one = test::run_capture("fit " + p + " --out " + d + "/p.json", "TMPDIR=" + d + " ");
    CHECK(one.status == 2);
    CHECK_THAT(one.err, Catch::Contains(f) && !Catch::Contains("nvmesim-fit-"));
    one = test::run_capture("fit --log " + p + " --kernel 5.6 --hz 250 --tick nohz_idle --cpus 4 --out " + d + "/p.json",
                            "TMPDIR=" + d + " ");
    CHECK(one.status == 2);
    CHECK_THAT(one.err, Catch::Contains(f) && !Catch::Contains("nvmesim-fit-"));
    test::spit(d + "/obs.json", std::string(R"({"schema": "nvmesim.observations/1", )") + kHost +
                                    R"(, "logs": [{"host": "h", "path": ")" + f + R"("}]})");
    one = test::run_capture("fit " + d + "/obs.json --out " + d + "/p.json", "TMPDIR=" + d + " ");
    CHECK(one.status == 2);
    CHECK_THAT(one.err, Catch::Contains(f) && !Catch::Contains("nvmesim-fit-"));
  }
  CHECK_FALSE(fs::exists(d + "/p.json"));
  fs::remove_all(d);
}

TEST_CASE("fit: --out at --scenario-out or at an input is exit 2 before the run, the input kept", "[fit][inputs]") {
  const std::string d = fresh_dir("fit-paths");
  const std::string obs = kDir + "aws-c5.12xlarge-5.6.json";
  const std::string before = test::slurp(obs);
  auto r = test::run_capture("fit " + obs + " --out " + d + "/p.json --scenario-out " + d + "/./p.json");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--scenario-out " + d + "/./p.json: the same file as --out"));
  r = test::run_capture("fit " + obs + " --out " + obs);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--out " + obs + ": the same file as the observation file"));
  r = test::run_capture("fit " + obs + " --out " + d + "/p.json --scenario-out " + obs);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("the same file as the observation file"));
  CHECK(test::slurp(obs) == before);
  // The --log file, also through a hard link; and a log named in the observation file.
  test::spit(d + "/boot.txt", std::string("[    0.546936] ") + kInit + "\n[    0.764178] " + kQueues + "\n");
  fs::create_hard_link(d + "/boot.txt", d + "/link.txt");
  r = test::run_capture("fit --log " + d + "/boot.txt --kernel 5.6 --hz 250 --tick nohz_idle --cpus 4 --out " + d + "/link.txt");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--out " + d + "/link.txt: the same file as --log"));
  test::spit(d + "/obs.json", std::string(R"({"schema": "nvmesim.observations/1", )") + kHost +
                                  R"(, "logs": [{"host": "h", "path": "boot.txt"}]})");
  r = test::run_capture("fit " + d + "/obs.json --out " + d + "/p.json --scenario-out " + d + "/boot.txt");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--scenario-out " + d + "/boot.txt: the same file as the log"));
  CHECK(test::slurp(d + "/boot.txt") == std::string("[    0.546936] ") + kInit + "\n[    0.764178] " + kQueues + "\n");
  // --scenario-out in a folder that does not exist: exit 3 before the run, no posterior.
  r = test::run_capture("fit " + d + "/obs.json --out " + d + "/p.json --scenario-out " + d + "/no/dev.json");
  CHECK(r.status == 3);
  CHECK_FALSE(fs::exists(d + "/p.json"));
  fs::remove_all(d);
}

TEST_CASE("fit --log names every missing option at once", "[fit][inputs]") {
  auto r = test::run_capture("fit --log /nonexistent.txt --out /tmp/x.json");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--log needs --kernel (or --uname-r) --hz --tick --cpus"));
  r = test::run_capture("fit --log /nonexistent.txt --hz 250 --out /tmp/x.json");
  CHECK_THAT(r.err, Catch::Contains("--log needs --kernel (or --uname-r) --tick --cpus ("));
  r = test::run_capture("fit --log /nonexistent.txt --kernel 5.6 --uname-r 5.6.0 --hz 250 --tick nohz_idle --cpus 4 --out /tmp/x.json");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("exactly one of --kernel or --uname-r, not both"));
}

namespace {

// Starts `nvmesim fit OBS --out OUT` with TMPDIR=tmp; returns its pid.
pid_t start_fit(const std::string& obs, const std::string& out, const std::string& tmp) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("TMPDIR", tmp.c_str(), 1);
    const int nul = ::open("/dev/null", O_RDWR);
    ::dup2(nul, 1), ::dup2(nul, 2);
    ::execl(NVMESIM_BINARY, NVMESIM_BINARY, "fit", obs.c_str(), "--out", out.c_str(), "--scenario-out",
            (out + ".dev.json").c_str(), "-q", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// True once a chunk scenario exists in a fit folder under tmp (a simulator child is running).
bool chunk_running(const std::string& tmp) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tmp, ec))
    if (e.path().filename().string().rfind("nvmesim-fit-", 0) == 0)
      for (const auto& f : fs::directory_iterator(e.path(), ec))
        if (f.path().extension() == ".json") return true;
  return false;
}

}  // namespace

TEST_CASE("fit: SIGTERM and SIGINT stop the children, remove the temporary folder, exit 143/130", "[fit][inputs][signal]") {
  for (const int sig : {SIGTERM, SIGINT}) {
    INFO("signal " << sig);
    const std::string d = fresh_dir("fit-signal");
    fs::create_directories(d + "/tmp");
    const pid_t pid = start_fit(kDir + "aws-c5.12xlarge.json", d + "/p.json", d + "/tmp");
    REQUIRE(pid > 0);
    for (int i = 0; i < 3000 && !chunk_running(d + "/tmp"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(chunk_running(d + "/tmp"));
    ::kill(pid, sig);
    int st = 0;
    REQUIRE(::waitpid(pid, &st, 0) == pid);
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 128 + sig);
    CHECK(fs::is_empty(d + "/tmp"));  // no nvmesim-fit-* folder left
    CHECK_FALSE(fs::exists(d + "/p.json"));
    CHECK_FALSE(fs::exists(d + "/p.json.dev.json"));
    fs::remove_all(d);
  }
}

TEST_CASE("fit observations: a filtered copy of a log or two filters of one boot are the same boot, exit 2 naming both",
          "[fit][obs][inputs]") {
  const std::string full = std::string(R"(["[    0.546936] )") + kInit + R"(", "[    0.764178] )" + kQueues +
                           R"(", "[    0.768424]  nvme0n1: p1"])";
  // `grep -v nvme0n1` of the same boot: its init and queues lines at the same microseconds.
  const std::string filtered = std::string(R"(["[    0.546936] )") + kInit + R"(", "[    0.764178] )" + kQueues + R"("])";
  CHECK_THAT(obs_error("[{\"host\": \"h\", \"text\": " + full + "}, {\"host\": \"h\", \"text\": " + filtered + "}]"),
             Catch::Contains("obs.json: /logs/1: obs.json: /logs/1/text: the run at line 1 has the init, queues lines of the "
                             "run at line 1 of /logs/0 (obs.json: /logs/0/text) at the same times: the same boot given twice"));
  // The filtered copy first, the full log second: the same.
  CHECK_THAT(obs_error("[{\"host\": \"h\", \"text\": " + filtered + "}, {\"host\": \"h\", \"text\": " + full + "}]"),
             Catch::Contains("/logs/1/text: the run at line 1 has the init, queues lines of the run at line 1 of /logs/0"));
  // Two filters of one boot that share only the queues line (`grep -e initcall -e queues` and
  // `grep 'nvme0'`, whose run starts at the pci function line).
  const std::string tail = std::string(R"(["[    0.760000] nvme nvme0: pci function 0000:00:04.0", "[    0.764178] )") +
                           kQueues + R"(", "[    0.768424]  nvme0n1: p1"])";
  CHECK_THAT(obs_error("[{\"host\": \"h\", \"text\": " + filtered + "}, {\"host\": \"h\", \"text\": " + tail + "}]"),
             Catch::Contains("has the queues line of the run at line 1 of /logs/0 (obs.json: /logs/0/text) at the same time: "
                             "the same boot given twice"));
  // Two boots that share one line's time but not the other's are two runs.
  const std::string other = std::string(R"(["[    0.546936] )") + kInit + R"(", "[    0.764179] )" + kQueues + R"("])";
  CHECK(obs_error("[{\"host\": \"h\", \"text\": " + full + "}, {\"host\": \"h\", \"text\": " + other + "}]") == "no error");
}

TEST_CASE("fit --print-observations checks the log as fit does - options of the other mode are refused", "[fit][inputs]") {
  const std::string d = fresh_dir("fit-print");
  const std::string host = " --kernel 5.6 --hz 250 --tick nohz_idle --cpus 4";
  test::spit(d + "/zero.txt", std::string("[    1.000000] ") + kInit + "\n[    1.000000] " + kQueues + "\n");
  test::spit(d + "/ok.txt", std::string("[    0.546936] ") + kInit + "\n[    0.764178] " + kQueues + "\n");
  // It printed every one of these (exit 0) without reading the log.
  auto r = test::run_capture("fit --log " + d + "/zero.txt" + host + " --print-observations");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("zero.txt: line 2: the \"queues\" line is at the same time as"));
  r = test::run_capture("fit --log " + d + "/missing.txt" + host + " --print-observations");
  CHECK(r.status == 3);
  r = test::run_capture("fit --log " + d + "/ok.txt" + host + " --kind reset --print-observations");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("\"reset\" logs are not fitted by this version yet"));
  r = test::run_capture("fit --log " + d + "/ok.txt --kernel 5.6 --hz 250 --tick nohz_idle --cpus 1 --print-observations");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("2 I/O queues in the queues line, more than the host's 1 cpus"));
  r = test::run_capture("fit --log " + d + "/ok.txt" + host + " --print-observations --out " + d + "/p.json");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--print-observations prints the observation file and stops: --out would be ignored"));
  // A good log prints its observation file, which fit reads back.
  CHECK(std::system((std::string(NVMESIM_BINARY) + " fit --log " + d + "/ok.txt" + host + " --print-observations > " + d +
                     "/obs.json 2>/dev/null").c_str()) == 0);
  CHECK(load_observations(d + "/obs.json").runs.size() == 1);
  // The host options belong to --log: with an observation file they were silently ignored.
  r = test::run_capture("fit " + kDir + "aws-c5.12xlarge.json --kernel 6.6 --out " + d + "/p.json");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--kernel is an option of --log LOG"));
  r = test::run_capture("fit " + kDir + "aws-c5.12xlarge.json --print-observations");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--print-observations is an option of --log LOG"));
  CHECK_FALSE(fs::exists(d + "/p.json"));
  // --kind's help names every kind the reader knows, reset included.
  CHECK(std::system((std::string(NVMESIM_BINARY) + " fit --help > " + d + "/help.txt").c_str()) == 0);
  // Boost wraps the help at 80 columns: compare with the white space runs made single spaces.
  std::string help;
  for (char c : read_text_file(d + "/help.txt")) {
    const bool space = c == ' ' || c == '\n';
    if (!(space && !help.empty() && help.back() == ' ')) help += space ? ' ' : c;
  }
  CHECK_THAT(help, Catch::Contains("--log: boot or module_reload (reset, `nvme reset`, is a kind"));
  fs::remove_all(d);
}

TEST_CASE("fit: a dumped CAP that makes every probe fail is exit 2 saying what to check, nothing written",
          "[fit][obs][inputs]") {
  // CAP 0x4028033fff has CSS bit 38 set and bit 37 (the NVM command set) clear: Linux refuses the
  // controller, so no parameter set in the prior gives the log's queues line. It was exit 4,
  // "internal error", for a problem of the input.
  const std::string d = fresh_dir("fit-dump-css");
  test::spit(d + "/regs.txt", "cap     : 4028033fff\nversion : 10400\n");
  test::spit(d + "/obs.json", std::string(R"({"schema": "nvmesim.observations/1", "machine": {"show_regs": {"path": "regs.txt"}}, )") +
                                  kHost + R"(, "logs": [{"host": "h", "text": ["[    0.546936] )" + kInit +
                                  R"(", "[    0.764178] )" + kQueues + R"("]}]})");
  const auto r = test::run_capture("fit " + d + "/obs.json --out " + d + "/p.json");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("no particle can reproduce the logs") && Catch::Contains("a CAP without the NVM command set"));
  CHECK_FALSE(fs::exists(d + "/p.json"));
}
