// `nvmesim dmesg` on FreeBSD's and SPDK's logs (issue 13 item 4): the real line formats (FreeBSD's
// message buffer with kern.msgbuf_show_timestamp, SPDK's log with its date and time) give the
// interval from the probe's start to the controller attached with the default --from and --to,
// per controller; and the round trip `nvmesim run --dmesg` -> `nvmesim dmesg` gives back the
// simulated probe times of the freebsd and spdk drivers.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "support.hpp"
#include "tools/dmesg_reader.hpp"

using namespace nvmesim;
using nvmesim::test::run_nvmesim;
using nvmesim::test::slurp;

namespace {
void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Runs `scenario` (JSON text) with --out and --dmesg, reads the dmesg back with the default
// patterns and checks one interval per trial, each the trial's probe time truncated to whole
// microseconds (both lines are printed with microsecond times: the first at the probe's start,
// trial time 0, boot.probe_start_s a whole number of microseconds; the last at its end).
void round_trip(const std::string& name, const std::string& scenario, size_t trials) {
  const std::string json = name + ".json", tl = name + ".tl.json", dm = name + ".dmesg";
  write_file(json, scenario);
  REQUIRE(run_nvmesim("run " + json + " -q --detail-trials 0 --out " + tl + " --dmesg " + dm) == 0);
  const auto doc = nlohmann::json::parse(slurp(tl));
  const auto parse = parse_dmesg_text(slurp(dm), dm);
  REQUIRE(parse.intervals.size() == trials);
  CHECK(parse.unclosed == 0);
  size_t i = 0;
  for (const auto& v : doc["variants"])
    for (const auto& t : v["trials"]) {
      REQUIRE(i < parse.intervals.size());
      CHECK(t["status"] == "ok");
      const int64_t probe_ns = t["probe_ns"];
      CHECK(parse.intervals[i].duration_ns() == probe_ns / 1000 * 1000);
      ++i;
    }
  CHECK(i == trials);
  std::remove(json.c_str());
  std::remove(tl.c_str());
  std::remove(dm.c_str());
}
}  // namespace

