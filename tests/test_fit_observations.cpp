// The observation file and the log reader of `nvmesim fit` (fit/observations.hpp,
// tools/boot_lines.hpp). Expected intervals are the published log times, subtracted by hand.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.hpp"
#include "core/errors.hpp"
#include "fit/observations.hpp"
#include "fit/problems.hpp"
#include "scenario/scenario.hpp"
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

namespace {

// An observation file with the machine's dumps inline (each a JSON array of its lines).
std::string obs_with_machine(const std::string& machine) {
  return std::string(R"({"schema": "nvmesim.observations/1", "machine": )") + machine + ", " + kHost +
         ", \"logs\": [{\"host\": \"h\", \"text\": " + kLog + "}]}";
}

std::string machine_error(const std::string& machine) {
  try {
    parse_observations(obs_with_machine(machine), "obs.json", "");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("observations: nvme show-regs, id-ctrl and lspci fix CAP, VS, CRTO, MN, RTD3E and the PCI id", "[fit][obs]") {
  // nvme-cli's normal show-regs output prints each register in hex without 0x; -H adds indented
  // detail lines, which are skipped. CAP 0x2028033fff: TO = bits 31:24 = 0x28 (20 s); MQES = 0x3fff; CSS bit 37 (NVM).
  // VS 0x10400 = 1.4.0 (MJR 31:16 = 1, MNR 15:8 = 4, TER 7:0 = 0).
  const std::string regs = R"({"text": ["cap     : 2028033fff", "\tMaximum Queue Entries Supported (MQES): 16384",
                                         "version : 10400", "\tNVMe specification 1.4", "cc      : 460001",
                                         "csts    : 1", "crto    : 280014"]})";
  // id-ctrl: a header, MN padded to 40 characters with spaces, RTD3E in us (decimal), a power state.
  const std::string id = R"({"text": ["NVME Identify Controller:", "vid       : 0x1d0f", "ssvid     : 0x1d0f",
                                       "mn        : Amazon Elastic Block Store              ", "rtd3e     : 1000000",
                                       "ps    0 : mp:0.01W operational enlat:1000000 exlat:1000000"]})";
  const std::string pci = R"({"text": ["00:00.0 0600: 8086:1237", "00:04.0 0108: 1d0f:8061", "00:05.0 0200: 1d0f:ec20"]})";
  const Observations o = parse_observations(
      obs_with_machine(R"({"show_regs": )" + regs + R"(, "id_ctrl": )" + id + R"(, "lspci": )" + pci + "}"), "obs.json", "");
  CHECK(o.device["cap"] == "0x2028033fff");
  CHECK(o.device["vs"] == "1.4.0");
  CHECK(o.device["crto"] == "0x00280014");
  CHECK(o.device["identify"]["model"] == "Amazon Elastic Block Store");
  CHECK(o.device["identify"]["rtd3e"] == "1000000us");
  CHECK(o.device["pci_id"] == "1d0f:8061");
  // Where each came from: the inline text's line numbers (cap is line 1, version 3, crto 7).
  CHECK(o.device_from["cap"] == "show-regs obs.json: /machine/show_regs/text line 1");
  CHECK(o.device_from["vs"] == "show-regs obs.json: /machine/show_regs/text line 3");
  CHECK(o.device_from["crto"] == "show-regs obs.json: /machine/show_regs/text line 7");
  CHECK(o.device_from["identify.rtd3e"] == "id-ctrl obs.json: /machine/id_ctrl/text line 5");
  CHECK(o.device_from["pci_id"] == "lspci obs.json: /machine/lspci/text line 2");
  // The posterior keeps them (predict simulates the same device).
  CHECK(o.resolved()["device"] == o.device);
  // lspci -nn's form: the id in the last brackets of the class [0108] line.
  const Observations nn = parse_observations(
      obs_with_machine(R"({"lspci": {"text": ["00:04.0 Non-Volatile memory controller [0108]: Amazon.com, Inc. NVMe EBS Controller [1D0F:8061]"]}})"),
      "obs.json", "");
  CHECK(nn.device["pci_id"] == "1d0f:8061");
  // Without dumps nothing is fixed, and the posterior has no device key.
  const Observations none = parse_observations(obs_with_machine(R"({"link": "bare-metal"})"), "obs.json", "");
  CHECK(none.device.empty());
  CHECK(!none.resolved().contains("device"));
}

