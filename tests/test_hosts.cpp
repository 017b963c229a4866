// What a host driver is outside its sequences (host/registry.hpp's DriverTraits, the key tables'
// `used_by` sets): a key, a workload or a `boot` key the selected driver does not use is an
// error at load time (exit 2 with its pointer), not a value silently dropped or a run-time
// failure; the run table, the summary's `ran` and the dmesg output have only what the driver
// has. Issue 12 ("drivers beyond Linux accept Linux-only host keys") and issue 13 items 1 and 4.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "host/driver.hpp"
#include "host/nvme_host.hpp"
#include "host/registry.hpp"
#include "engine/system.hpp"
#include "outputs/dmesg.hpp"
#include "outputs/report.hpp"
#include "outputs/table.hpp"
#include "scenario/scenario.hpp"

using namespace nvmesim;

namespace {
// The message of loading `text` (named s.json) with `sets`, or "" when it loads.
std::string load_error(const std::string& text, const std::vector<std::string>& sets = {}) {
  LoadOptions o;
  for (const auto& s : sets) o.sets.push_back(parse_set(s));
  try {
    load_scenario_text(text, "s.json", o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string with_host(const std::string& host, const std::string& rest = "") {
  return R"({"schema": "nvmesim.scenario/1", "host": )" + host + rest + R"(, "controllers": [{}]})";
}
}  // namespace

TEST_CASE("hosts: a Linux key under another driver is exit 2 at its pointer, naming its drivers", "[hosts][scenario]") {
  CHECK(load_error(with_host(R"({"driver": "uboot", "kernel": "5.6"})")) ==
        "s.json: /host/kernel: host.driver \"uboot\" does not use this key (used by \"linux\"); leave it out for "
        "this driver");
  CHECK(load_error(with_host(R"({"driver": "freebsd", "overrides": {"poll": "busy"}})")) ==
        "s.json: /host/overrides: host.driver \"freebsd\" does not use this key (used by \"linux\"); leave it out "
        "for this driver");
  // host.cpus: Linux and FreeBSD ask one queue per CPU; EDK2 creates two, U-Boot one.
  CHECK(load_error(with_host(R"({"driver": "edk2", "cpus": 4})")) ==
        "s.json: /host/cpus: host.driver \"edk2\" does not use this key (used by \"linux\", \"freebsd\"); leave it "
        "out for this driver");
  CHECK(load_error(with_host(R"({"driver": "freebsd", "cpus": 4})")).empty());
  // Every Linux-only key, one at a time (a key left unmarked would load).
  for (const char* kv : {R"("hz": 1000)", R"("highres": false)", R"("tick": "periodic")", R"("wakeup_latency": "1us")",
                         R"("background_irq_rate_hz": 5)", R"("init_to_probe": "1ms")", R"("shutdown_timeout_s": 9)",
                         R"("async_shutdown": true)", R"("shutdown_notification": "abrupt")",
                         R"("bad_config": {"aqa_zero": true})"}) {
    INFO(kv);
    CHECK(load_error(with_host(std::string(R"({"driver": "uboot", )") + kv + "}")).find("does not use this key") !=
          std::string::npos);
    CHECK(load_error(with_host(std::string(R"({"driver": "linux", )") + kv + "}")).empty());
  }
  // The limits are every driver's.
  CHECK(load_error(with_host(R"({"driver": "uboot", "max_polls_per_wait": 5, "max_events_per_trial": 9})")).empty());
}

TEST_CASE("hosts: background_irq_rate_hz with highres false would be ignored: refused", "[hosts][scenario]") {
  // Without high-resolution timers usleep_range wakes at a tick (kernel_timers.cpp returns
  // before the interrupt draw), so a rate there changes nothing: exit 2 at its pointer.
  CHECK(load_error(with_host(R"({"highres": false, "background_irq_rate_hz": 100})")) ==
        "s.json: /host/background_irq_rate_hz: background_irq_rate_hz has no effect with highres false (usleep_range "
        "then wakes at a tick, never at another interrupt): leave it out, set it to 0, or set highres true");
  CHECK(load_error(with_host(R"({"highres": false, "background_irq_rate_hz": 0})")).empty());
  CHECK(load_error(with_host(R"({"highres": true, "background_irq_rate_hz": 100})")).empty());
  // A --set turning highres off under a rate the file gives: reported at the key that is there.
  CHECK(load_error(with_host(R"({"background_irq_rate_hz": 100})"), {"/host/highres=false"})
            .find("/host/background_irq_rate_hz: background_irq_rate_hz has no effect with highres false") !=
        std::string::npos);
}

TEST_CASE("hosts: a variant or --set that switches the driver meets the base's Linux keys", "[hosts][scenario]") {
  const std::string text = R"({"schema": "nvmesim.scenario/1", "host": {"kernel": "5.6"}, "controllers": [{}],
    "variants": [{"name": "a"}, {"name": "b", "patch": {"host": {"driver": "edk2"}}}]})";
  // The kernel is the base's (/host/kernel), not the patch's: reported at the patch, naming the
  // base's location (no pointer to a /variants/1/patch/host/kernel that does not exist).
  CHECK(load_error(text) ==
        "s.json: /variants/1/patch: the patched scenario is invalid at /host/kernel (the base's value; this patch "
        "does not set it): host.driver \"edk2\" does not use this key (used by \"linux\"); leave it out for this driver");
  CHECK(load_error(with_host(R"({"driver": "uboot"})"), {"/host/hz=1000"}).find("(this value comes from --set /host/hz=1000)") !=
        std::string::npos);
}

TEST_CASE("hosts: a workload the driver has no sequence for fails at load time at /workload", "[hosts][scenario]") {
  CHECK(load_error(with_host(R"({"driver": "uboot"})", R"(, "workload": "shutdown")")) ==
        "s.json: /workload: host.driver \"uboot\" has no shutdown sequence (it runs: probe); the drivers that run "
        "it: \"linux\", \"spdk\", \"openbsd\"");
  CHECK(load_error(with_host(R"({"driver": "freebsd"})", R"(, "workload": "reboot")")).find("/workload: ") !=
        std::string::npos);
  CHECK(load_error(with_host(R"({"driver": "edk2"})", R"(, "workload": "reset")")).find("/workload: ") !=
        std::string::npos);
  CHECK(load_error(with_host(R"({"driver": "linux"})", R"(, "workload": "reboot")")).empty());
  CHECK(load_error(with_host(R"({"driver": "edk2"})", R"(, "workload": "probe")")).empty());
  // boot.probe_start_s places printk times: a console driver prints none.
  CHECK(load_error(with_host(R"({"driver": "freebsd"})", R"(, "boot": {"probe_start_s": 1})")) ==
        "s.json: /boot/probe_start_s: host.driver \"freebsd\" does not use this key (used by \"linux\"); leave it "
        "out for this driver");
}

TEST_CASE("hosts: host.release is one of the driver's releases", "[hosts][scenario]") {
  CHECK(load_scenario_text(with_host(R"({"driver": "freebsd"})"), "s.json").variants[0].host.driver_release ==
        std::string(driver_traits("freebsd").releases).substr(0, std::string(driver_traits("freebsd").releases).find(' ')));
  CHECK(load_error(with_host(R"({"driver": "freebsd", "release": "12.0"})")).rfind(
            "s.json: /host/release: \"12.0\" is not allowed; allowed: ", 0) == 0);
  CHECK(load_error(with_host(R"({"driver": "uboot", "release": "older"})")).find("does not use this key") !=
        std::string::npos);
}

TEST_CASE("hosts: every driver's platform policy agrees with its traits' workloads", "[hosts][systemc]") {
  // DriverTraits::workloads is what the loader checks; PlatformPolicy is what the platform runs.
  init_systemc();
  nvme_host host("h", 0);
  const HostParams params;
  for (const DriverTraits& t : host_driver_traits()) {
    INFO(t.name);
    const auto driver = make_driver(t.name, host);
    CHECK(std::string(driver->name()) == t.name);
    const PlatformPolicy p = driver->platform_policy(params);
    CHECK(t.runs("probe"));
    CHECK(t.runs("shutdown") == (p.shutdown != PlatformPolicy::Order::unsupported));
    CHECK(t.runs("reboot") == (p.shutdown != PlatformPolicy::Order::unsupported));
    CHECK(t.runs("reset") == p.reset);
  }
}

TEST_CASE("hosts: the table and the summary show only the columns the variant's driver has", "[hosts][outputs]") {
  const Scenario sc = load_scenario_text(
      R"({"schema": "nvmesim.scenario/1", "name": "n", "controllers": [{}],
          "variants": [{"name": "lin"}, {"name": "fbsd", "patch": {"host": {"driver": "freebsd"}}}]})",
      "s.json");
  RunReport rep;
  VariantReport lin, fbsd;
  lin.name = "lin";
  lin.ran.driver = "linux";
  lin.ran.kernel = "5.7";
  lin.ran.profile = "5.7-6.0";
  lin.ran.poll_sleep = "usleep_range(1000, 2000)";
  lin.ran.hz = 250;
  fbsd.name = "fbsd";
  fbsd.ran.driver = "freebsd";
  fbsd.ran.release = "older";
  std::ostringstream only_linux, only_fbsd, both;
  rep.variants = {lin};
  print_table(only_linux, sc, rep);
  rep.variants = {fbsd};
  print_table(only_fbsd, sc, rep);
  rep.variants = {lin, fbsd};
  print_table(both, sc, rep);
  // Linux alone: the columns as they always were; no driver column.
  CHECK(only_linux.str().find("  kernel   profile       HZ  poll sleep\n") != std::string::npos);
  CHECK(only_linux.str().find("driver   release") == std::string::npos);
  // FreeBSD alone: its driver and release, none of Linux's columns.
  CHECK(only_fbsd.str().find("  driver   release\n") != std::string::npos);
  CHECK(only_fbsd.str().find("kernel") == std::string::npos);
  CHECK(only_fbsd.str().find("HZ") == std::string::npos);
  CHECK(only_fbsd.str().find("  freebsd  older\n") != std::string::npos);
  // Both: each row fills its own columns, "-" in the other's.
  CHECK(both.str().find("  linux    -         5.7      5.7-6.0      250  usleep_range(1000, 2000)\n") != std::string::npos);
  CHECK(both.str().find("  freebsd  older     -        -              -  -\n") != std::string::npos);
  // summary.ran: Linux's settings for Linux, the driver (and release) otherwise.
  CHECK(summary_json(lin)["ran"].dump() ==
        R"j({"kernel":"5.7","profile":"5.7-6.0","poll_sleep":"usleep_range(1000, 2000)","hz":250})j");
  CHECK(summary_json(fbsd)["ran"].dump() == R"({"driver":"freebsd","release":"older"})");
}

