// host.kernel as a distribution's `uname -r` (issue 10 item 6): the mainline part selects the row
// of docs/linux-readiness.md section 2, the run says that the distribution's backports are not
// known, and strings that are neither a mainline version nor a `uname -r` stay errors.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "host/linux/kernel_profile.hpp"
#include "scenario/scenario.hpp"
#include "support.hpp"

using namespace nvmesim;

TEST_CASE("uname -r strings select the row of their mainline release", "[profiles][kernel]") {
  const KernelVersion ubuntu = KernelVersion::parse("5.4.0-150-generic");
  CHECK(ubuntu.major == 5);
  CHECK(ubuntu.minor == 4);
  CHECK(ubuntu.patch == 0);
  CHECK(ubuntu.mainline() == "5.4");
  CHECK(ubuntu.to_string() == "5.4.0-150-generic");
  // Section 2: 5.4 still sleeps msleep(100) (the 2020 change first shipped in 5.7, not in 5.4.y).
  CHECK(profile_for(ubuntu).poll == SleepPolicy::msleep(100));
  const KernelVersion debian = KernelVersion::parse("6.6.13+deb12-amd64");
  CHECK(debian.mainline() == "6.6.13");
  CHECK(debian.release_key() == 6006);
  // Section 2: 6.6-6.11 take max(CAP.TO, CRTO).
  CHECK(profile_for(debian).enable_timeout == EnableTimeout::crto_max);
  const KernelVersion aws = KernelVersion::parse("5.15.0-1051-aws");
  CHECK(profile_for(aws).poll == SleepPolicy::usleep_range(1000, 2000));  // 5.7 - 5.18
  CHECK(KernelVersion::parse("6.1-rc7").mainline() == "6.1");             // a mainline release candidate
  CHECK(KernelVersion::parse("6.1-rc7").release_candidate());
  CHECK_FALSE(KernelVersion::parse("6.1-rc7").distribution());
  CHECK(KernelVersion::parse("6.1.0-rc7").release_candidate());           // as `uname -r` prints an rc
  CHECK_FALSE(KernelVersion::parse("6.1.0-rc7-generic").release_candidate());
  CHECK(KernelVersion::parse("6.1.0-rc7-generic").distribution());
  CHECK(ubuntu.distribution());
  CHECK(KernelVersion::parse("4.18.0-513.5.1.el8_9.x86_64").release_key() == 4018);
  CHECK(KernelVersion::parse("6.5.6-300.fc39.x86_64").mainline() == "6.5.6");
  CHECK(KernelVersion::parse("5.10~bpo11").uname_r == "5.10~bpo11");
  // Mainline strings carry no uname_r and print as before.
  CHECK(KernelVersion::parse("5.7").uname_r.empty());
  CHECK(KernelVersion::parse("5.7.0").to_string() == "5.7");
}

TEST_CASE("strings that are neither a release nor a uname -r stay errors", "[profiles][kernel]") {
  const std::vector<std::string> bad_strings = {"5", "linux-5.4", "5.4 generic", "5.4.0-", "5.4.0.", "5.4.", "5.4.0.1-x", "5.4.0.1", "v5.4",
                                "5.4.0-a b", "05.4", "5.04", "5.4.00", "4.08", "6.01", "5.4.0--", "5.4.0-.", "5.4.0-~", "5.4.0-\xc3\xa9", "5.4.0_generic", "5.4.0-" + std::string(65, 'x'), ""};
  for (const std::string& bad : bad_strings) {
    INFO(bad);
    try {
      KernelVersion::parse(bad);
      FAIL("no error for \"" << bad << "\"");
    } catch (const std::invalid_argument& e) {
      CHECK_THAT(e.what(), Catch::Contains("optionally followed by a distribution's suffix as `uname -r` prints it"));
    }
  }
  CHECK(KernelVersion::parse("5.4.0-" + std::string(64, 'x')).major == 5);  // 64 characters: the limit
}

