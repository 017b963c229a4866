// docs/scenario.md's key tables against the scenario's key tables (scenario/keys.hpp), and the
// tables against the loader: a key the docs list is accepted, a key they do not list is not, and
// the documented defaults are the values a scenario without the key gets (hand-typed below from
// the old docs/scenario.md and the first-round loader). Pure C++: no SystemC elaboration here.
//
// To regenerate the section after changing a table: NVMESIM_UPDATE_DOCS=1 ctest -R 'scenario.md'
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "scenario/scenario.hpp"
#include "scenario/schema.hpp"
#include "support.hpp"

using namespace nvmesim;

namespace {

const std::string kDoc = std::string(NVMESIM_SOURCE_DIR) + "/docs/scenario.md";

// The text between the BEGIN and END lines (both included), or "" when they are missing.
std::string generated_part(const std::string& doc, size_t& begin, size_t& end) {
  begin = doc.find(kKeysDocBegin);
  if (begin == std::string::npos) return "";
  end = doc.find(kKeysDocEnd, begin);
  if (end == std::string::npos) return "";
  end += std::string(kKeysDocEnd).size() + 1;  // and its newline
  return doc.substr(begin, end - begin);
}

}  // namespace

TEST_CASE("docs/scenario.md's key tables are generated from the loader's tables", "[scenario][docs]") {
  const std::string doc = test::slurp(kDoc);
  REQUIRE(!doc.empty());
  size_t begin = 0, end = 0;
  const std::string have = generated_part(doc, begin, end);
  const std::string want = scenario_keys_markdown();
  if (have != want && std::getenv("NVMESIM_UPDATE_DOCS") && !have.empty()) {
    std::ofstream(kDoc, std::ios::binary) << doc.substr(0, begin) << want << doc.substr(end);
    SUCCEED("docs/scenario.md rewritten");
    return;
  }
  INFO("the section between the BEGIN/END lines of docs/scenario.md differs from the tables; "
       "regenerate it with NVMESIM_UPDATE_DOCS=1 ctest -R 'scenario.md'");
  REQUIRE(!have.empty());
  CHECK(have == want);
}

TEST_CASE("The key tables list every key the loader accepts, and only those", "[scenario][docs]") {
  const std::string md = scenario_keys_markdown();
  // A few rows per section, each a key the loader reads (tests/test_scenario.cpp and
  // test_profiles.cpp exercise them).
  for (const char* row : {"| `kernel` |", "| `hz` |", "| `driver` |", "| `flr_retry` |", "| `skip_admin_queue` |",
                          "| `write_stall` |", "| `pci_id` |", "| `flr` |", "| `css` |", "| `css_from_cap` |", "| `crwms` |", "| `crimt` |", "| `create_queue` |",
                          "| `rtd3e` |", "| `stuck_ready` |", "| `probe_start_s` |", "| `variants` |"})
    CHECK_THAT(md, Catch::Contains(row));
  // Each table is the check: a key it lacks is an error naming the allowed keys.
  const auto err = [](const std::string& host) {
    try {
      load_scenario_text(R"({"schema": "nvmesim.scenario/1", "host": )" + host + R"(, "controllers": [{}]})",
                         "s.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(err(R"({"kernal": "5.7"})"), Catch::Contains("/host/kernal") && Catch::Contains("did you mean \"kernel\""));
  CHECK_THAT(err(R"({"overrides": {"pol": "busy"}})"), Catch::Contains("/host/overrides/pol"));
  CHECK(err(R"({"overrides": {"flr_retry": true}})") == "(no error)");
}

TEST_CASE("The documented defaults are the values a scenario without the keys gets", "[scenario][docs]") {
  const Scenario sc = load_scenario_text(R"({"schema": "nvmesim.scenario/1", "controllers": [{}]})", "s.json");
  REQUIRE(sc.variants.size() == 1);
  const Variant& v = sc.variants[0];
  // host: kernel "5.7", hz 250, highres true, cpus 64, limits 2000000 and 4000000, shutdown 5 s.
  CHECK(v.host.kernel.major == 5);
  CHECK(v.host.kernel.minor == 7);
  CHECK(v.host.timers.hz == 250);
  CHECK(v.host.timers.highres);
  CHECK(v.host.cpus == 64);
  CHECK(v.host.max_polls_per_wait == 2000000);
  CHECK(v.host.max_events_per_trial == 4000000);
  CHECK(v.host.shutdown_timeout_s == 5);
  // link: generation 3, width 4, one_way 450 ns = 450000 ps.
  CHECK(v.link.generation == 3);
  CHECK(v.link.width == 4);
  CHECK(v.link.one_way.min_ps() == 450000);
  CHECK(v.link.one_way.max_ps() == 450000);
  // controller: 500 MHz = 2000 ps, 16 and 4 cycles, CAP.TO 30, CAP.MQES 1023, VS 1.4.0, 2 queues.
  REQUIRE(v.controllers.size() == 1);
  const ControllerParams& c = v.controllers[0];
  CHECK(c.clock_period_ps == 2000);
  CHECK(c.read_cycles == 16);
  CHECK(c.write_cycles == 4);
  CHECK(c.cap.to == 30);
  CHECK(c.cap.mqes == 1023);
  CHECK(c.cap.css == 0x01);
  CHECK(c.vs.mjr == 1);
  CHECK(c.vs.mnr == 4);
  CHECK(c.io_queues == 2);
  CHECK(c.pci_id == "1d0f:8061");
  CHECK(c.flr);  // the function has the FLR capability
  CHECK(sc.seed == 1);
  CHECK(sc.trials == 1);
  CHECK(sc.probe_start_s == 0);
}
