// Variants (issue 10 items 1-3): patches checked by the same tables as the file at every depth,
// every key a patch sets taking effect (boot too); the pointer form "set" applied after "patch",
// and the warning for a patch's controllers[i] that leaves out keys the base sets; a --set that
// every variant overrides is an error. Each of these passed silently before. Pure C++ but for
// the one test that runs the binary.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "scenario/scenario.hpp"
#include "support.hpp"

using namespace nvmesim;

namespace {

// A scenario whose base controller has a 1 ms enable latency, and two variants: "a" (no patch)
// and "b" with the given members (e.g. `"patch": {...}`).
std::string two_variants(const std::string& b) {
  return R"({"schema": "nvmesim.scenario/1", "host": {"kernel": "5.7"},
             "controllers": [{"enable_latency": "1ms", "pci_id": "1d0f:8061"}],
             "variants": [{"name": "a"}, {"name": "b", )" + b + "}]}";
}

std::string error_of(const std::string& text, const LoadOptions& lo = {}) {
  try {
    load_scenario_text(text, "v.json", lo);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("Every key of a variant patch is checked by the file's tables, at every depth", "[scenario][variants]") {
  struct Case {
    const char* patch;
    const char* pointer;
    const char* hint;
  };
  const Case cases[] = {
      {R"({"kernel": "6.6"})", "v.json: /variants/1/patch/kernel: ", "did you mean \"host\": {\"kernel\": ...} (/host/kernel)?"},
      {R"({"hots": {"kernel": "6.6"}})", "v.json: /variants/1/patch/hots: ", "did you mean \"host\"?"},
      {R"({"linkk": {"width": 8}})", "v.json: /variants/1/patch/linkk: ", "did you mean \"link\"?"},
      {R"({"workloadd": "shutdown"})", "v.json: /variants/1/patch/workloadd: ", "did you mean \"workload\"?"},
      {R"({"boot": {"probe_start": 2.0}})", "v.json: /variants/1/patch/boot/probe_start: ",
       "did you mean \"probe_start_s\"?"},
      {R"({"host": {"kernal": "6.6"}})", "v.json: /variants/1/patch/host/kernal: ", "did you mean \"kernel\"?"},
      {R"({"controllers": [{"faults": {"never_redy": true}}]})", "v.json: /variants/1/patch/controllers/0/faults/never_redy: ",
       "did you mean \"never_ready\"?"},
      {R"({"link": {"one_way": {"dist": "fixed", "valu": "1us"}}})", "v.json: /variants/1/patch/link/one_way/valu: ",
       "did you mean \"value\"?"},
  };
  for (const Case& c : cases) {
    INFO(c.patch);
    const std::string e = error_of(two_variants(std::string(R"("patch": )") + c.patch));
    CHECK_THAT(e, Catch::StartsWith(c.pointer) && Catch::Contains(c.hint));
  }
}

TEST_CASE("boot in a variant patch takes effect", "[scenario][variants]") {
  const Scenario sc = load_scenario_text(two_variants(R"("patch": {"boot": {"probe_start_s": 2.5}})"), "v.json");
  REQUIRE(sc.variants.size() == 2);
  CHECK(sc.variants[0].probe_start_s == 0.0);
  CHECK(sc.variants[1].probe_start_s == 2.5);
}

TEST_CASE("run --dmesg starts each variant's boot at its own boot.probe_start_s", "[scenario][variants][cli]") {
  const std::string file = "variants-boot.json", log = "variants-boot.dmesg";
  std::FILE* f = std::fopen(file.c_str(), "w");
  REQUIRE(f);
  std::fputs(two_variants(R"("patch": {"boot": {"probe_start_s": 2.5}})").c_str(), f);
  std::fclose(f);
  REQUIRE(test::run_nvmesim("run " + file + " -q --dmesg " + log) == 0);
  const std::string d = test::slurp(log);
  // printk's "[%5lu.%06lu] ": variant a at 0 s, variant b at 2.5 s (the first line is at t = 0).
  CHECK_THAT(d, Catch::Contains("[    0.000000] ") && Catch::Contains("[    2.500000] "));
  std::remove(file.c_str());
  std::remove(log.c_str());
}

TEST_CASE("A variant's set writes one key of a controller after the patch, keeping the rest", "[scenario][variants]") {
  const Scenario sc = load_scenario_text(
      two_variants(R"("patch": {"host": {"kernel": "6.6"}}, "set": {"/controllers/0/pci_id": "1C58:9999"})"), "v.json");
  REQUIRE(sc.variants.size() == 2);
  const ControllerParams& c = sc.variants[1].controllers.at(0);
  CHECK(c.pci_id == "1c58:9999");
  CHECK(c.enable_latency.min_ps() == 1000000000);  // the base's 1 ms, kept
  CHECK(sc.variants[1].host.kernel.minor == 6);
  CHECK(sc.variants[0].controllers.at(0).pci_id == "1d0f:8061");
  CHECK(sc.warnings.empty());
  // After the patch: the set wins over the patch's controller.
  const Scenario s2 = load_scenario_text(
      two_variants(R"("patch": {"controllers": [{"enable_latency": "1ms", "pci_id": "aaaa:bbbb"}]},
                      "set": {"/controllers/0/pci_id": "cccc:dddd"})"),
      "v.json");
  CHECK(s2.variants[1].controllers.at(0).pci_id == "cccc:dddd");
}

TEST_CASE("Errors of a variant's set are reported at its entry", "[scenario][variants]") {
  CHECK_THAT(error_of(two_variants(R"("set": {"/controllers/0/pci_id": "zz"})")),
             Catch::StartsWith("v.json: /variants/1/set/~1controllers~10~1pci_id: must be \"vendor:device\""));
  CHECK_THAT(error_of(two_variants(R"("set": {"/controllers/3/pci_id": "1c58:9999"})")),
             Catch::StartsWith("v.json: /variants/1/set/~1controllers~13~1pci_id: the parent /controllers/3 does not exist in the patched scenario"));
  CHECK_THAT(error_of(two_variants(R"("set": {"/seed": 2})")),
             Catch::StartsWith("v.json: /variants/1/set/~1seed: a variant may not change \"seed\""));
  CHECK_THAT(error_of(two_variants(R"("set": {"host/kernel": "6.6"})")),
             Catch::StartsWith("v.json: /variants/1/set/host~1kernel: \"host/kernel\" is not a JSON pointer"));
  CHECK_THAT(error_of(two_variants(R"("set": {"/host/kernal": "6.6"})")),
             Catch::StartsWith("v.json: /variants/1/set/~1host~1kernal: unknown key \"kernal\""));
  CHECK_THAT(error_of(two_variants(R"("set": ["/host/kernel"])")), Catch::StartsWith("v.json: /variants/1/set: must be an object"));
}

TEST_CASE("A patch whose controllers[i] leaves out keys the base sets gets a warning", "[scenario][variants]") {
  const Scenario sc = load_scenario_text(two_variants(R"("patch": {"controllers": [{"pci_id": "1c58:9999"}]})"), "v.json");
  REQUIRE(sc.warnings.size() == 1);
  CHECK_THAT(sc.warnings[0], Catch::StartsWith("v.json: /variants/1/patch/controllers/0: replaces controllers[0] whole") &&
                                 Catch::Contains("leaves out enable_latency, which the base sets") &&
                                 Catch::Contains("\"set\": {\"/controllers/0/KEY\": VALUE}"));
  // The variant does run the default device there (0 ns), which is what the warning says.
  CHECK(sc.variants[1].controllers.at(0).enable_latency.max_ps() == 0);
  // Restating the key, or leaving out only keys at their defaults, is no warning.
  CHECK(load_scenario_text(two_variants(R"("patch": {"controllers": [{"enable_latency": "1ms"}]})"), "v.json")
            .warnings.empty());
  const std::string dflt_base = R"({"schema": "nvmesim.scenario/1", "controllers": [{"cap": {"to": 30, "mqes": 1023},
      "enable_latency": "1ms"}], "variants": [{"name": "a", "patch": {"controllers": [{"enable_latency": "2ms"}]}}]})";
  CHECK(load_scenario_text(dflt_base, "v.json").warnings.empty());
}