TEST_CASE("a stable patch level warns that its backports are modelled only through host.overrides", "[profiles][kernel]") {
  // docs/linux-readiness.md: the FLR retry of 6.17 was backported to 6.12.y; "6.12.45" runs the
  // 6.12 row, which has none, so the run says so instead of passing the patch level over in silence.
  const Scenario sc = load_scenario_text(R"({"schema":"nvmesim.scenario/1","host":{"kernel":"6.12.45"},"controllers":[{}]})",
                                         "stable.json");
  REQUIRE(sc.warnings.size() == 1);
  CHECK_THAT(sc.warnings[0], Catch::Contains("stable.json: host.kernel \"6.12.45\": the patch level does not select a row, "
                                             "it runs as 6.12 (profile 6.12"));
  CHECK_THAT(sc.warnings[0], Catch::Contains("what the 6.12.y stable branch backported"));
  // A release candidate and a plain release: no warning.
  CHECK(load_scenario_text(R"({"schema":"nvmesim.scenario/1","host":{"kernel":"6.1-rc7"},"controllers":[{}]})", "rc.json")
            .warnings.empty());
  CHECK(load_scenario_text(R"({"schema":"nvmesim.scenario/1","host":{"kernel":"6.12"},"controllers":[{}]})", "p.json")
            .warnings.empty());
}

TEST_CASE("a run on a distribution kernel warns and the table stars its mainline part", "[profiles][kernel][cli]") {
  std::ostringstream out, err;
  // The default scenario's variants set host.kernel, so they are dropped (--set /variants=[]).
  const char* argv[] = {"nvmesim", "run", "--trials", "2", "--set", "/variants=[]", "--set",
                        "/host/kernel=\"5.4.0-150-generic\""};
  REQUIRE(cli_main(8, argv, out, err) == 0);
  CHECK_THAT(err.str(), Catch::Contains("host.kernel \"5.4.0-150-generic\" is a distribution kernel: it runs as "
                                        "mainline 5.4 (profile "));
  CHECK_THAT(err.str(), Catch::Contains("the distribution's backports are not known, describe them with host.overrides"));
  CHECK_THAT(out.str(), Catch::Contains(" 5.4*     "));
  CHECK_THAT(out.str(), Catch::Contains("(5.4*: host.kernel \"5.4.0-150-generic\", a distribution kernel run as mainline "
                                        "5.4; its backports are not known, host.overrides describes them)"));
}

TEST_CASE("a distribution kernel runs as its mainline release - the report names what was given", "[profiles][kernel]") {
  // Two variants that differ only in how host.kernel is spelled: every trial the same (paired
  // streams), only the reported kernel differs.
  const nlohmann::json j = test::run_to_json(
      R"({"schema":"nvmesim.scenario/1","trials":8,"host":{"kernel":"5.4"},"controllers":[{}],)"
      R"("variants":[{"name":"uname","patch":{"host":{"kernel":"5.4.0-150-generic"}}},)"
      R"({"name":"mainline","patch":{"host":{"kernel":"5.4"}}}]})",
      "kernel_versions.json");
  REQUIRE(j["variants"].size() == 2);
  CHECK(j["variants"][0]["summary"]["ran"]["kernel"] == "5.4.0-150-generic");
  CHECK(j["variants"][0]["summary"]["ran"]["mainline"] == "5.4");
  CHECK_FALSE(j["variants"][1]["summary"]["ran"].contains("mainline"));
  CHECK(j["variants"][1]["summary"]["ran"]["kernel"] == "5.4");
  CHECK(j["variants"][0]["summary"]["ran"]["profile"] == j["variants"][1]["summary"]["ran"]["profile"]);
  REQUIRE(j["variants"][0]["trials"].size() == 8);
  CHECK(j["variants"][0]["trials"] == j["variants"][1]["trials"]);
}