TEST_CASE("observations: a dump that is not one, or of another device, is exit 2 at its line", "[fit][obs]") {
  using Catch::Contains;
  CHECK_THAT(machine_error(R"({"show_regs": {"text": ["version : 10400"]}})"),
             Contains("obs.json: /machine/show_regs/text: has no \"cap     : ...\" line"));
  CHECK_THAT(machine_error(R"({"show_regs": {"text": ["cap     : ffffffffffffffff"]}})"),
             Contains("obs.json: /machine/show_regs/text:1:1: cap is all ones"));
  CHECK_THAT(machine_error(R"({"show_regs": {"text": ["cap     : 40g8"]}})"),
             Contains("obs.json: /machine/show_regs/text:1:1: cap \"40g8\" is not a 64-bit register in hex"));
  CHECK_THAT(machine_error(R"({"show_regs": {"text": ["cap     : 2028033fff", "cap     : 2028033fff"]}})"),
             Contains("obs.json: /machine/show_regs/text:2:1: \"cap\" is given twice (also line 1)"));
  CHECK_THAT(machine_error(R"({"id_ctrl": {"text": ["mn        : x", "rtd3e     : 1e6"]}})"),
             Contains("obs.json: /machine/id_ctrl/text:2:1: rtd3e \"1e6\" is not a 32-bit count of microseconds"));
  CHECK_THAT(machine_error(R"({"id_ctrl": {"text": ["mn        : x", "rtd3e     : 4294967296"]}})"),
             Contains("rtd3e \"4294967296\" is not a 32-bit count"));
  CHECK_THAT(machine_error(R"({"lspci": {"text": ["00:04.0 0108: 1d0f:8061", "00:1f.0 0108: 144d:a808"]}})"),
             Contains("obs.json: /machine/lspci/text:2:1: a second NVMe function, 144d:a808, beside 1d0f:8061 (line 1)"));
  CHECK_THAT(machine_error(R"({"lspci": {"text": ["00:00.0 0600: 8086:1237"]}})"),
             Contains("has no NVMe function (class 0108) line"));
  CHECK_THAT(machine_error(R"({"id_ctrl": {"text": ["vid       : 0x144d", "mn        : x"]}, "lspci": {"text": ["00:04.0 0108: 1d0f:8061"]}})"),
             Contains("vendor 1d0f differs from id-ctrl's vid 0x144d"));
  CHECK_THAT(machine_error(R"({"show_regs": {"text": ["cap : 1"], "path": "x"}})"),
             Contains("needs exactly one of \"path\""));
  CHECK_THAT(machine_error(R"({"show_regs": {"txt": []}})"), Contains("unknown key \"txt\""));
  // Eight identical EBS volumes are one device model: the same id on several lines is fine.
  CHECK(machine_error(R"({"lspci": {"text": ["00:04.0 0108: 1d0f:8061", "00:05.0 0108: 1d0f:8061"]}})") == "no error");
}

TEST_CASE("observations: an lspci id with a tail, all ones, a bad vid or version 0 is refused (stop 23's attack)", "[fit][obs]") {
  using Catch::Contains;
  // "1d0f:80611" was read as 1d0f:8061; ffff:ffff is a function that did not answer; a vid that
  // is not hex skipped the vendor check; version 0 became "0.0.0".
  CHECK_THAT(machine_error(R"({"lspci": {"text": ["00:04.0 0108: 1d0f:80611"]}})"),
             Contains("obs.json: /machine/lspci/text:1:1: \"1d0f:80611\" is not a vendor:device id"));
  CHECK_THAT(machine_error(R"({"lspci": {"text": ["00:04.0 0108: ffff:ffff"]}})"), Contains("ffff:ffff is all ones"));
  CHECK_THAT(machine_error(R"({"id_ctrl": {"text": ["vid       : zz", "mn        : x"]}})"),
             Contains("obs.json: /machine/id_ctrl/text:1:1: vid \"zz\" is not a 16-bit PCI vendor id"));
  CHECK_THAT(machine_error(R"({"id_ctrl": {"text": ["vid       : 0x144d0", "mn        : x"]}})"), Contains("is not a 16-bit PCI vendor id"));
  CHECK_THAT(machine_error(R"({"show_regs": {"text": ["cap     : 2028033fff", "version : 0"]}})"),
             Contains("obs.json: /machine/show_regs/text:2:1: version 0 is no NVMe version"));
  // A revision after the id is fine.
  CHECK(machine_error(R"J({"lspci": {"text": ["00:04.0 0108: 1d0f:8061 (rev 01)"]}})J") == "no error");
}

