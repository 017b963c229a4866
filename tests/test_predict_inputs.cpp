// Bad inputs of `nvmesim predict` (the attack campaign's findings on issues 13 and 14): what-ifs
// for another driver, what-if names that read as an observed host, a what-if host the simulator
// stops on, hand-edited particles outside the prior, and --set of a nested key. Each is exit 2
// naming the option or the file and JSON pointer, never exit 4 at a temporary file.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/json_text.hpp"
#include "fit/predict.hpp"
#include "support.hpp"

using namespace nvmesim;
using oj = nlohmann::ordered_json;

namespace {

// The shipped posterior of the two AWS boots: observed hosts amzn-5.6 and amzn-5.7.
const std::string kPosterior = std::string(NVMESIM_SOURCE_DIR) + "/tests/data/fit/aws-c5.12xlarge.posterior.json";

oj posterior() { return parse_json_text(read_text_file(kPosterior), kPosterior); }

std::string tmp(const std::string& name) { return "/tmp/nvmesim-test-" + name + "-" + std::to_string(::getpid()) + ".json"; }

}  // namespace

TEST_CASE("predict: a what-if for another driver is exit 2 where the driver is given, not run with Linux's keys",
          "[fit][predict][inputs]") {
  // The what-if would inherit kernel, hz, tick, highres and wakeup_latency from the observed host.
  auto r = test::run_capture("predict " + kPosterior + " --kernel 5.7 --set /host/driver=freebsd --draws 10 --trials 1");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--set /host/driver=freebsd: what-if \"5.7 driver=freebsd\": host.driver \"freebsd\" "
                                    "is not predicted: predict runs the Linux driver only"));
  const std::string wf = tmp("whatif-driver");
  test::spit(wf, R"({"whatifs": [{"name": "bsd", "host": {"driver": "freebsd", "release": "13.1+"}}]})");
  r = test::run_capture("predict " + kPosterior + " --whatif " + wf + " --draws 10 --trials 1");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(wf + ": /whatifs/0/host/driver: what-if \"bsd\": host.driver \"freebsd\" is not predicted"));
  // "linux" spelt out is the driver predict runs.
  test::spit(wf, R"({"whatifs": [{"name": "linux 5.7", "host": {"driver": "linux", "kernel": "5.7"}}]})");
  r = test::run_capture("predict " + kPosterior + " --whatif " + wf + " --draws 10 --trials 1");
  CHECK(r.status == 0);
  std::remove(wf.c_str());
}

TEST_CASE("predict: a what-if named \"\" or like an observed host is exit 2 at its name", "[fit][predict][inputs]") {
  const std::string wf = tmp("whatif-names");
  test::spit(wf, R"({"whatifs": [{"name": "", "host": {"kernel": "5.7"}}]})");
  auto r = test::run_capture("predict " + kPosterior + " --whatif " + wf);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(wf + ": /whatifs/0/name: a what-if needs a name that is not empty"));
  // The reference row reads "amzn-5.6 (observed)": a what-if "amzn-5.6" (or "amzn-5.7", the other
  // observed host) would read as that host's own result.
  for (const char* name : {"amzn-5.6", "amzn-5.7"}) {
    test::spit(wf, std::string(R"({"whatifs": [{"name": ")") + name + R"(", "host": {"kernel": "6.6"}}]})");
    r = test::run_capture("predict " + kPosterior + " --whatif " + wf);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(wf + ": /whatifs/0/name: \"" + name + "\" is the name of an observed host"));
  }
  std::remove(wf.c_str());
}