TEST_CASE("A misplaced key's did-you-mean names its whole pointer - a --set error names the --set that put the value", "[scenario][variants]") {
  // host.poll belongs under host.overrides: the hint is the pointer from the file's root
  // (/host/overrides/poll), not from the section (/overrides/poll).
  const std::string text = R"J({"schema": "nvmesim.scenario/1", "host": {"poll": "msleep(100)"}, "controllers": [{}]})J";
  // "poll_interval" (spdk's, a near spelling at this level) is named too: both may be meant.
  CHECK_THAT(error_of(text), Catch::StartsWith("v.json: /host/poll: unknown key \"poll\"; did you mean \"poll_interval\", or "
                                               "\"overrides\": {\"poll\": ...} (/host/overrides/poll)?"));
  // Two --set of /trials apply in order: the value 0 comes from the second, which must be named.
  LoadOptions lo;
  lo.sets.push_back(parse_set("/trials=1"));
  lo.sets.push_back(parse_set("/trials=0"));
  const std::string e = error_of(R"({"schema": "nvmesim.scenario/1", "controllers": [{}]})", lo);
  CHECK_THAT(e, Catch::Contains("(this value comes from --set /trials=0)"));
}

TEST_CASE("A --set that every variant overrides is an error naming them", "[scenario][variants]") {
  const std::string text = R"({"schema": "nvmesim.scenario/1", "host": {}, "controllers": [{}], "variants": [
      {"name": "5.6", "patch": {"host": {"kernel": "5.6"}}},
      {"name": "5.7", "set": {"/host/kernel": "5.7"}},
      {"name": "6.6", "patch": {"host": null}}]})";
  LoadOptions lo;
  lo.sets.push_back(parse_set(R"(/host/kernel="6.1")"));
  CHECK(error_of(text, lo) ==
        "v.json: --set /host/kernel: every variant sets /host/kernel (\"5.6\" (/variants/0), \"5.7\" (/variants/1), "
        "\"6.6\" (/variants/2)), so this --set would change nothing; drop the variants with --set /variants=[], or "
        "set a location the variants leave alone");
  // A location one variant leaves alone is fine, and so is a --set that drops the variants.
  LoadOptions hz;
  hz.sets.push_back(parse_set("/host/hz=1000"));
  CHECK(error_of(text, hz) == "(no error)");
  lo.sets.push_back(parse_set("/variants=[]"));
  CHECK(error_of(text, lo) == "(no error)");
  // An object --set is merged into by a patch's object: it still changes the keys left alone.
  LoadOptions host;
  host.sets.push_back(parse_set(R"(/host={"kernel": "6.1", "hz": 1000})"));
  const std::string objs = R"({"schema": "nvmesim.scenario/1", "host": {}, "controllers": [{}], "variants": [
      {"name": "x", "patch": {"host": {"kernel": "5.6"}}}]})";
  CHECK(error_of(objs, host) == "(no error)");
}