TEST_CASE("observations: ids and models the scenario refuses are exit 2 at their line, not the fit's internal error",
          "[fit][obs]") {
  using Catch::Contains;
  // Attack of stop 30: the scenario began refusing vendor ffff, 0000:0000, 0000:ffff and a model
  // outside printable ASCII; fit passed them on and its simulator chunk failed (exit 4).
  for (const char* id : {"ffff:0001", "0000:0000", "0000:ffff"}) {
    INFO(id);
    CHECK_THAT(machine_error(std::string(R"({"lspci": {"text": ["00:04.0 0108: )") + id + "\"]}}"),
               Contains(std::string("obs.json: /machine/lspci/text:1:1: ") + id +
                        " is what a read of an absent function returns, not a device's id"));
  }
  CHECK(machine_error(R"({"lspci": {"text": ["00:04.0 0108: 0000:0001"]}})") == "no error");
  CHECK_THAT(machine_error(R"({"lspci": {"text": ["00:04.0 0108: 0001:ffff"]}})"),
             Contains("obs.json: /machine/lspci/text:1:1: 0001:ffff: vendor 0001 is what a read returns while the "
                      "function asks for a retry (CRS), not a device's id"));
  // A control byte (01h) as the 7th byte of mn, and a UTF-8 byte (C3h, the first of "é").
  CHECK_THAT(machine_error(R"({"id_ctrl": {"text": ["mn        : Amazon\u0001EBS"]}})"),
             Contains("obs.json: /machine/id_ctrl/text:1:1: mn is printable ASCII (20h to 7Eh), as Identify MN is; byte 7 is 01h"));
  CHECK_THAT(machine_error(R"({"id_ctrl": {"text": ["mn        : \u00e9"]}})"), Contains("byte 1 is C3h"));
}

TEST_CASE("fit: a FIFO as the observation file is refused at once - not waited on", "[fit][obs][inputs]") {
  // It blocked in open(2) before any check (stop 23's attack): `timeout 20` ended it.
  const std::string d = "/tmp/nvmesim-test-fit-fifo-" + std::to_string(::getpid());
  std::filesystem::create_directories(d);
  REQUIRE(::mkfifo((d + "/obs.json").c_str(), 0600) == 0);
  const auto r = test::run_capture("fit " + d + "/obs.json --out " + d + "/p.json", "timeout 20 ");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(d + "/obs.json"));
  std::filesystem::remove_all(d);
}

TEST_CASE("observations: id-ctrl's rtd3e 4294967295 (0xffffffff) is a time, the largest NVMe allows", "[fit][obs]") {
  // Issue 13 asked whether this must be refused. NVMe Base 2.0, Identify Controller bytes 91:88:
  // RTD3E is a 32-bit count of microseconds; 0 means not reported and no other value is
  // reserved, so 0xFFFFFFFF is a valid report (4294.967295 s, a drive claiming over an hour to
  // resume from D3). Kept as read: a host clamps it (Linux: to 60 s; SPDK's shutdown limit takes
  // max(RTD3E, 10 s)), not the dump reader; 4294967296 (33 bits) stays refused above.
  for (const char* v : {"4294967295", "0xffffffff"}) {
    const Observations o = parse_observations(
        obs_with_machine(std::string(R"({"id_ctrl": {"text": ["mn        : x", "rtd3e     : )") + v + R"("]}})"), "obs.json", "");
    CHECK(o.device["identify"]["rtd3e"] == "4294967295us");
  }
  // The scenario key takes it (its bound is the same 32-bit count of microseconds).
  const Scenario sc = load_scenario_text(R"({"schema": "nvmesim.scenario/1", "controllers": [{"identify": {"rtd3e": "4294967295us"}}]})", "s.json");
  CHECK(sc.variants.at(0).controllers.at(0).rtd3e_us == int64_t{4294967295});
  CHECK_THROWS_AS(load_scenario_text(R"({"schema": "nvmesim.scenario/1", "controllers": [{"identify": {"rtd3e": "4294967296us"}}]})", "s.json"),
                  InputError);
}