TEST_CASE("predict: a what-if host the simulator stops on is exit 2 naming the --set, not exit 4 with fit:",
          "[fit][predict][inputs]") {
  // host.max_events_per_trial 10: the probe makes more than 10 MMIO accesses and sleeps, so the
  // simulator child stops the trial (exit 2 in `nvmesim run`). It was an internal error (exit 4)
  // starting "fit: the simulator failed on a chunk" and naming the temporary chunk file.
  const auto r = test::run_capture("predict " + kPosterior + " --kernel 5.7 --set /host/max_events_per_trial=10 --draws 10 --trials 1");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nvmesim: error: predict: --set /host/max_events_per_trial=10 (what-if \"5.7 "
                                      "max_events_per_trial=10\"): the simulator stopped: trial stopped: the trial made "
                                      "more than 10 MMIO accesses and sleeps"));
  CHECK_THAT(r.err, !Catch::Contains("nvmesim-fit-") && !Catch::Contains("fit:"));
}

TEST_CASE("predict: a posterior particle outside the fit's prior is exit 2 at its pointer", "[fit][predict][inputs]") {
  // disable_latency.sigma (parameter 1 of the device block) has the prior [0.05, 1.5]; 1e5 reached
  // the simulator as a lognormal sigma it refuses (exit 4, "fit: ..."). Its median (parameter 0,
  // prior [1e-6, 10] s) at 1e250 s likewise.
  const std::string path = tmp("post-range");
  struct Case {
    size_t param;
    double value;
    const char* message;
  };
  const Case cases[] = {{1, 1e5, "/blocks/0/particles/3/1: 100000 is outside the prior of disable_latency.sigma, [0.05, 1.5]"},
                        {0, 1e250, "/blocks/0/particles/3/0: 1e+250 is outside the prior of disable_latency.median, [1e-06, 10]"},
                        {0, 0.999e-6, "/blocks/0/particles/3/0: 9.99e-07 is outside the prior of disable_latency.median"}};
  for (const Case& c : cases) {
    oj doc = posterior();
    doc["blocks"][0]["particles"][3][c.param] = c.value;
    test::spit(path, doc.dump());
    const auto r = test::run_capture("predict " + path + " --kernel 5.7 --draws 10 --trials 1");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(path + ": " + c.message));
  }
  // The prior's bounds themselves are inside (as fit writes 10^u for u at a bound).
  oj doc = posterior();
  doc["blocks"][0]["particles"][3][1] = 1.5;
  doc["blocks"][0]["particles"][4][1] = 0.05;
  const PosteriorModel p = parse_posterior(doc, "post.json");
  CHECK(p.pops[0].u[3 * p.pops[0].d + 1] == Approx(std::log10(1.5)));
  std::remove(path.c_str());
}

TEST_CASE("predict: --set of a key inside host's objects is refused for what it is", "[fit][predict][inputs]") {
  // It said "(init_to_probe is fitted)" for /host/overrides/poll.
  auto r = test::run_capture("predict " + kPosterior + " --kernel 5.7 --set '/host/overrides/poll=\"msleep(1)\"'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--set /host/overrides/poll=\"msleep(1)\": --set takes a key of host itself "
                                    "(/host/KEY=VALUE), not /host/overrides/poll; give a key inside one of host's objects "
                                    "in a --whatif FILE"));
  CHECK_THAT(r.err, !Catch::Contains("init_to_probe"));
  r = test::run_capture("predict " + kPosterior + " --kernel 5.7 --set /host/init_to_probe=1ms");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--set /host/init_to_probe=1ms: /host/init_to_probe cannot be set by a what-if "
                                    "(init_to_probe is fitted)"));
}

TEST_CASE("predict: a run naming a host the posterior does not observe is exit 2 at its pointer", "[fit][predict][inputs]") {
  // The shipped posterior observes amzn-5.6 and amzn-5.7; a hand edit that names another host in
  // /observations/runs/0/host used to be accepted (the run was read as a run of no host).
  oj doc = posterior();
  doc["observations"]["runs"][0]["host"] = "nonexistent";
  try {
    (void)parse_posterior(doc, "post.json");
    FAIL("accepted a run of an unknown host");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("/observations/runs/0/host") && Catch::Contains("\"nonexistent\" is not a host in /observations/hosts") &&
                   Catch::Contains("\"amzn-5.6\", \"amzn-5.7\""));
  }
  doc["observations"]["runs"][0].erase("host");
  CHECK_THROWS_AS(parse_posterior(doc, "post.json"), InputError);
}