TEST_CASE("dmesg reader: FreeBSD's attach line to its nvd line, with msgbuf times", "[dmesg][freebsd]") {
  // kern.msgbuf_show_timestamp=2: "[%jd.%06ld] " uptime. nvme0 attaches at 1.234567 s, its disk
  // nvd0 at 1.500123 s: 1.500123 - 1.234567 = 0.265556 s = 265.556 ms. The nvd line names no
  // controller: it ends every open interval. The size line and the unrelated lines are ignored.
  const std::string log =
      "[0.000000] ---<<BOOT>>---\n"
      "[1.234567] nvme0: <Generic NVMe Device> mem 0xfebf0000-0xfebf3fff irq 11 at device 4.0 on pci0\n"
      "[1.300000] uart0: <16550 or compatible> port 0x3f8-0x3ff irq 4 flags 0x10 on acpi0\n"
      "[1.500123] nvd0: <Amazon Elastic Block Store> NVMe namespace\n"
      "[1.500200] nvd0: 8192MB (16777216 512 byte sectors)\n";
  const auto p = parse_dmesg_text(log, "fbsd");
  REQUIRE(p.intervals.size() == 1);
  CHECK(p.intervals[0].ctrl == "nvme0");
  CHECK(p.intervals[0].duration_ns() == 265'556'000);
  CHECK(p.intervals[0].from_line == 2);
  CHECK(p.intervals[0].to_line == 4);
  CHECK(p.unclosed == 0);
  // Seconds only (kern.msgbuf_show_timestamp=1): [3] - [1] = 2 s.
  const auto s = parse_dmesg_text("[1] nvme0: <Generic NVMe Device> at device 4.0 on pci0\n"
                                  "[3] nvd0: <X> NVMe namespace\n",
                                  "fbsd1");
  REQUIRE(s.intervals.size() == 1);
  CHECK(s.intervals[0].duration_ns() == 2'000'000'000);
}

TEST_CASE("dmesg reader: an nvd line with two controllers' intervals open ends none - with a warning", "[dmesg][freebsd]") {
  // Real FreeBSD prints every bus attach line before the config intrhooks reset the devices; nvd
  // units are numbered over all controllers and the line names none. Closing every open interval
  // at nvd0 gave nvme1 nvme0's disk time (0.6 - 0.3 = 0.3 s instead of its own 0.7 - 0.31). Now
  // no interval is made from those lines: unmatched, and said.
  const std::string log =
      "[0.300000] nvme0: <Generic NVMe Device> mem 0xfebf0000-0xfebf3fff at device 4.0 on pci0\n"
      "[0.310000] nvme1: <Generic NVMe Device> mem 0xfebe0000-0xfebe3fff at device 5.0 on pci0\n"
      "[0.600000] nvd0: <Amazon Elastic Block Store> NVMe namespace\n"
      "[0.700000] nvd1: <Amazon Elastic Block Store> NVMe namespace\n";
  const auto p = parse_dmesg_text(log, "fbsd2");
  CHECK(p.intervals.empty());
  CHECK(p.unmatched_to == 2);
  CHECK(p.unclosed == 2);
  REQUIRE(!p.warnings.empty());
  CHECK_THAT(p.warnings[0], Catch::Contains("line 3: an nvd line names no controller and 2 controllers' intervals are open"));
}

TEST_CASE("dmesg reader: FreeBSD nda lines end their own controller's interval", "[dmesg][freebsd]") {
  // nda(4) names the controller: nvme0 1.234567 -> nda0 at nvme0 1.300000: 65.433 ms; nvme1
  // 1.240000 -> nda1 at nvme1 1.350000: 110.000 ms (in the order their end lines come).
  const std::string log =
      "[1.234567] nvme0: <Generic NVMe Device> mem 0xfebf0000-0xfebf3fff irq 11 at device 4.0 on pci0\n"
      "[1.240000] nvme1: <Generic NVMe Device> mem 0xfebf4000-0xfebf7fff irq 10 at device 5.0 on pci0\n"
      "[1.300000] nda0 at nvme0 bus 0 scbus0 target 0 lun 1\n"
      "[1.350000] nda1 at nvme1 bus 0 scbus1 target 0 lun 1\n";
  const auto p = parse_dmesg_text(log, "fbsd");
  REQUIRE(p.intervals.size() == 2);
  CHECK(p.intervals[0].ctrl == "nvme0");
  CHECK(p.intervals[0].duration_ns() == 65'433'000);
  CHECK(p.intervals[1].ctrl == "nvme1");
  CHECK(p.intervals[1].duration_ns() == 110'000'000);
}

TEST_CASE("dmesg reader: SPDK's delay init to ready state lines, per PCI address", "[dmesg][spdk]") {
  // SPDK's log time "[%Y-%m-%d %H:%M:%S.%06d] "; controllers by their address in the debug
  // lines. 0000:13:00.0: 19:10:10.652000 - 19:10:08.631000 = 2.021000 s; 0000:0b:00.0:
  // 19:10:10.653485 - 19:10:08.630485 = 2.023000 s. The intermediate state, the untimed EAL lines
  // and the other files' lines are ignored.
  const std::string log =
      "EAL: No free 524288 kB hugepages reported on node 1\n"
      "Attaching to 0000:0b:00.0\n"
      "[2023-04-17 19:10:08.630485] nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:0b:00.0] setting "
      "state to delay init (no timeout)\n"
      "[2023-04-17 19:10:08.631000] nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:13:00.0] setting "
      "state to delay init (no timeout)\n"
      "[2023-04-17 19:10:08.631263] nvme_pcie_common.c: 132:nvme_pcie_qpair_construct: *INFO*: max_completions_cap "
      "= 64 num_trackers = 192\n"
      "[2023-04-17 19:10:08.640000] nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:0b:00.0] setting "
      "state to init (timeout 15000 ms)\n"
      "[2023-04-17 19:10:10.652000] nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:13:00.0] setting "
      "state to ready (no timeout)\n"
      "[2023-04-17 19:10:10.653485] nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:0b:00.0] setting "
      "state to ready (no timeout)\n";
  const auto p = parse_dmesg_text(log, "spdk");
  REQUIRE(p.intervals.size() == 2);
  CHECK(p.intervals[0].ctrl == "0000:13:00.0");
  CHECK(p.intervals[0].duration_ns() == 2'021'000'000);
  CHECK(p.intervals[1].ctrl == "0000:0b:00.0");
  CHECK(p.intervals[1].duration_ns() == 2'023'000'000);
  CHECK(p.unclosed == 0);
  CHECK(p.unmatched_to == 0);
  // SPDK's failure line names the address too, and its nvme_init_controllers is no driver init:
  // the other controller's failure (0000:89:00.0) opens nothing, 0000:88:00.0's interval is
  // 17:50:12.600000 - 17:50:12.000000 = 600 ms.
  const auto f = parse_dmesg_text(
      "[2025-03-15 17:50:12.000000] nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:88:00.0] setting "
      "state to delay init (no timeout)\n"
      "[2025-03-15 17:50:12.491800] nvme.c: 439:nvme_init_controllers: *ERROR*: Failed to initialize SSD: "
      "0000:89:00.0\n"
      "[2025-03-15 17:50:12.600000] nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:88:00.0] setting "
      "state to ready (no timeout)\n",
      "spdkf");
  REQUIRE(f.intervals.size() == 1);
  CHECK(f.intervals[0].duration_ns() == 600'000'000);
  CHECK(f.unclosed == 0);
  const auto g = parse_dmesg_text(
      "[2025-03-15 17:50:12.000000] nvme.c: 439:nvme_init_controllers: *ERROR*: Failed to initialize SSD: "
      "0000:88:00.0\n[2025-03-15 17:50:13.000000] x: *ERROR*: Failed to initialize SSD: 0000:88:00.0\n",
      "spdkg", "SSD", "SSD");
  REQUIRE(g.intervals.size() == 1);
  CHECK(g.intervals[0].ctrl == "0000:88:00.0");
  CHECK(g.intervals[0].duration_ns() == 1'000'000'000);
}

TEST_CASE("dmesg round trip: freebsd's --dmesg read back gives its probe times", "[dmesg][freebsd][outputs]") {
  // One namespace (identify.nn 1), so that the attach ends with an nvd line; both releases.
  round_trip("rt_freebsd",
             R"({"schema": "nvmesim.scenario/1", "trials": 4, "host": {"driver": "freebsd"},
                 "controllers": [{"identify": {"nn": 1}, "cap": {"to": 2},
                                  "enable_latency": {"dist": "uniform", "min": "1ms", "max": "3ms"}}],
                 "variants": [{"name": "13.1+"}, {"name": "older", "patch": {"host": {"release": "older"}}}]})",
             8);
}

TEST_CASE("dmesg round trip: spdk's --dmesg read back gives its probe times", "[dmesg][spdk][outputs]") {
  round_trip("rt_spdk",
             R"({"schema": "nvmesim.scenario/1", "trials": 4, "host": {"driver": "spdk"},
                 "controllers": [{"cap": {"to": 2}, "enable_latency": {"dist": "uniform", "min": "1ms", "max": "3ms"}}]})",
             4);
}

