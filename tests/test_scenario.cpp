// Scenario loading and validation (DESIGN section 7): errors name the file and the JSON pointer,
// say what is allowed, and nothing is written.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/cli.hpp"
#include "scenario/scenario.hpp"

using namespace nvmesim;

namespace {
const char* kMinimal = R"({
  "schema": "nvmesim.scenario/1",
  "host": {"kernel": "5.6", "hz": 250},
  "controllers": [{"enable_latency": "1ms"}]
})";

std::string error_of(const std::string& text, const LoadOptions& opt = {}) {
  try {
    load_scenario_text(text, "s.json", opt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string with(const std::string& from, const std::string& to) {
  std::string s = kMinimal;
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}
}  // namespace

TEST_CASE("a minimal scenario loads with documented defaults", "[scenario]") {
  const Scenario sc = load_scenario_text(kMinimal, "s.json");
  REQUIRE(sc.variants.size() == 1);
  const Variant& v = sc.variants[0];
  CHECK(v.host.kernel.to_string() == "5.6");
  CHECK(v.host.profile.poll == SleepPolicy::msleep(100));
  CHECK(v.host.timers.hz == 250);
  CHECK(v.controllers.size() == 1);
  CHECK(v.controllers[0].cap.to == 30);
  CHECK(v.controllers[0].clock_period_ps == 2000);
  CHECK(v.controllers[0].enable_latency.quantile_ps(0.5) == 1'000'000'000);
  CHECK(sc.seed == 1);
  CHECK(sc.trials == 1);
}

TEST_CASE("a malformed duration names the file - the pointer and the allowed form", "[scenario]") {
  const std::string e = error_of(with("\"1ms\"", "\"1 fortnight\""));
  CHECK_THAT(e, Catch::StartsWith("s.json: /controllers/0/enable_latency: duration \"1 fortnight\""));
  CHECK_THAT(e, Catch::Contains("allowed units"));
  CHECK_THAT(error_of(with("\"1ms\"", "5")), Catch::Contains("/controllers/0/enable_latency: must be a duration string"));
}

TEST_CASE("an unknown key is an error with a did-you-mean", "[scenario]") {
  const std::string e = error_of(with("\"hz\"", "\"hzz\""));
  CHECK_THAT(e, Catch::StartsWith("s.json: /host/hzz: unknown key \"hzz\"; did you mean \"hz\"?"));
  CHECK_THAT(error_of(with("\"schema\"", "\"scheme\"")), Catch::Contains("/scheme: unknown key"));
}

TEST_CASE("a wrong type names what is allowed", "[scenario]") {
  CHECK_THAT(error_of(with("250", "\"250\"")),
             Catch::StartsWith("s.json: /host/hz: must be one of 100, 250, 300, 1000 (CONFIG_HZ), not the string \"250\""));
  CHECK_THAT(error_of(with("250", "251")), Catch::Contains("/host/hz: must be one of 100, 250, 300, 1000"));
  CHECK_THAT(error_of(with("\"5.6\"", "5.6")), Catch::Contains("/host/kernel: must be a string"));
  CHECK_THAT(error_of(with("\"5.6\"", "\"2.6\"")), Catch::Contains("/host/kernel: kernel 2.6 is not supported; supported releases:"));
}

TEST_CASE("distribution errors point inside the distribution", "[scenario]") {
  const std::string e = error_of(with("\"1ms\"", R"({"dist": "uniform", "min": "3ms", "max": "1ms"})"));
  CHECK_THAT(e, Catch::Contains("/controllers/0/enable_latency/min: uniform min must be <= max"));
  CHECK_THAT(error_of(with("\"1ms\"", R"({"dist": "gamma"})")), Catch::Contains("/enable_latency/dist: \"gamma\" is not a distribution"));
  CHECK_THAT(error_of(with("\"1ms\"", R"({"dist": "empirical", "samples": []})")),
             Catch::Contains("/enable_latency/samples: empirical needs at least one sample"));
  // A required key missing (stop 27's fuzzing: nlohmann's out_of_range, an internal error, exit 4):
  // an input error at the distribution, naming the kind and the key, for every kind with one.
  struct Missing {
    const char* dist;
    const char* kind;
    const char* key;
  };
  for (const Missing& m : {Missing{R"({"dist": "fixed"})", "fixed", "value"},
                           Missing{R"({"dist": "uniform", "min": "1ms"})", "uniform", "max"},
                           Missing{R"({"dist": "uniform", "max": "1ms"})", "uniform", "min"},
                           Missing{R"({"dist": "normal", "mean": "1ms"})", "normal", "sd"},
                           Missing{R"({"dist": "normal", "sd": "1ms"})", "normal", "mean"},
                           Missing{R"({"dist": "exponential"})", "exponential", "mean"}}) {
    INFO(m.dist);
    CHECK_THAT(error_of(with("\"1ms\"", m.dist)),
               Catch::StartsWith(std::string("s.json: /controllers/0/enable_latency: a \"") + m.kind +
                                 "\" distribution needs \"" + m.key + "\""));
  }
}

TEST_CASE("syntax errors give line and column", "[scenario]") {
  const std::string e = error_of("{\n  \"schema\": \"nvmesim.scenario/1\",\n  \"trials\": ,\n}");
  CHECK_THAT(e, Catch::StartsWith("s.json:3:"));
  CHECK_THAT(e, Catch::Contains("JSON syntax error"));
}

TEST_CASE("variant errors are reported at the patch that caused them", "[scenario]") {
  std::string s = kMinimal;
  s.insert(s.rfind('}'), R"(, "variants": [{"name": "a", "patch": {}}, {"name": "b", "patch": {"host": {"kernel": "9.9"}}}])");
  CHECK_THAT(error_of(s), Catch::StartsWith("s.json: /variants/1/patch/host/kernel: kernel 9.9 is not supported"));
}

TEST_CASE("set patches (--set) the document before validation", "[scenario]") {
  LoadOptions o;
  o.sets.push_back(parse_set("/host/hz=1000"));
  o.sets.push_back(parse_set("/host/kernel=\"5.7\""));
  o.sets.push_back(parse_set("/name=my run"));  // not JSON: taken as a string
  const Scenario sc = load_scenario_text(kMinimal, "s.json", o);
  CHECK(sc.variants[0].host.timers.hz == 1000);
  CHECK(sc.variants[0].host.kernel.to_string() == "5.7");
  CHECK(sc.name == "my run");
  // An unquoted 5.7 is the JSON number 5.7, which cannot name 5.70 apart from 5.7: an error.
  LoadOptions num;
  num.sets.push_back(parse_set("/host/kernel=5.7"));
  CHECK_THAT(error_of(kMinimal, num), Catch::Contains("/host/kernel: must be a string"));
  CHECK_THROWS_WITH(parse_set("host/hz=1"), Catch::Contains("expected PTR=VALUE"));
  LoadOptions bad;
  bad.sets.push_back(parse_set("/nope/deeper=1"));
  CHECK_THAT(error_of(kMinimal, bad), Catch::Contains("--set /nope/deeper: the parent /nope does not exist"));
}

TEST_CASE("nvmesim run on a bad scenario exits 2 - names file and pointer - writes nothing", "[scenario][cli]") {
  const std::string dir = "nvmesim_test_bad_run";
  std::remove((dir + ".json").c_str());
  const std::string in = dir + ".in.json";
  {
    std::ofstream f(in);
    f << with("\"1ms\"", "\"-4ms\"");
  }
  const std::string outp = dir + ".json";
  const char* argv[] = {"nvmesim", "run", in.c_str(), "--out", outp.c_str()};
  std::ostringstream out, err;
  CHECK(cli_main(5, argv, out, err) == 2);
  CHECK_THAT(err.str(), Catch::StartsWith("nvmesim: error: " + in + ": /controllers/0/enable_latency: duration \"-4ms\" is negative"));
  CHECK(out.str().empty());
  CHECK_FALSE(std::ifstream(outp).good());
  std::remove(in.c_str());
}

TEST_CASE("nvmesim validate reports every file", "[scenario][cli]") {
  const std::string good = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/aws-c5.12xlarge.json";
  const char* argv[] = {"nvmesim", "validate", good.c_str(), "no-such-file.json"};
  std::ostringstream out, err;
  CHECK(cli_main(4, argv, out, err) == 2);
  CHECK_THAT(out.str(), Catch::Contains("aws-c5.12xlarge.json: ok (2 variants, 1 controller"));
  CHECK_THAT(err.str(), Catch::Contains("no-such-file.json: cannot open"));
}

TEST_CASE("the CLI has help and rejects unknown commands", "[cli]") {
  std::ostringstream out, err;
  const char* help[] = {"nvmesim", "--help"};
  CHECK(cli_main(2, help, out, err) == 0);
  CHECK_THAT(out.str(), Catch::Contains("Usage: nvmesim <command>"));
  const char* runhelp[] = {"nvmesim", "run", "--help"};
  CHECK(cli_main(3, runhelp, out, err) == 0);
  CHECK_THAT(out.str(), Catch::Contains("--trials"));
  const char* bad[] = {"nvmesim", "rnu"};
  CHECK(cli_main(2, bad, out, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("did you mean \"run\"?"));
  const char* badopt[] = {"nvmesim", "run", "--trails", "5"};
  CHECK(cli_main(4, badopt, out, err) == 2);
}

TEST_CASE("nvmesim validate checks sweep files as sweeps", "[scenario][cli]") {
  // enable-latency-vs-kernel-hz: 3 kernels x 3 HZ values x 9 latencies = 81 points.
  const std::string sweep = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/sweeps/enable-latency-vs-kernel-hz.json";
  const char* argv[] = {"nvmesim", "validate", sweep.c_str()};
  std::ostringstream out, err;
  CHECK(cli_main(3, argv, out, err) == 0);
  CHECK_THAT(out.str(), Catch::Contains("ok (sweep, 81 points, 200 trials per point)"));
}

TEST_CASE("an error in a value set by --set says so and suggests a unit", "[scenario]") {
  LoadOptions o;
  o.sets.push_back(parse_set("/controllers/0/enable_latency=3"));
  const std::string e = error_of(kMinimal, o);
  CHECK_THAT(e, Catch::StartsWith("s.json: /controllers/0/enable_latency: must be a duration string"));
  CHECK_THAT(e, Catch::Contains("write e.g. \"3ms\""));
  CHECK_THAT(e, Catch::EndsWith("(this value comes from --set /controllers/0/enable_latency=3)"));
}

TEST_CASE("an error in an element that --set appended with /- names that --set", "[scenario]") {
  // Stop 30's attack: --set '/controllers/-={...}' failed at /controllers/1/... without saying the
  // element came from --set (the attribution compared "/controllers/-" with "/controllers/1").
  LoadOptions o;
  o.sets.push_back(parse_set(R"(/controllers/-={"bogus": 1})"));
  const std::string e = error_of(kMinimal, o);
  CHECK_THAT(e, Catch::StartsWith("s.json: /controllers/1/bogus: unknown key \"bogus\""));
  CHECK_THAT(e, Catch::EndsWith(R"((this value comes from --set /controllers/-={"bogus": 1}))"));
  // An error in the file's own element 0 is not blamed on the append, and a later set that
  // appends again takes index 2 (kMinimal's one controller, then the two appended).
  LoadOptions two;
  two.sets.push_back(parse_set(R"(/controllers/-={"enable_latency": "2ms"})"));
  two.sets.push_back(parse_set(R"(/controllers/-={"enable_latency": 5})"));
  const std::string e2 = error_of(kMinimal, two);
  CHECK_THAT(e2, Catch::StartsWith("s.json: /controllers/2/enable_latency: must be a duration string"));
  CHECK_THAT(e2, Catch::EndsWith(R"((this value comes from --set /controllers/-={"enable_latency": 5}))"));
  LoadOptions file_error;
  file_error.sets.push_back(parse_set(R"(/controllers/-={"enable_latency": "2ms"})"));
  const std::string e3 = error_of(R"({"schema": "nvmesim.scenario/1", "host": {"kernel": "5.6", "hz": 250},
    "controllers": [{"enable_latency": 3}]})", file_error);
  CHECK_THAT(e3, Catch::StartsWith("s.json"));
  CHECK_THAT(e3, Catch::Contains("/controllers/0/enable_latency: must be a duration string"));
  CHECK_THAT(e3, !Catch::Contains("comes from --set"));
}

TEST_CASE("run refuses --trials with --set /trials, and --seed with --set /seed: one of each pair did nothing",
          "[scenario][cli]") {
  // Stop 30's attack: `-n 2 --set /trials=7` ran 2 trials and listed "--set /trials=7" in the header.
  const std::string path = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/aws-c5.12xlarge.json";
  std::ostringstream out, err;
  const char* trials[] = {"nvmesim", "run", path.c_str(), "-n", "2", "--set", "/trials=7", "-q"};
  CHECK(cli_main(8, trials, out, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("--trials 2 and --set /trials=7 both give the trial count: pass one of them"));
  // The value as written (the attack of stop 31: 1e3 came back as 1000.0).
  std::ostringstream out1, err1;
  const char* written[] = {"nvmesim", "run", path.c_str(), "-n", "2", "--set", "/trials=1e3", "-q"};
  CHECK(cli_main(8, written, out1, err1) == 2);
  CHECK_THAT(err1.str(), Catch::Contains("--trials 2 and --set /trials=1e3 both give"));
  std::ostringstream out2, err2;
  const char* seed[] = {"nvmesim", "run", path.c_str(), "--seed", "3", "--set", "/seed=4", "-q"};
  CHECK(cli_main(8, seed, out2, err2) == 2);
  CHECK_THAT(err2.str(), Catch::Contains("--seed 3 and --set /seed=4 both give the seed: pass one of them"));
  // The other two of them together are taken (this runs AWS's probe twice, in this test's process).
  std::ostringstream out3, err3;
  const char* other_two[] = {"nvmesim", "run", path.c_str(), "--set", "/trials=2", "--seed", "3", "-q"};
  CHECK(cli_main(8, other_two, out3, err3) == 0);
  CHECK(err3.str().empty());
}

TEST_CASE("a key repeated in one object is an error", "[scenario]") {
  // {"min": "100us", "min": "1800us"} would silently keep the second value.
  const std::string e = error_of(with("\"1ms\"", R"({"dist": "uniform", "min": "1ms", "min": "2ms", "max": "3ms"})"));
  // At the second "min": line 4, column 72 (two spaces, then 69 characters before its quote), and
  // at its JSON pointer (issue 16 item 17: the message had neither).
  CHECK_THAT(e, Catch::StartsWith("s.json:4:72: /controllers/0/enable_latency/min: the key \"min\" appears twice in one object"));
}

TEST_CASE("link.width refuses every other value with the one list of widths - pci_id names its form", "[scenario]") {
  // Attack of stop 29: 0 and 33 said "from 1 to 32", which suggested that 3 would do.
  const std::string list = "/link/width: must be 1, 2, 4, 8, 16 or 32 lanes, not ";
  const std::string base = R"({"schema": "nvmesim.scenario/1", "host": {"kernel": "5.6"}, "controllers": [{}], "link": {"width": )";
  for (const char* bad : {"0", "3", "12", "33", "-1", "9999999999999999999", "2.5"}) {
    INFO(bad);
    CHECK_THAT(error_of(base + bad + "}}"), Catch::Contains(list + bad));
  }
  CHECK_THAT(error_of(base + "\"4\"}}"), Catch::Contains(list + "a string"));
  CHECK_THAT(error_of(base + "null}}"), Catch::Contains(list + "null"));
  for (const char* good : {"1", "2", "4", "8", "16", "32"}) {
    INFO(good);
    CHECK(error_of(base + good + "}}") == "(no error)");
  }
  CHECK_THAT(error_of(with(R"({"enable_latency": "1ms"})", R"({"pci_id": "1d0f:806g"})")),
             Catch::Contains("/controllers/0/pci_id: must be \"vendor:device\" in hex, e.g. \"1d0f:8061\""));
}

TEST_CASE("pci_id refuses vendor FFFFh - identify.model takes printable ASCII only", "[scenario]") {
  // Attack of stop 29 (F5): "ffff:ffff" was taken, though a host reads FFFFh for an absent
  // function, and a model ending in NUL still matched the X5 quirk's model text.
  for (const char* id : {"ffff:ffff", "FFFF:8061", "ffff:0000"}) {
    INFO(id);
    CHECK_THAT(error_of(with(R"({"enable_latency": "1ms"})", std::string(R"({"pci_id": ")") + id + "\"}")),
               Catch::Contains("/controllers/0/pci_id: vendor ffff is what a configuration read of an absent function returns"));
  }
  // Linux's empty-slot dwords 0 and ffff0000.
  for (const char* id : {"0000:0000", "0000:FFFF"}) {
    INFO(id);
    CHECK_THAT(error_of(with(R"({"enable_latency": "1ms"})", std::string(R"({"pci_id": ")") + id + "\"}")),
               Catch::Contains("is what Linux takes for an empty slot"));
  }
  CHECK(error_of(with(R"({"enable_latency": "1ms"})", R"({"pci_id": "0000:0001"})")) == "(no error)");
  // Vendor 0001h is the CRS Software Visibility value (stop 30's attack took "0001:ffff"); 0002 is a vendor.
  for (const char* id : {"0001:ffff", "0001:8061"}) {
    INFO(id);
    CHECK_THAT(error_of(with(R"({"enable_latency": "1ms"})", std::string(R"({"pci_id": ")") + id + "\"}")),
               Catch::Contains("/controllers/0/pci_id: vendor 0001 is what a configuration read returns while the "
                               "function asks for a retry"));
  }
  CHECK(error_of(with(R"({"enable_latency": "1ms"})", R"({"pci_id": "0002:ffff"})")) == "(no error)");
  // Device FFFFh is an ordinary device ID; vendor fffe is not the absent-function value.
  CHECK(error_of(with(R"({"enable_latency": "1ms"})", R"({"pci_id": "1d0f:ffff"})")) == "(no error)");
  CHECK(error_of(with(R"({"enable_latency": "1ms"})", R"({"pci_id": "fffe:8061"})")) == "(no error)");
  // A NUL (written \u0000 in JSON) as the 24th character, a tab as the 1st, DEL (7Fh), a UTF-8 byte.
  const std::string where = "/controllers/0/identify/model: Identify MN is printable ASCII (20h to 7Eh); ";
  CHECK_THAT(error_of(with(R"({"enable_latency": "1ms"})", R"({"identify": {"model": "Samsung Portable SSD X5\u0000"}})")),
             Catch::Contains(where + "byte 24 is 00h"));
  CHECK_THAT(error_of(with(R"({"enable_latency": "1ms"})", R"({"identify": {"model": "\tX"}})")),
             Catch::Contains(where + "byte 1 is 09h"));
  CHECK_THAT(error_of(with(R"({"enable_latency": "1ms"})", R"({"identify": {"model": "X\u007f"}})")),
             Catch::Contains(where + "byte 2 is 7Fh"));
  CHECK_THAT(error_of(with(R"({"enable_latency": "1ms"})", R"({"identify": {"model": "\u00e9"}})")),
             Catch::Contains(where + "byte 1 is C3h"));
  // Space (20h) and tilde (7Eh), the ends of the range, are taken.
  CHECK(error_of(with(R"({"enable_latency": "1ms"})", R"({"identify": {"model": " ~"}})")) == "(no error)");
}