TEST_CASE("hosts: --dmesg prints each driver's lines with its log's times", "[hosts][outputs]") {
  // Linux: printk times and the initcall line; FreeBSD: its message buffer's times
  // (kern.msgbuf_show_timestamp=2), no initcall line; U-Boot (a console driver): its lines alone.
  const Scenario sc = load_scenario_text(
      R"({"schema": "nvmesim.scenario/1", "controllers": [{}],
          "variants": [{"name": "lin"}, {"name": "fbsd", "patch": {"host": {"driver": "freebsd"}}},
                       {"name": "ub", "patch": {"host": {"driver": "uboot"}}}]})",
      "s.json");
  Recorder rec;
  rec.begin_trial(true);
  Event e;
  e.t_ps = 1'500'000'000;  // 1.5 ms
  e.kind = EventKind::message;
  e.detail = "nvme0: controller ready did not become 1 within 500 ms";
  rec.add(e);
  TrialResult res;
  res.recorder = &rec;
  TrialRequest req;
  req.variant = &sc.variants[0];
  std::string lin, fbsd;
  append_dmesg_trial(lin, req, res, 0.0);
  req.variant = &sc.variants[1];
  append_dmesg_trial(fbsd, req, res, 0.0);
  CHECK(lin == "# nvmesim boot {\"variant\":\"lin\",\"trial\":0}\n[    0.000000] " + std::string(kDmesgInitLine) +
                   "\n[    0.001500] nvme0: controller ready did not become 1 within 500 ms\n");
  std::string ub;
  req.variant = &sc.variants[2];
  append_dmesg_trial(ub, req, res, 0.0);
  // 1.5 ms = 1500000000 ps: "[0.001500] " (not padded, as FreeBSD prints it).
  CHECK(fbsd ==
        "# nvmesim boot {\"variant\":\"fbsd\",\"trial\":0}\n[0.001500] nvme0: controller ready did not become 1 within 500 ms\n");
  CHECK(ub == "# nvmesim boot {\"variant\":\"ub\",\"trial\":0}\nnvme0: controller ready did not become 1 within 500 ms\n");
  CHECK(log_prefix(&sc.variants[2], 0.0, 1) == "");
  CHECK(log_prefix(&sc.variants[1], 0.0, 1) == "[0.000000] ");
  CHECK(log_prefix(&sc.variants[0], 0.0, 1'500'000'000) == "[    0.001500] ");
  // msgbuf: 0.5 s + 2 s (2e12 ps) = "[2.500000] ".
  CHECK(msgbuf_prefix(0.5, 2'000'000'000'000) == "[2.500000] ");
  // SPDK's date and time from the epoch: 1.5 ms; 1700000000 s = 19675 days (2023-11-14) + 80000 s
  // (22:13:20); 951782400 s = 11016 days = 10957 (2000-01-01) + 31 + 28: the leap day 2000-02-29.
  CHECK(spdk_log_prefix(0.0, 1'500'000'000) == "[1970-01-01 00:00:00.001500] ");
  CHECK(spdk_log_prefix(1700000000.0, 0) == "[2023-11-14 22:13:20.000000] ");
  CHECK(spdk_log_prefix(951782400.0, 0) == "[2000-02-29 00:00:00.000000] ");
}
