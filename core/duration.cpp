#include "core/duration.hpp"

#include <cctype>
#include <cmath>
#include <string>

#include "core/terminal_text.hpp"

namespace nvmesim {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

namespace {

struct Decimal {
  // value = int_part + frac / 10^frac_digits
  u128 int_part = 0;
  u128 frac = 0;
  int frac_digits = 0;
};


// Splits "<number><unit>" and parses the number as an exact decimal. `what` names the kind of
// quantity for messages ("duration", "frequency").
Decimal split_number(std::string_view text, std::string_view& unit, const char* what,
                     const char* units_allowed) {
  // One form only: digits, optionally '.' and digits, optionally spaces, then the unit, nothing
  // around them (issue 16 item 22: " 1ms ", "+1ms", "1\tms", ".5ms" and "1.ms" were accepted
  // without a word).
  const std::string form = std::string(" (the form is DIGITS[.DIGITS]UNIT, e.g. ") + units_allowed + ")";
  if (!text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) ||
                        std::isspace(static_cast<unsigned char>(text.back()))))
    throw ParseError(std::string(what) + " " + quoted_text(text) + " has white space around it; write it without" + form);
  size_t i = 0;
  if (i < text.size() && (text[i] == '-'))
    throw ParseError(std::string(what) + " " + quoted_text(text) + " is negative; " + what +
                     "s must be >= 0");
  if (i < text.size() && text[i] == '+')
    throw ParseError(std::string(what) + " " + quoted_text(text) + " has a '+' sign; write the number without it" + form);
  Decimal d;
  size_t digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (d.int_part > static_cast<u128>(1e30))
      throw ParseError(std::string(what) + " " + quoted_text(text) + " is too large");
    d.int_part = d.int_part * 10 + static_cast<unsigned>(text[i] - '0');
    ++i;
    ++digits;
  }
  if (i < text.size() && text[i] == '.') {
    if (digits == 0 || i + 1 >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i + 1])))
      throw ParseError(std::string(what) + " " + quoted_text(text) + " needs a digit on each side of its '.'" + form);
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (d.frac_digits < 30) {
        d.frac = d.frac * 10 + static_cast<unsigned>(text[i] - '0');
        ++d.frac_digits;
      } else if (text[i] != '0') {
        throw ParseError(std::string(what) + " " + quoted_text(text) + " has too many digits");
      }
      ++i;
      ++digits;
    }
  }
  if (digits == 0)
    throw ParseError(std::string(what) + " " + quoted_text(text) + " does not start with a number; write e.g. " +
                     units_allowed);
  // Trailing zeros of the fraction carry nothing; dropping them keeps frac * scale (below) from
  // overflowing 128 bits for "0.100000000000000000000000000000s" (30 digits).
  while (d.frac_digits > 0 && d.frac % 10 == 0) {
    d.frac /= 10;
    --d.frac_digits;
  }
  // Spaces between the number and the unit are allowed ("3 ms"); tabs and other white space not.
  while (i < text.size() && text[i] == ' ') ++i;
  if (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
    throw ParseError(std::string(what) + " " + quoted_text(text) + " has white space other than spaces before its unit" +
                     form);
  unit = text.substr(i);
  if (unit.empty())
    throw ParseError(std::string(what) + " " + quoted_text(text) + " has no unit; write e.g. " + units_allowed);
  if (unit[0] == 'e' || unit[0] == 'E')
    throw ParseError(std::string(what) + " " + quoted_text(text) +
                     " uses an exponent; write a plain decimal with a unit, e.g. " + units_allowed);
  return d;
}

u128 pow10(int n) {
  u128 r = 1;
  while (n-- > 0) r *= 10;
  return r;
}

}  // namespace

int64_t parse_duration_ps(std::string_view text) {
  static const char* kAllowed = "\"250ns\", \"1.5us\", \"100ms\", \"2s\" (units: ps, ns, us, µs, ms, s)";
  std::string_view unit;
  Decimal d = split_number(text, unit, "duration", kAllowed);
  u128 scale;
  if (unit == "ps") scale = 1;
  else if (unit == "ns") scale = 1000;
  else if (unit == "us" || unit == "µs" || unit == "\xCE\xBCs") scale = 1000000;
  else if (unit == "ms") scale = 1000000000;
  else if (unit == "s") scale = 1000000000000;
  else
    throw ParseError("duration " + quoted_text(text) + " has an unknown unit " + quoted_text(unit) +
                     "; allowed units: ps, ns, us, µs, ms, s");
  // 1 s is 10^12 ps: a fraction with more than 12 significant digits is finer than 1 ps in any
  // unit, and beyond that frac * scale could overflow.
  if (d.frac_digits > 12)
    throw ParseError("duration " + quoted_text(text) + " is finer than the 1 ps resolution");
  const u128 den = pow10(d.frac_digits);
  const u128 frac_ps_num = d.frac * scale;
  if (frac_ps_num % den != 0)
    throw ParseError("duration " + quoted_text(text) + " is finer than the 1 ps resolution");
  // The integer part is checked before it is scaled: int_part * scale could pass 2^128 and wrap
  // ("340282366920938463463374607432ms" ran as 231.79 us; issue 16 item 12).
  if (d.int_part > static_cast<u128>(kMaxDurationPs) / scale)
    throw ParseError("duration " + quoted_text(text) + " is too long; the largest allowed is 1000000s");
  const u128 total = d.int_part * scale + frac_ps_num / den;
  if (total > static_cast<u128>(kMaxDurationPs))
    throw ParseError("duration " + quoted_text(text) + " is too long; the largest allowed is 1000000s");
  return static_cast<int64_t>(total);
}

int64_t parse_clock_period_ps(std::string_view text) {
  static const char* kAllowed = "\"500MHz\", \"1.2GHz\" (units: Hz, kHz, MHz, GHz)";
  std::string_view unit;
  Decimal d = split_number(text, unit, "frequency", kAllowed);
  double mult;
  if (unit == "Hz") mult = 1;
  else if (unit == "kHz") mult = 1e3;
  else if (unit == "MHz") mult = 1e6;
  else if (unit == "GHz") mult = 1e9;
  else
    throw ParseError("frequency " + quoted_text(text) + " has an unknown unit " + quoted_text(unit) +
                     "; allowed units: Hz, kHz, MHz, GHz");
  const double hz = (static_cast<double>(d.int_part) +
                     static_cast<double>(d.frac) / static_cast<double>(pow10(d.frac_digits))) * mult;
  if (!(hz >= 1.0) || hz > 1e12)
    throw ParseError("frequency " + quoted_text(text) + " is out of range; allowed: 1Hz to 1000GHz");
  return static_cast<int64_t>(std::llround(1e12 / hz));
}

std::string format_duration(int64_t ps) {
  if (ps == 0) return "0ns";
  static const struct { int64_t scale; const char* unit; } units[] = {
      {1000000000000, "s"}, {1000000000, "ms"}, {1000000, "us"}, {1000, "ns"}, {1, "ps"}};
  for (const auto& u : units)
    if (ps % u.scale == 0) return std::to_string(ps / u.scale) + u.unit;
  return std::to_string(ps) + "ps";
}

}  // namespace nvmesim
