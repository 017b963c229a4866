// libFuzzer target: the sweep loader (sweep/expand.cpp) on arbitrary bytes. Each input must load
// or throw InputError; anything else is a bug. Links nvmesim_sweep only (no SystemC).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.hpp"
#include "sweep/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // An inline "scenario" is fuzzed; a "base" path is resolved against a folder with no files.
    // At most 64 points keep each input cheap.
    (void)nvmesim::load_sweep_text(text, "fuzz.json", "/nonexistent-nvmesim-fuzz-dir", 64);
  } catch (const nvmesim::InputError&) {
  }
  return 0;
}
