// libFuzzer target: the scenario loader (scenario/) on arbitrary bytes. Valid input loads;
// anything else must be an InputError with a message that names the source. Any other exception,
// crash, sanitizer report or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  // An input "PTR=VALUE\0DOCUMENT" also fuzzes --set: the part before the first NUL is one
  // --set argument applied to the document after it.
  nvmesim::LoadOptions options;
  const size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    try {
      options.sets.push_back(nvmesim::parse_set(text.substr(0, nul)));
    } catch (const nvmesim::InputError& e) {
      if (std::string(e.what()).rfind("--set ", 0) != 0) std::abort();
      return 0;
    }
    text.erase(0, nul + 1);
  }
  try {
    const nvmesim::Scenario sc = nvmesim::load_scenario_text(text, "fuzz.json", options);
    // What the runner will do with it: every variant has controllers, the resolved document can
    // be written (valid UTF-8), and the distributions can be sampled at their extremes.
    if (sc.variants.empty()) std::abort();
    (void)sc.resolved.dump();
    for (const auto& v : sc.variants) {
      if (v.controllers.empty()) std::abort();
      for (const auto& c : v.controllers)
        for (double u : {1e-300, 0.5, 1.0 - 1e-16})
          if (c.enable_latency.quantile_ps(u) < 0) std::abort();
    }
  } catch (const nvmesim::InputError& e) {
    // The message names the source, or the --set argument that is wrong.
    const std::string what = e.what();
    if (what.rfind("fuzz.json", 0) != 0 && what.rfind("--set ", 0) != 0) std::abort();
  }
  return 0;
}
