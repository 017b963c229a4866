// The observation file and the log reader of `nvmesim fit` (fit/observations.hpp,
// tools/boot_lines.hpp). Expected intervals are the published log times, subtracted by hand.
#include <catch2/catch.hpp>

#include <sstream>

#include "cli/cli.hpp"
#include "core/errors.hpp"
#include "fit/observations.hpp"
#include "fit/problems.hpp"
#include "support.hpp"

using namespace nvmesim;

namespace {

const std::string kDir = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/observations/";

double iv_ms(const ObsRun& r, BootLine a, BootLine b) { return static_cast<double>(r.lines.at(b) - r.lines.at(a)) / 1e6; }

std::string error_of(const std::string& text) {
  try {
    parse_observations(text, "obs.json", "");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kHost = R"("hosts": {"h": {"kernel": "5.6", "hz": 250, "tick": "nohz_idle", "cpus": 48}})";
const char* kLog = R"(["[    0.546936] initcall nvme_init+0x0/0x5b returned 0 after 37 usecs",
                       "[    0.764178] nvme nvme0: 2/0/0 default/read/poll queues"])";

std::string obs_with(const std::string& hosts, const std::string& logs) {
  return std::string(R"({"schema": "nvmesim.observations/1", )") + hosts + ", \"logs\": " + logs + "}";
}

}  // namespace

TEST_CASE("observations: the two AWS boots give the published intervals of every line pair", "[fit][obs]") {
  const Observations o = load_observations(kDir + "aws-c5.12xlarge.json");
  REQUIRE(o.hosts.size() == 2);
  REQUIRE(o.runs.size() == 2);
  const ObsRun& a = o.runs[0];
  CHECK(o.hosts[a.host].kernel == "5.6");
  // 0.764178 - 0.546936 = 0.217242 s; 0.768424 - 0.764178 = 4.246 ms; 0.774132 - 0.768424 = 5.708 ms;
  // 0.774146 - 0.774132 = 14 us; 0.788141 - 0.774146 = 13.995 ms (shared/cases/README.md section 1).
  CHECK(iv_ms(a, BootLine::init, BootLine::queues) == Approx(217.242).margin(1e-9));
  CHECK(iv_ms(a, BootLine::queues, BootLine::part) == Approx(4.246).margin(1e-9));
  CHECK(iv_ms(a, BootLine::part, BootLine::mounted) == Approx(5.708).margin(1e-9));
  CHECK(iv_ms(a, BootLine::mounted, BootLine::vfs) == Approx(0.014).margin(1e-9));
  CHECK(iv_ms(a, BootLine::vfs, BootLine::run_init) == Approx(13.995).margin(1e-9));
  CHECK(iv_ms(a, BootLine::init, BootLine::run_init) == Approx(241.205).margin(1e-9));
  CHECK(!a.lines.present(BootLine::pci));
  CHECK(a.lines.io_queues == 2);
  const ObsRun& b = o.runs[1];
  // 0.543457 - 0.537088 = 6.369 ms; 0.567931 - 0.537088 = 30.843 ms.
  CHECK(iv_ms(b, BootLine::init, BootLine::queues) == Approx(6.369).margin(1e-9));
  CHECK(iv_ms(b, BootLine::init, BootLine::run_init) == Approx(30.843).margin(1e-9));
  CHECK(observed_interval_count(o) == 10);
  CHECK_FALSE(splits_init_to_probe(o));
}

TEST_CASE("observations: the five reloads split at each nvme_init line, with the pci function line", "[fit][obs]") {
  const Observations o = load_observations(kDir + "reload-32q-msleep100.json");
  REQUIRE(o.runs.size() == 5);
  // nvme_init -> queues, ms (shared/cases/README.md section 2): 76.461, 79.041, 71.366, 70.107, 70.793.
  const double want[5] = {76.461, 79.041, 71.366, 70.107, 70.793};
  for (size_t i = 0; i < 5; ++i) CHECK(iv_ms(o.runs[i], BootLine::init, BootLine::queues) == Approx(want[i]).margin(1e-9));
  // First run: 714.458501 - 714.456099 = 2.402 ms; 714.532560 - 714.458501 = 74.059 ms.
  CHECK(iv_ms(o.runs[0], BootLine::init, BootLine::pci) == Approx(2.402).margin(1e-9));
  CHECK(iv_ms(o.runs[0], BootLine::pci, BootLine::queues) == Approx(74.059).margin(1e-9));
  CHECK(o.io_queues(0) == 32);
  CHECK(o.runs[0].kind == "module_reload");
  CHECK(splits_init_to_probe(o));
}

