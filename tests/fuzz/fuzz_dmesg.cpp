// libFuzzer target: the dmesg reader (tools/dmesg_reader.cpp) and its report (tools/dmesg_report.cpp)
// on arbitrary bytes, boot markers included. Each input must load or throw InputError; anything
// else is a bug. Links nvmesim_tools only (no SystemC).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "tools/dmesg_reader.hpp"
#include "tools/dmesg_report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)nvmesim::parse_dmesg_text(text, "fuzz.log");
  } catch (const nvmesim::InputError&) {
  }
  try {
    nvmesim::DmesgReportOptions o;
    o.pool = true;
    nvmesim::DmesgReport report(o);
    std::istringstream in(text);
    std::ostringstream warn;
    report.add_lines("fuzz.log", [&](std::string& l) { return static_cast<bool>(std::getline(in, l)); }, warn);
    std::string out;
    report.write([&](const char* d, size_t n) { out.append(d, n); });
  } catch (const nvmesim::InputError&) {
  }
  return 0;
}