TEST_CASE("run --set that every variant overrides exits 2", "[scenario][variants][cli]") {
  // Every variant sets the kernel: a --set of it would run the same two variants as without it.
  const std::string file = "variants-set.json";
  std::FILE* f = std::fopen(file.c_str(), "w");
  REQUIRE(f);
  std::fputs(R"({"schema": "nvmesim.scenario/1", "host": {}, "controllers": [{}], "variants": [
      {"name": "5.6", "patch": {"host": {"kernel": "5.6"}}}, {"name": "5.7", "patch": {"host": {"kernel": "5.7"}}}]})",
             f);
  std::fclose(f);
  CHECK(test::run_nvmesim("run " + file + " -q --set '/host/kernel=\"6.6\"'") == 2);
  CHECK(test::run_nvmesim("run " + file + " -q --set /host/hz=1000") == 0);
  std::remove(file.c_str());
}

TEST_CASE("A variant error is reported where the value is: in the patch when the patch holds it, else at the patch naming the base's location",
          "[scenario][variants]") {
  // host.sleep_lateness is refused under FreeBSD "older". The base gives it and the variant's patch
  // switches the release: the patch has no /host/sleep_lateness, so the error is at the patch and
  // names the base's /host/sleep_lateness (it named /variants/1/patch/host/sleep_lateness, which
  // is not there, as if the patch merging into "host" made every key of host the patch's).
  const std::string kFreebsd = R"({"schema": "nvmesim.scenario/1", "controllers": [{}], "host": )";
  const std::string refused = "FreeBSD \"older\" busy-waits (DELAY) and never calls pause_sbt; leave it out for this release";
  CHECK(error_of(kFreebsd + R"({"driver": "freebsd", "release": "13.1+", "sleep_lateness": "none"},
        "variants": [{"name": "a"}, {"name": "b", "patch": {"host": {"release": "older"}}}]})") ==
        "v.json: /variants/1/patch: the patched scenario is invalid at /host/sleep_lateness (the base's value; this patch "
        "does not set it): " + refused);
  // The same through "set": at the set entry, not at a /patch the variant does not have (issue 16's
  // last attack); with two entries, at the variant's "set".
  CHECK(error_of(kFreebsd + R"({"driver": "freebsd", "release": "13.1+", "sleep_lateness": "none"},
        "variants": [{"name": "a"}, {"name": "b", "set": {"/host/release": "older"}}]})") ==
        "v.json: /variants/1/set/~1host~1release: the patched scenario is invalid at /host/sleep_lateness (the base's "
        "value; this variant's \"set\" does not write it): " + refused);
  CHECK(error_of(kFreebsd + R"({"driver": "freebsd", "release": "13.1+", "sleep_lateness": "none"},
        "variants": [{"name": "a"}, {"name": "b", "set": {"/host/release": "older", "/controllers/0/count": 1}}]})") ==
        "v.json: /variants/1/set: the patched scenario is invalid at /host/sleep_lateness (the base's "
        "value; this variant's \"set\" does not write it): " + refused);
  // The patch gives sleep_lateness over an "older" base: the patch's own key.
  CHECK(error_of(kFreebsd + R"({"driver": "freebsd", "release": "older"},
        "variants": [{"name": "a"}, {"name": "b", "patch": {"host": {"sleep_lateness": "max"}}}]})") ==
        "v.json: /variants/1/patch/host/sleep_lateness: " + refused);
  // A place inside an array the patch gives (arrays are replaced whole) is the patch's.
  CHECK_THAT(error_of(two_variants(R"("patch": {"controllers": [{"cap": {"to": 300}}]})")),
             Catch::StartsWith("v.json: /variants/1/patch/controllers/0/cap/to: "));
}
