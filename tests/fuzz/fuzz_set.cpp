// libFuzzer target: chains of --set options (issue 16 item 3: options that each point inside the
// one before built documents thousands of levels deep). Each line of the input is one PTR=VALUE
// option applied, in order, to a small valid scenario; the load must succeed or throw InputError.
// Links nvmesim_scenario only (no SystemC).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.hpp"
#include "scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* kScenario =
      R"({"schema": "nvmesim.scenario/1", "trials": 2, "description": "d", "controllers": [{}]})";
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    nvmesim::LoadOptions o;
    size_t start = 0;
    while (start < text.size() && o.sets.size() < 256) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      o.sets.push_back(nvmesim::parse_set(text.substr(start, end - start)));
      start = end + 1;
    }
    (void)nvmesim::load_scenario_text(kScenario, "fuzz.json", o);
  } catch (const nvmesim::InputError&) {
  }
  return 0;
}