TEST_CASE("predict: the order of a posterior's blocks does not change what it predicts", "[fit][predict][inputs]") {
  // The same blocks in another order are the same posterior. The draws of block b are keyed by
  // b, so the blocks must be read into the fit's order (device, namespace_scan, mount, vfs_root,
  // init_exec), not the file's: swapping the first two used to change every draw.
  const oj doc = posterior();
  oj swapped = doc;
  std::swap(swapped["blocks"][0], swapped["blocks"][1]);
  REQUIRE(swapped["blocks"][0]["name"] != doc["blocks"][0]["name"]);
  const PosteriorModel a = parse_posterior(doc, "a.json"), b = parse_posterior(swapped, "b.json");
  REQUIRE(a.specs.size() == b.specs.size());
  for (size_t i = 0; i < a.specs.size(); ++i) CHECK(a.specs[i].name == b.specs[i].name);
  const auto da = draw_posterior(a, 16, 7), db = draw_posterior(b, 16, 7);
  REQUIRE(da.size() == db.size());
  for (size_t j = 0; j < da.size(); ++j) CHECK(da[j] == db[j]);
}

TEST_CASE("predict: an observed host may say tick \"auto\", the scenario's default, as a what-if can", "[fit][predict][inputs]") {
  // host.tick "auto" (issue 11 item 9) is the scenario default and predict --tick takes it; the
  // posterior's observed hosts refused it ("allowed: nohz_idle, periodic"). A wrong tick is still
  // refused at its pointer, listing the three.
  oj doc = posterior();
  doc["observations"]["hosts"]["amzn-5.6"]["tick"] = "auto";
  const PosteriorModel p = parse_posterior(doc, "post.json");
  CHECK(p.hosts[0].host["tick"] == "auto");
  doc["observations"]["hosts"]["amzn-5.6"]["tick"] = "autoo";
  try {
    (void)parse_posterior(doc, "post.json");
    FAIL("accepted tick \"autoo\"");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("/observations/hosts/amzn-5.6/tick") && Catch::Contains("\"auto\"") &&
                                          Catch::Contains("\"nohz_idle\"") && Catch::Contains("\"periodic\""));
  }
}

TEST_CASE("predict: a posterior key fit does not write, or an edited prior, is exit 2 at its pointer - not ignored",
          "[fit][predict][inputs]") {
  // predict reads particles and weights, never these: a typo or a hand edit here would change
  // nothing, so a user would believe an input took effect that did not.
  struct Case {
    const char* pointer;  // where the edit goes (nlohmann json_pointer)
    oj value;
    const char* message;
  };
  const Case cases[] = {
      {"/whatifs", oj::array(), "/whatifs: unknown key \"whatifs\""},
      {"/observations/extra", 1, "/observations/extra: unknown key \"extra\""},
      {"/observations/runs/0/hz", 1000, "/observations/runs/0/hz: unknown key \"hz\""},
      {"/blocks/0/weight", 1, "/blocks/0/weight: unknown key \"weight\"; did you mean \"weights\"?"},
      {"/blocks/0/parameters/0/median", 1, "/blocks/0/parameters/0/median: unknown key \"median\""},
      // The device block's disable_latency.median has the prior [1e-6, 10] s (fit/problems.cpp
      // block_specs); a file saying [1e-6, 100] would have predict draw inside [1e-6, 10] anyway.
      {"/blocks/0/parameters/0/prior/1", 100.0,
       "/blocks/0/parameters/0/prior: [1e-06, 100] is not the prior of disable_latency.median in this version, [1e-06, 10]"},
      {"/blocks/0/parameters/1/prior/0", 0.06, "/blocks/0/parameters/1/prior: [0.06, 1.5] is not the prior of disable_latency.sigma"},
  };
  for (const Case& c : cases) {
    oj doc = posterior();
    doc[oj::json_pointer(c.pointer)] = c.value;
    CHECK_THROWS_WITH(parse_posterior(doc, "post.json"), Catch::Contains(std::string("post.json: ") + c.message));
  }
  // The untouched file reads (the check is on the edit, not on every posterior).
  CHECK_NOTHROW(parse_posterior(posterior(), "post.json"));
}

