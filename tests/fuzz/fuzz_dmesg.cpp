// libFuzzer target: the dmesg reader, through fuzz_hooks.hpp (filled in when its branch is merged).
// Each input must load or throw InputError; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_hooks.hpp"
#include "scenario/scenario.hpp"

// Until fuzz_hooks.cpp calls the real reader there is nothing to fuzz: say so and stop at once.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (!nvmesim::fuzz_hooks::hooks_filled()) {
    std::printf("fuzz_dmesg: placeholder: tests/fuzz/fuzz_hooks.cpp does not call the reader yet; skipped\n");
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    nvmesim::fuzz_hooks::read_dmesg_text(text, "fuzz.log");
  } catch (const nvmesim::InputError&) {
  }
  return 0;
}

extern "C" int sc_main(int, char*[]) { return 4; }