TEST_CASE("dmesg reader: an ISO or SPDK time that is no time is refused at its line", "[dmesg][spdk]") {
  // Issue 13: hour 25 was taken as no time (the line skipped), February 30 as March 2.
  const std::string ready = "nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:04:00.0] setting state to ready (no timeout)";
  const std::string init = "nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:04:00.0] setting state to delay init (no timeout)";
  auto error_of = [](const std::string& log) -> std::string {
    try {
      (void)parse_dmesg_text(log, "bad.log");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const std::string hour25 = error_of("[2023-04-17 19:10:08.000000] " + init + "\n[2023-04-17 25:00:00.000000] " + ready + "\n");
  CHECK(hour25 == "bad.log: line 2: \"2023-04-17 25:00:00\" is not a time: the hour must be 00 to 23 (nvmesim dmesg "
                  "reads printk, ISO-8601 and SPDK times as written; fix or remove the line)");
  CHECK(hour25.find("no line matching") == std::string::npos);
  CHECK_THAT(error_of("2023-02-30T10:00:00,000000+00:00 host kernel: nvme nvme0: pci function 0000:04:00.0\n"),
             Catch::StartsWith("bad.log: line 1: \"2023-02-30T10:00:00\" is not a time: the day must be 01 to 28 in 2023-02"));
  CHECK_THAT(error_of("[1900-01-01 00:00:00.000000] " + init + "\n"), Catch::Contains("the year must be 1970 to 2200"));
  CHECK_THAT(error_of("2023-01-01T10:00:00+25:00 x\n"), Catch::Contains("the zone offset must be at most 23:59"));
  // A zone that only starts like one (stop 24's attack: "+00:3" and "+0" were read as untimed or
  // UTC, a Unicode minus as untimed).
  for (const char* zone : {"+00:3", "+0", "+", "-05:", "+00:300", "+0:00"})
    CHECK_THAT(error_of(std::string("2023-01-01T10:00:00,000000") + zone + " host kernel: nvme nvme0: pci function 0000:04:00.0\n"),
               Catch::StartsWith("bad.log: line 1: \"2023-01-01T10:00:00\" is not a time: its zone \"" + std::string(zone) +
                                 "\" is not +HH:MM, +HHMM or Z"));
  CHECK_THAT(error_of("2023-01-01T10:00:00,000000\xe2\x88\x92" "05:00 host kernel: nvme nvme0: pci function 0000:04:00.0\n"),
             Catch::Contains("has the minus U+2212; write ASCII '-'"));
  // The forms that are zones, either sign, with and without the colon.
  const auto zones = parse_dmesg_text("2023-01-01T10:00:00,000000-05:00 h kernel: nvme nvme0: pci function 0000:04:00.0\n"
                                      "2023-01-01T20:31:00,000000+0530 h kernel: nvme nvme0: 4/0/0 default/read/poll queues\n", "z");
  REQUIRE(zones.intervals.size() == 1);
  CHECK(zones.intervals[0].duration_ns() == 60'000'000'000);  // 10:00 + 5:00 = 15:00 UTC to 20:31 - 5:30 = 15:01 UTC
  // A leap day is a day: 2024-02-28 23:59:59.5 to 2024-02-29 00:00:01 is 1.5 s; 2000 was a leap
  // year too (divisible by 400), 2100 will not be.
  const auto leap = parse_dmesg_text("[2024-02-28 23:59:59.500000] " + init + "\n[2024-02-29 00:00:01.000000] " + ready + "\n", "leap");
  REQUIRE(leap.intervals.size() == 1);
  CHECK(leap.intervals[0].duration_ns() == 1'500'000'000);
  CHECK(error_of("[2000-02-29 00:00:00.000000] " + init + "\n[2000-02-29 00:00:01.000000] " + ready + "\n").empty());
  CHECK_THAT(error_of("[2100-02-29 00:00:00.000000] " + init + "\n"), Catch::Contains("the day must be 01 to 28 in 2100-02"));
  // A leap second stays allowed: 23:59:60 is one second after 23:59:59.
  const auto sec60 = parse_dmesg_text("[2016-12-31 23:59:59.000000] " + init + "\n[2016-12-31 23:59:60.000000] " + ready + "\n", "ls");
  REQUIRE(sec60.intervals.size() == 1);
  CHECK(sec60.intervals[0].duration_ns() == 1'000'000'000);
}

TEST_CASE("dmesg reader: an nvd line ends a FreeBSD attach only, never Linux's or SPDK's interval", "[dmesg][freebsd]") {
  // Issue 13: in a mixed log an nvd line closed a Linux interval (here at 1.1 s: 100 ms) and an
  // SPDK one. Linux: pci function 1.000000 -> queues 1.200000 = 200 ms; SPDK: delay init
  // 10:00:00.000000 -> ready 10:00:00.300000 = 300 ms; the nvd lines between end nothing.
  const auto linux_log = parse_dmesg_text("[1.000000] nvme nvme0: pci function 0000:04:00.0\n"
                                          "[1.100000] nvd0: <X> NVMe namespace\n"
                                          "[1.200000] nvme nvme0: 2/0/0 default/read/poll queues\n",
                                          "mixed");
  REQUIRE(linux_log.intervals.size() == 1);
  CHECK(linux_log.intervals[0].duration_ns() == 200'000'000);
  CHECK(linux_log.unmatched_to == 1);
  const auto spdk_log = parse_dmesg_text(
      "[2023-04-17 10:00:00.000000] nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:04:00.0] setting state to delay init (no timeout)\n"
      "[2023-04-17 10:00:00.100000] nvd0: <X> NVMe namespace\n"
      "[2023-04-17 10:00:00.300000] nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:04:00.0] setting state to ready (no timeout)\n",
      "mixed2");
  REQUIRE(spdk_log.intervals.size() == 1);
  CHECK(spdk_log.intervals[0].duration_ns() == 300'000'000);
  // With a Linux interval and a FreeBSD attach open, the nvd line ends the FreeBSD one (1.05 s ->
  // 1.15 s: 100 ms), without the two-controllers warning; the Linux one ends at its queues line.
  const auto both = parse_dmesg_text("[1.000000] nvme nvme0: pci function 0000:04:00.0\n"
                                     "[1.050000] nvme1: <Generic NVMe Device> at device 5.0 on pci0\n"
                                     "[1.150000] nvd0: <X> NVMe namespace\n"
                                     "[1.200000] nvme nvme0: 2/0/0 default/read/poll queues\n",
                                     "mixed3");
  REQUIRE(both.intervals.size() == 2);
  CHECK(both.intervals[0].ctrl == "nvme1");
  CHECK(both.intervals[0].duration_ns() == 100'000'000);
  CHECK(both.intervals[1].ctrl == "nvme0");
  CHECK(both.intervals[1].duration_ns() == 200'000'000);
  CHECK(both.warnings.empty());
}

TEST_CASE("dmesg: FreeBSD attach lines without an nvd line - the no-interval error hints at identify.nn", "[dmesg][freebsd][cli]") {
  write_file("fbsd_no_nvd.dmesg", "[1.234567] nvme0: <Generic NVMe Device> at device 4.0 on pci0\n");
  const test::CliResult r = test::run_capture("dmesg fbsd_no_nvd.dmesg");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("no interval: no line matching --to"));
  CHECK_THAT(r.err, Catch::Contains("the log has FreeBSD attach lines but no nvd or nda line"));
  CHECK_THAT(r.err, Catch::Contains("controllers[].identify.nn"));
  // Not for a Linux log.
  write_file("linux_no_queues.dmesg", "[1.000000] nvme nvme0: pci function 0000:04:00.0\n");
  const test::CliResult l = test::run_capture("dmesg linux_no_queues.dmesg");
  CHECK(l.status == 2);
  CHECK(l.err.find("identify.nn") == std::string::npos);
  std::remove("fbsd_no_nvd.dmesg");
  std::remove("linux_no_queues.dmesg");
}

TEST_CASE("freebsd-aws-older-vs-13.1.json: its --dmesg reads back, one attach-to-nvd0 interval per trial", "[dmesg][freebsd][cases]") {
  // identify.nn 1 (issue 13): each attach ends with `nvd0: <Amazon Elastic Block Store> NVMe
  // namespace`; with nn 0 no interval could be read. 5 trials x 2 variants.
  const std::string dm = "fbsd_aws.dmesg", tl = "fbsd_aws.tl.json";
  REQUIRE(run_nvmesim(std::string("run ") + NVMESIM_SOURCE_DIR + "/scenarios/freebsd-aws-older-vs-13.1.json -q --trials 5 "
                      "--detail-trials 0 --out " + tl + " --dmesg " + dm) == 0);
  const auto doc = nlohmann::json::parse(slurp(tl));
  const auto parse = parse_dmesg_text(slurp(dm), dm);
  REQUIRE(parse.intervals.size() == 10);
  size_t i = 0;
  for (const auto& v : doc["variants"])
    for (const auto& t : v["trials"]) {
      CHECK(t["status"] == "ok");
      const int64_t probe_ns = t["probe_ns"];
      CHECK(parse.intervals.at(i++).duration_ns() == probe_ns / 1000 * 1000);
    }
  std::remove(dm.c_str());
  std::remove(tl.c_str());
}

TEST_CASE("dmesg reader: a FreeBSD boot line as a driver-level --from still ends at the nvd line", "[dmesg][freebsd]") {
  // The mixed-log rule (an nvd line ends no Linux or SPDK interval) keeps a driver-level start
  // of another origin: FreeBSD's boot banner 0.100000 -> nvd0 1.500123 = 1400.123 ms.
  const auto p = parse_dmesg_text("[0.100000] ---<<BOOT>>---\n"
                                  "[1.234567] nvme0: <Generic NVMe Device> at device 4.0 on pci0\n"
                                  "[1.500123] nvd0: <X> NVMe namespace\n",
                                  "boot", "BOOT", R"(^nvd[0-9]+: )");
  REQUIRE(p.intervals.size() == 1);
  CHECK(p.intervals[0].duration_ns() == 1'400'123'000);
  // Linux's driver init as --from is not ended by it.
  const auto l = parse_dmesg_text("[0.100000] initcall nvme_init+0x0/0x5b returned 0 after 0 usecs\n"
                                  "[1.500123] nvd0: <X> NVMe namespace\n",
                                  "boot2", "nvme_init", R"(^nvd[0-9]+: )");
  CHECK(l.intervals.empty());
}