TEST_CASE("predict: the device keys the machine's dumps fixed reach every simulated run, and are checked",
          "[fit][predict][inputs]") {
  // lspci says 1bb1:0100, an id of Linux's delay-before-check-ready quirk from 4.19
  // (host/linux/kernel_profile.cpp): 5.7 then sleeps 2300 ms before its RDY wait on the disable,
  // so the predicted 5.7 probe is over 2300 ms; the same posterior without it predicts ~6.4 ms
  // (the seed case). A fixed key that never reached the simulator would leave it at ~6.4 ms.
  const std::string path = tmp("post-device"), out = tmp("pred-device");
  oj doc = posterior();
  doc["observations"]["device"] = {{"pci_id", "1bb1:0100"}};
  doc["observations"]["device_from"] = {{"pci_id", "lspci lspci.txt line 3"}};
  test::spit(path, doc.dump());
  auto r = test::run_capture("predict " + path + " --kernel 5.7 --draws 10 --trials 2 --out " + out);
  REQUIRE(r.status == 0);
  const oj pred = parse_json_text(read_text_file(out), out);
  CHECK(pred["whatifs"][1]["name"] == "5.7");
  CHECK(pred["whatifs"][1]["probe_ms"]["p50"].get<double>() > 2300.0);
  r = test::run_capture("predict " + kPosterior + " --kernel 5.7 --draws 10 --trials 2 --out " + out);
  REQUIRE(r.status == 0);
  CHECK(parse_json_text(read_text_file(out), out)["whatifs"][1]["probe_ms"]["p50"].get<double>() < 100.0);
  // A hand edit the simulator would refuse is exit 2 at the posterior, not at a chunk file.
  doc["observations"]["device"] = {{"pci_id", "zz"}};
  test::spit(path, doc.dump());
  r = test::run_capture("predict " + path + " --kernel 5.7 --draws 10 --trials 2");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(path + ": /observations/device: is not a device the simulator takes: device: "
                                           "/controllers/0/pci_id: must be \"vendor:device\" in hex"));
  doc["observations"]["device"] = {{"enable_latency", "1ms"}};
  test::spit(path, doc.dump());
  r = test::run_capture("predict " + path + " --kernel 5.7 --draws 10 --trials 2");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(path + ": /observations/device/enable_latency: unknown key \"enable_latency\""));
  std::remove(path.c_str());
  std::remove(out.c_str());
}

TEST_CASE("predict: a what-if with the reference host's own settings is exit 2 - not a +0.000 ms delta", "[fit][predict][inputs]") {
  // The shipped posterior's first observed host is amzn-5.6 (kernel 5.6, HZ 250, nohz_idle):
  // --kernel 5.6 or an empty what-if host ran it against itself and printed delta +0.000 [0, 0].
  auto r = test::run_capture("predict " + kPosterior + " --kernel 5.6 --draws 10 --trials 1");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--kernel 5.6: what-if \"5.6\" has the reference host's own settings (amzn-5.6 (observed))"));
  const std::string wf = tmp("whatif-same");
  test::spit(wf, R"({"whatifs": [{"name": "a", "host": {}}]})");
  r = test::run_capture("predict " + kPosterior + " --whatif " + wf + " --draws 10 --trials 1");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(wf + ": /whatifs/0/name: what-if \"a\" has the reference host's own settings"));
  std::remove(wf.c_str());
}