TEST_CASE("observations: a log without a driver-init line runs from each pci function line", "[fit][obs]") {
  const auto runs = read_log_runs("[ 1.000000] nvme nvme0: pci function 0000:61:00.0\n"
                                  "[ 1.074059] nvme nvme0: 32/0/0 default/read/poll queues\n"
                                  "[ 9.000000] nvme nvme0: pci function 0000:61:00.0\n"
                                  "[ 9.070000] nvme nvme0: 32/0/0 default/read/poll queues\n", "l");
  REQUIRE(runs.size() == 2);
  CHECK(runs[1].at(BootLine::queues) - runs[1].at(BootLine::pci) == 70'000'000);
}

TEST_CASE("observations: errors name the file and the JSON pointer or the log line", "[fit][obs]") {
  CHECK_THAT(error_of(obs_with(kHost, R"([{"host": "x", "text": [""]}])")),
             Catch::Contains("obs.json: /logs/0/host: \"x\" is not a host in /hosts (known: h)"));
  CHECK_THAT(error_of(obs_with(R"("hosts": {"h": {"kernel": "5.6", "hz": 200, "tick": "nohz_idle", "cpus": 4}})", "[]")),
             Catch::Contains("obs.json: /hosts/h/hz: 200 is not a CONFIG_HZ; allowed: 100, 250, 300, 1000"));
  CHECK_THAT(error_of(obs_with(R"("hosts": {"h": {"kernel": "3.1", "hz": 250, "tick": "nohz_idle", "cpus": 4}})", "[]")),
             Catch::Contains("obs.json: /hosts/h/kernel:"));
  CHECK_THAT(error_of(obs_with(R"("hosts": {"h": {"kernel": "5.6", "hz": 250, "tick": "nohz_idle", "cpus": 1}})",
                               std::string(R"([{"host": "h", "text": )") + kLog + "}]")),
             Catch::Contains("/logs/0: line 2 of the log: 2 I/O queues in the queues line, more than the host's 1 cpus"));
  CHECK_THAT(error_of(obs_with(kHost, std::string(R"([{"host": "h", "runs": 2, "text": )") + kLog + "}]")),
             Catch::Contains("obs.json: /logs/0/runs: says 2 runs, but the log has 1"));
  CHECK_THAT(error_of(obs_with(kHost, std::string(R"([{"host": "h", "kind": "warm", "text": )") + kLog + "}]")),
             Catch::Contains("/logs/0/kind:"));
  CHECK_THAT(error_of(obs_with(kHost, std::string(R"([{"host": "h", "txt": )") + kLog + "}]")),
             Catch::Contains("/logs/0/txt:"));
  CHECK_THAT(error_of(R"({"schema": "nvmesim.scenario/1"})"), Catch::Contains("obs.json: /schema: must be \"nvmesim.observations/1\""));
  // A second queues line in one run: line 3, naming the run's first one (line 2).
  CHECK_THAT(error_of(obs_with(kHost, R"([{"host": "h", "text": ["[ 0.5] initcall nvme_init+0x0/0x5b returned 0 after 3 usecs",
      "[ 0.7] nvme nvme0: 2/0/0 default/read/poll queues", "[ 0.8] nvme nvme0: 2/0/0 default/read/poll queues"]}])")),
             Catch::Contains("line 3: a second \"queues\" line in the run of line 2; one probe per run"));
  CHECK_THAT(error_of(obs_with(kHost, R"([{"host": "h", "text": ["[ 0.5] hello"]}])")),
             Catch::Contains("no driver-init line"));
  CHECK_THAT(error_of(obs_with(kHost, R"([{"host": "h", "text": ["[ 0.5] initcall nvme_init+0x0/0x5b returned 0 after 3 usecs"]}])")),
             Catch::Contains("has no \"default/read/poll queues\" line"));
  CHECK_THAT(error_of("{\"schema\": \"nvmesim.observations/1\",\n \"hosts\": }"), Catch::Contains("obs.json:2:"));
}

TEST_CASE("nvmesim fit: bad observations exit 2 and an unreadable log exits 3, nothing written", "[fit][obs]") {
  const std::string bad = "/tmp/nvmesim-fit-test-bad.json", out = "/tmp/nvmesim-fit-test-out.json";
  std::remove(out.c_str());
  {
    std::ofstream f(bad);
    f << obs_with(kHost, R"([{"host": "nope", "text": ["x"]}])");
  }
  CHECK(test::run_nvmesim("fit " + bad + " --out " + out) == 2);
  {
    std::ofstream f(bad);
    f << obs_with(kHost, R"([{"host": "h", "path": "does-not-exist.dmesg"}])");
  }
  CHECK(test::run_nvmesim("fit " + bad + " --out " + out) == 3);
  CHECK(test::run_nvmesim("fit --log /nonexistent.dmesg --kernel 5.6 --hz 250 --tick nohz_idle --cpus 4 --out " + out) == 3);
  CHECK(test::run_nvmesim("fit " + bad) == 3);   // the log is read before --out is checked
  CHECK(test::run_nvmesim("fit --out " + out) == 2);
  CHECK(test::slurp(out).empty());
  std::remove(bad.c_str());
}
