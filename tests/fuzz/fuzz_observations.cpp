// libFuzzer target: an observation file (nvmesim.observations/1, fit/observations.cpp) as `nvmesim
// fit` reads it: the JSON, the hosts, the logs given as text (their dmesg lines read as by
// `nvmesim dmesg`), the runs and intervals found, then the resolved record fit writes. Logs given
// by `path` are looked up in a folder that does not exist (a read error is an IoError, as for a
// missing log). Each input must pass or throw InputError or IoError; anything else is a bug (issue
// 16, "Also"). Links nvmesim_fit only (no SystemC).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.hpp"
#include "fit/observations.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const nvmesim::Observations obs =
        nvmesim::parse_observations(text, "observations.json", "/nonexistent-nvmesim-fuzz-dir");
    (void)nvmesim::observed_interval_count(obs);
    for (size_t h = 0; h < obs.hosts.size(); ++h) (void)obs.io_queues(h);
    (void)obs.resolved().dump();
  } catch (const nvmesim::InputError&) {
  } catch (const nvmesim::IoError&) {
  }
  return 0;
}
