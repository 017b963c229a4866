#pragma once
// Durations and frequencies as they are written in scenario files (DESIGN section 3).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nvmesim {

/// Thrown by the parsers below; the message says what is wrong and what is allowed, without the
/// file or JSON pointer (the scenario loader adds those).
class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Largest duration a file may hold: 10^6 s (about 11.6 days) in picoseconds. Longer times do not
/// occur in a probe and would bring simulated time (a 64-bit picosecond count) near overflow.
inline constexpr int64_t kMaxDurationPs = 1'000'000'000'000'000'000;

/// Parses "<decimal><unit>" with unit ps, ns, us, µs, ms or s (for example "250ns", "1.5us",
/// "100ms", "2s") into integer picoseconds. The one form is DIGITS[.DIGITS], optional spaces, UNIT:
/// spaces between number and unit are allowed ("3 ms"); white space around the text, tabs, a '+'
/// and a '.' without a digit on each side (".5ms", "1.ms") are errors. Throws ParseError for
/// those, a missing or unknown unit, a negative or non-numeric value, an exponent, a value finer
/// than 1 ps, or one above kMaxDurationPs (checked before scaling: no wrap, issue 16 item 12).
int64_t parse_duration_ps(std::string_view text);

/// Parses a frequency "<decimal><unit>" with unit Hz, kHz, MHz or GHz into a clock period in
/// picoseconds (rounded to the nearest ps; 1 ps to 1 s). Throws ParseError as above.
int64_t parse_clock_period_ps(std::string_view text);

/// Formats picoseconds as the shortest exact duration string ("1500us", "2s", "0ns").
std::string format_duration(int64_t ps);

}  // namespace nvmesim
