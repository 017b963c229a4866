// The fuzz entry points of the sweep loader and the dmesg reader (see fuzz_hooks.hpp).
#include "fuzz_hooks.hpp"

#include "tools/dmesg_reader.hpp"
#include "sweep/sweep.hpp"

namespace nvmesim::fuzz_hooks {

void load_sweep_text(const std::string& text, const std::string& source) {
  // An inline "scenario" is fuzzed; a "base" path is resolved against a folder with no files.
  (void)nvmesim::load_sweep_text(text, source, "/nonexistent-nvmesim-fuzz-dir", 64);  // keep inputs cheap
}

void read_dmesg_text(const std::string& text, const std::string& source) {
  (void)nvmesim::parse_dmesg_text(text, source);
}

bool hooks_filled() { return true; }

}  // namespace nvmesim::fuzz_hooks
