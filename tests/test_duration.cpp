// The duration parser of DESIGN section 3: integer picoseconds, clear errors.
#include <catch2/catch.hpp>

#include "core/duration.hpp"

using namespace nvmesim;

TEST_CASE("durations parse to exact picoseconds", "[duration]") {
  CHECK(parse_duration_ps("250ns") == 250'000);
  CHECK(parse_duration_ps("1.5us") == 1'500'000);
  CHECK(parse_duration_ps("1.5µs") == 1'500'000);
  CHECK(parse_duration_ps("100ms") == 100'000'000'000);
  CHECK(parse_duration_ps("2s") == 2'000'000'000'000);
  CHECK(parse_duration_ps("0ns") == 0);
  CHECK(parse_duration_ps("7ps") == 7);
  CHECK(parse_duration_ps("0.001ns") == 1);
  CHECK(parse_duration_ps("3 ms") == 3'000'000'000);  // spaces before the unit (documented)
  CHECK(parse_duration_ps("2.402ms") == 2'402'000'000);
  CHECK(parse_duration_ps("1000000s") == kMaxDurationPs);
}

TEST_CASE("bad durations say what is wrong and what is allowed", "[duration]") {
  CHECK_THROWS_WITH(parse_duration_ps("100"), Catch::Contains("has no unit") && Catch::Contains("\"100ms\""));
  CHECK_THROWS_WITH(parse_duration_ps("-1ms"), Catch::Contains("negative"));
  CHECK_THROWS_WITH(parse_duration_ps("5 parsecs"), Catch::Contains("unknown unit \"parsecs\""));
  CHECK_THROWS_WITH(parse_duration_ps("ms"), Catch::Contains("does not start with a number"));
  CHECK_THROWS_WITH(parse_duration_ps(""), Catch::Contains("does not start with a number"));
  CHECK_THROWS_WITH(parse_duration_ps("1e3ms"), Catch::Contains("exponent"));
  CHECK_THROWS_WITH(parse_duration_ps("0.0001ns"), Catch::Contains("finer than the 1 ps"));
  CHECK_THROWS_WITH(parse_duration_ps("1000001s"), Catch::Contains("too long"));
  CHECK_THROWS_WITH(parse_duration_ps("99999999999999999999999999999999999s"), Catch::Contains("too"));
  CHECK_THROWS_AS(parse_duration_ps("inf"), ParseError);
  CHECK_THROWS_AS(parse_duration_ps("nan ms"), ParseError);
  CHECK_THROWS_AS(parse_duration_ps("1.2.3ms"), ParseError);
}

TEST_CASE("durations too large for 128 bits once scaled are refused, not wrapped", "[duration]") {
  // Issue 16 item 12: 340282366920938463463374607432 x 10^9 ps = 3.4e38 passes 2^128 (3.40282e38)
  // and wrapped to 231.79 us; 340282366920938463463374608 x 10^12 likewise to 0.568 s.
  CHECK_THROWS_WITH(parse_duration_ps("340282366920938463463374607432ms"), Catch::Contains("too long"));
  CHECK_THROWS_WITH(parse_duration_ps("340282366920938463463374608s"), Catch::Contains("too long"));
  CHECK_THROWS_WITH(parse_duration_ps("1000000001ms"), Catch::Contains("too long"));
  CHECK(parse_duration_ps("1000000000ms") == kMaxDurationPs);  // 10^9 ms = 10^6 s, the limit
}

TEST_CASE("durations have one form: no white space around, no sign, digits on both sides of '.'", "[duration]") {
  // Issue 16 item 22: these were accepted without a word.
  CHECK_THROWS_WITH(parse_duration_ps(" 1ms"), Catch::Contains("white space around"));
  CHECK_THROWS_WITH(parse_duration_ps("1ms "), Catch::Contains("white space around"));
  CHECK_THROWS_WITH(parse_duration_ps("+1ms"), Catch::Contains("'+' sign"));
  CHECK_THROWS_WITH(parse_duration_ps("1\tms"), Catch::Contains("other than spaces"));
  CHECK_THROWS_WITH(parse_duration_ps(".5ms"), Catch::Contains("a digit on each side"));
  CHECK_THROWS_WITH(parse_duration_ps("1.ms"), Catch::Contains("a digit on each side"));
  CHECK_THROWS_WITH(parse_clock_period_ps(" 500MHz"), Catch::Contains("white space around"));
  CHECK(parse_duration_ps("1 ms") == 1'000'000'000);
  CHECK(parse_duration_ps("0.5ms") == 500'000'000);
  // 30 fraction digits: 0.1 s is 10^11 ps, however many trailing zeros (the fraction times the
  // unit's scale, 10^29 x 10^12, used to overflow 128 bits and give a wrong value).
  CHECK(parse_duration_ps("0.100000000000000000000000000000s") == 100'000'000'000);
  CHECK(parse_duration_ps("0.5000000000000000000000000000000000000000ms") == 500'000'000);
  CHECK_THROWS_WITH(parse_duration_ps("0.999999999999999999999999999999s"), Catch::Contains("finer than the 1 ps"));
  CHECK_THROWS_WITH(parse_duration_ps("0.0000000000001s"), Catch::Contains("finer than the 1 ps"));
}

TEST_CASE("clock frequencies become periods", "[duration]") {
  CHECK(parse_clock_period_ps("500MHz") == 2000);
  CHECK(parse_clock_period_ps("1GHz") == 1000);
  CHECK(parse_clock_period_ps("1.2GHz") == 833);  // 833.33 ps rounded
  CHECK_THROWS_WITH(parse_clock_period_ps("500"), Catch::Contains("no unit"));
  CHECK_THROWS_WITH(parse_clock_period_ps("5THz"), Catch::Contains("unknown unit"));
  CHECK_THROWS_AS(parse_clock_period_ps("0Hz"), ParseError);
}

TEST_CASE("format_duration gives the shortest exact form", "[duration]") {
  CHECK(format_duration(1'500'000) == "1500ns");
  CHECK(format_duration(2'000'000'000'000) == "2s");
  CHECK(format_duration(0) == "0ns");
  CHECK(format_duration(7) == "7ps");
}
