// libFuzzer target: the duration and frequency parsers (core/duration.cpp). Each input either parses
// into a value in range or throws ParseError; a parsed duration survives format_duration and
// parsing again unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/duration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const int64_t ps = nvmesim::parse_duration_ps(text);
    if (ps < 0 || ps > nvmesim::kMaxDurationPs) std::abort();
    if (nvmesim::parse_duration_ps(nvmesim::format_duration(ps)) != ps) std::abort();
  } catch (const nvmesim::ParseError&) {
  }
  try {
    const int64_t period_ps = nvmesim::parse_clock_period_ps(text);
    if (period_ps < 1 || period_ps > 1'000'000'000'000) std::abort();
  } catch (const nvmesim::ParseError&) {
  }
  return 0;
}
