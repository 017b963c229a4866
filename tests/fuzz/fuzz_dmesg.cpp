// libFuzzer target: the dmesg reader (tools/dmesg_reader.cpp) on arbitrary bytes. Each input must
// load or throw InputError; anything else is a bug. Links nvmesim_tools only (no SystemC).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.hpp"
#include "tools/dmesg_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)nvmesim::parse_dmesg_text(text, "fuzz.log");
  } catch (const nvmesim::InputError&) {
  }
  return 0;
}