TEST_CASE("predict: observations.device holds only what the dumps fix, and device_from names exactly its keys",
          "[fit][predict][inputs]") {
  // The attack on fit/predict: an "nn" under device.identify passed (the scenario takes it, but
  // Linux, the only driver predict runs, never reads it), and device_from took any keys and values.
  struct Case {
    oj device, from;
    std::string message;
  };
  const oj dev = {{"pci_id", "1d0f:8061"}, {"identify", {{"model", "Amazon EC2 NVMe Instance Storage"}, {"rtd3e", "0us"}}}};
  const oj from = {{"pci_id", "lspci l.txt line 3"}, {"identify.model", "id-ctrl c.txt line 5"},
                   {"identify.rtd3e", "id-ctrl c.txt line 9"}};
  oj with_nn = dev;
  with_nn["identify"]["nn"] = 1;
  oj from_extra = from;
  from_extra["identify.nn"] = "id-ctrl c.txt line 7";
  oj from_short = from;
  from_short.erase("identify.rtd3e");
  oj from_number = from;
  from_number["pci_id"] = 3;
  // A CAP no controller reads as (stop 24's attack: all ones passed). 0x...ff: MQES 0xffff;
  // 0x0000000000ff0000: MQES 0; MPSMIN (bits 51:48) 1 > MPSMAX (bits 55:52) 0 in 0x00010000000000ff.
  const auto with_cap = [&](const char* cap) {
    oj d = dev;
    d["cap"] = cap;
    return d;
  };
  oj from_cap = from;
  from_cap["cap"] = "show-regs r.txt line 1";
  const std::vector<Case> cases = {
      {with_cap("0xffffffffffffffff"), from_cap, "post.json: /observations/device/cap: cap is all ones: the device did not answer"},
      {with_cap("0x0000000000ff0000"), from_cap, "post.json: /observations/device/cap: CAP.MQES is 0"},
      {with_cap("0x00010000000000ff"), from_cap, "post.json: /observations/device/cap: CAP.MPSMIN > CAP.MPSMAX"},
      // fit writes the raw register; the scenario's object form or a number is not what it wrote.
      {[&] { oj d = dev; d["cap"] = 3; return d; }(), from_cap, "post.json: /observations/device/cap: must be the 64-bit CAP in hex"},
      {[&] { oj d = dev; d["cap"] = {{"mqes", 1}}; return d; }(), from_cap, "post.json: /observations/device/cap: must be the 64-bit CAP in hex"},
      {with_nn, from, "post.json: /observations/device/identify/nn: unknown key \"nn\""},
      {dev, from_extra, "post.json: /observations/device_from/identify.nn: unknown key \"identify.nn\""},
      {dev, from_short, "post.json: /observations/device_from: has no entry for \"identify.rtd3e\""},
      {dev, from_number, "post.json: /observations/device_from/pci_id: must be a string, not an integer"},
      {dev, nullptr, "post.json: /observations: has \"device\" without \"device_from\""},
      {nullptr, from, "post.json: /observations/device_from: says where the device's keys were read, but there is no \"device\""},
  };
  for (const Case& c : cases) {
    oj doc = posterior();
    if (!c.device.is_null()) doc["observations"]["device"] = c.device;
    if (!c.from.is_null()) doc["observations"]["device_from"] = c.from;
    CHECK_THROWS_WITH(parse_posterior(doc, "post.json"), Catch::Contains(c.message));
  }
  // The device and its record as fit writes them read.
  oj doc = posterior();
  doc["observations"]["device"] = dev;
  doc["observations"]["device_from"] = from;
  CHECK_NOTHROW(parse_posterior(doc, "post.json"));
  // ... and with a real CAP: MQES 0xffff (bits 15:0), TO 255 (bits 31:24), CSS NVM (bit 37).
  doc["observations"]["device"] = with_cap("0x00000020ff00ffff");
  doc["observations"]["device_from"] = from_cap;
  CHECK_NOTHROW(parse_posterior(doc, "post.json"));
}
