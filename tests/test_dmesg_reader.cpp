// The kernel-log reader behind `nvmesim dmesg` (pure C++, no SystemC): the published case logs give
// exactly the intervals of shared/cases/README.md, and the line formats and block rules hold.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/signals.hpp"
#include "core/stats.hpp"
#include "scenario/scenario.hpp"
#include "tools/dmesg_report.hpp"
#include "tools/dmesg_reader.hpp"
#include "tools/log_file.hpp"

using namespace nvmesim;

namespace {
// A log given as text, line by line, as DmesgReport::add_lines takes it.
std::function<bool(std::string&)> lines_of(const std::string& text) {
  auto in = std::make_shared<std::istringstream>(text);
  return [in](std::string& l) { return static_cast<bool>(std::getline(*in, l)); };
}
// The report's options for intervals from nvme_init to the queues line.
DmesgReportOptions init_to_queues() {
  DmesgReportOptions o;
  o.from = "nvme_init";
  o.to = "queues";
  return o;
}
std::string cases(const std::string& name) {
  std::ifstream in(std::string(NVMESIM_SHARED_DIR) + "/cases/" + name, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
std::vector<double> durations(const DmesgParse& p) {
  std::vector<double> d;
  for (const auto& i : p.intervals) d.push_back(i.duration_ms());
  return d;
}
void check_ms(const DmesgParse& p, const std::vector<double>& want) {
  const auto got = durations(p);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-9));
}
}  // namespace

TEST_CASE("reload-32q msleep100 log: nvme_init to queues gives the five published intervals", "[dmesg]") {
  // cases/README.md section 2; e.g. 714.532560 - 714.456099 = 0.076461 s.
  const auto p = parse_dmesg_text(cases("reload-32q-msleep100.dmesg"), "r", "nvme_init", "queues");
  check_ms(p, {76.461, 79.041, 71.366, 70.107, 70.793});
  for (const auto& i : p.intervals) CHECK(i.ctrl == "nvme0");
  CHECK(p.intervals[0].from_line == 1);
  CHECK(p.intervals[0].to_line == 3);
  CHECK(p.unclosed == 0);
  CHECK(p.unmatched_to == 0);
}

TEST_CASE("reload-32q usleep_range log: the five published intervals - also with the defaults", "[dmesg]") {
  const std::string text = cases("reload-32q-usleep_range.dmesg");
  REQUIRE(text.size() > 500);  // the 15-line published log was read
  check_ms(parse_dmesg_text(text, "r", "nvme_init", "queues"), {87.732, 75.185, 74.332, 81.819, 81.161});
  // Default --from matches both the nvme_init line and the pci function line: driver init wins.
  check_ms(parse_dmesg_text(text, "r"), {87.732, 75.185, 74.332, 81.819, 81.161});
  // pci function -> queues: 805.549656 - 805.464521 = 85.135 ms, ...
  check_ms(parse_dmesg_text(text, "r", "pci function", "queues"), {85.135, 72.574, 71.530, 79.579, 78.109});
}

TEST_CASE("AWS logs: initcall nvme_init to the queues line and to Run /sbin/init", "[dmesg]") {
  // cases/README.md section 1: 217.242 / 6.369 ms to the queues line, 241.205 / 30.843 ms to init.
  const std::string a = cases("aws-c5.12xlarge-msleep100.dmesg"), b = cases("aws-c5.12xlarge-usleep_range.dmesg");
  check_ms(parse_dmesg_text(a, "a"), {217.242});
  check_ms(parse_dmesg_text(b, "b"), {6.369});
  const auto init_a = parse_dmesg_text(a, "a", "nvme_init", "Run /sbin/init");
  check_ms(init_a, {241.205});
  CHECK(init_a.intervals[0].ctrl.empty());  // both lines are driver-level
  check_ms(parse_dmesg_text(b, "b", "nvme_init", "Run /sbin/init"), {30.843});
}

TEST_CASE("line formats: dmesg -r - kern.log - short-monotonic - ISO - kmsg - CRLF", "[dmesg]") {
  const char* forms[] = {
      "<6>[  714.456099] nvme_init 3133\n<6>[  714.532560] nvme nvme0: 32/0/0 default/read/poll queues\n",
      "Mar  3 10:00:00 host kernel: [  714.456099] nvme_init 3133\r\n"
      "Mar  3 10:00:00 host kernel: [  714.532560] nvme nvme0: 32/0/0 default/read/poll queues\r\n",
      "[  714.456099] host kernel: nvme_init 3133\n[  714.532560] host kernel: nvme nvme0: 32/0/0 default/read/poll queues\n",
      "2020-03-03T10:00:00,456099+00:00 nvme_init 3133\n2020-03-03T10:00:00,532560+00:00 nvme nvme0: 32/0/0 default/read/poll queues\n",
      "2020-03-03T09:59:59.956099-0030 host kernel: nvme_init 3133\n"
      "2020-03-03T10:00:00.032560-0030 host kernel: nvme nvme0: 32/0/0 default/read/poll queues\n",
      "6,100,714456099,-;nvme_init 3133\n6,101,714532560,-;nvme nvme0: 32/0/0 default/read/poll queues\n",
  };
  for (const char* f : forms) {
    INFO(f);
    check_ms(parse_dmesg_text(f, "f"), {76.461});
  }
  // ISO times are seconds since the epoch: 2020-03-03T10:00:00Z = 18324 days * 86400 + 36000 s.
  const auto iso = parse_dmesg_text(forms[3], "f");
  CHECK(iso.intervals[0].start_ns == (18324LL * 86400 + 36000) * 1000000000LL + 456099000LL);
}

TEST_CASE("controllers are told apart by nvmeN - a driver-level start opens an interval for each", "[dmesg]") {
  const std::string log =
      "[    1.000000] initcall nvme_init+0x0/0x5b returned 0 after 37 usecs\n"
      "[    1.001000] nvme nvme0: pci function 0000:01:00.0\n"
      "[    1.002000] nvme nvme1: pci function 0000:02:00.0\n"
      "[    1.030000] nvme nvme1: 8/0/0 default/read/poll queues\n"
      "[    1.050000] nvme nvme0: 4/0/0 default/read/poll queues\n"
      "[    1.051000]  nvme0n1: p1\n";
  auto p = parse_dmesg_text(log, "m");
  REQUIRE(p.intervals.size() == 2);
  CHECK(p.intervals[0].ctrl == "nvme1");
  CHECK(p.intervals[0].duration_ms() == Approx(30.0));  // 1.030 - 1.000
  CHECK(p.intervals[1].ctrl == "nvme0");
  CHECK(p.intervals[1].duration_ms() == Approx(50.0));
  // Per controller from its own pci function line.
  p = parse_dmesg_text(log, "m", "pci function", "queues");
  CHECK(durations(p) == std::vector<double>{28.0, 49.0});
  // nvme0n1 belongs to nvme0: pci function -> partition line.
  p = parse_dmesg_text(log, "m", "pci function", ": p1");
  REQUIRE(p.intervals.size() == 1);
  CHECK(p.intervals[0].ctrl == "nvme0");
  CHECK(p.unclosed == 1);  // nvme1's interval never closes
}

TEST_CASE("a failed probe does not join two reloads - unmatched and untimed lines", "[dmesg]") {
  const std::string log =
      "[   10.000000] nvme_init 1\n"
      "[   10.002000] nvme nvme0: pci function 0000:61:00.0\n"
      "[   10.900000] nvme nvme0: Removing after probe failure status: -19\n"
      "[   20.000000] nvme_init 1\n"
      "[   20.002000] nvme nvme0: pci function 0000:61:00.0\n"
      "[   20.070000] nvme nvme0: 32/0/0 default/read/poll queues\n"
      "[   20.080000] nvme nvme0: 32/0/0 default/read/poll queues\n"
      "no timestamp here: nvme_init\n";
  const auto p = parse_dmesg_text(log, "f");
  check_ms(p, {70.0});  // from the second nvme_init, not the first
  CHECK(p.unmatched_to == 1);
  CHECK(p.lines == 8);
  CHECK(p.timed_lines == 7);
  // Without any time, matching lines are an error that says what to do.
  CHECK_THROWS_WITH(parse_dmesg_text("nvme_init 1\nnvme nvme0: 1/0/0 default/read/poll queues\n", "t.log"),
                    Catch::Contains("t.log: line 1: no timestamp"));
  CHECK_THROWS_AS(parse_dmesg_text(log, "f", "(", "queues"), InputError);
  CHECK(parse_dmesg_text("", "e").intervals.empty());
}

TEST_CASE("time going backwards: the open interval is skipped with a warning - never negative", "[dmesg]") {
  // Issue 16 item 20 (attack 75): 10.000 -> 6.000 s gave an interval of -4000 ms.
  const std::string log =
      "[   10.000000] nvme_init 1\n"
      "[    6.000000] nvme nvme0: 32/0/0 default/read/poll queues\n"
      "[    7.000000] nvme_init 1\n"
      "[    7.070000] nvme nvme0: 32/0/0 default/read/poll queues\n";
  const auto p = parse_dmesg_text(log, "back.log");
  check_ms(p, {70.0});  // only 7.070 - 7.000; the 10 -> 6 pair is dropped
  CHECK(p.backwards == 1);
  CHECK(p.unmatched_to == 1);  // the 6.000 queues line finds nothing open
  REQUIRE(p.warnings.size() == 1);
  CHECK_THAT(p.warnings[0], Catch::Contains("back.log: line 2: the time goes backwards (line 1 is later)"));
  // A backwards step with nothing open (a new boot starting with its init line) warns of nothing.
  const auto q = parse_dmesg_text(
      "[ 9.0] nvme_init\n[ 9.5] nvme nvme0: 1/0/0 default/read/poll queues\n[ 1.0] nvme_init\n"
      "[ 1.25] nvme nvme0: 1/0/0 default/read/poll queues\n", "q");
  check_ms(q, {500.0, 250.0});
  CHECK(q.warnings.empty());
  CHECK(q.backwards == 0);
}

TEST_CASE("boot markers of run --dmesg: each boot its variant and trial - the clock may restart", "[dmesg]") {
  const std::string log =
      "# nvmesim boot {\"variant\":\"5.6\",\"trial\":0}\n"
      "[    1.000000] initcall nvme_init+0x0/0x5b returned 0 after 0 usecs\n"
      "[    1.216000] nvme nvme0: 1/0/0 default/read/poll queues\n"
      "# nvmesim boot {\"variant\":\"5.7\",\"trial\":0}\n"
      "[    1.000000] initcall nvme_init+0x0/0x5b returned 0 after 0 usecs\n"
      "[    1.006000] nvme nvme0: 1/0/0 default/read/poll queues\n"
      "# nvmesim boot {\"variant\":\"5.7\",\"trial\":1}\n"
      "[    1.000000] initcall nvme_init+0x0/0x5b returned 0 after 0 usecs\n";
  const auto p = parse_dmesg_text(log, "sim.dmesg");
  check_ms(p, {216.0, 6.0});
  CHECK(p.intervals[0].variant == "5.6");
  CHECK(p.intervals[1].variant == "5.7");
  CHECK(p.intervals[1].trial == 0);
  CHECK(p.intervals[1].from_line == 5);
  CHECK(p.unclosed == 1);        // trial 1 never printed its queues line
  CHECK(p.warnings.empty());     // markers restart the clock without a warning
  CHECK(p.backwards == 0);
  // A marker that is not ours is an input error naming the line (forged or cut markers).
  CHECK_THROWS_WITH(parse_dmesg_text("# nvmesim boot {\"variant\":5}\n", "m.dmesg"),
                    Catch::Contains("m.dmesg: line 1: a boot marker must be"));
  // Exactly run --dmesg's two keys, each once, and a non-empty variant (attack of stop 25: an
  // extra key, a repeated key (nlohmann kept the last) and "" (read as no marker) were taken).
  for (const char* m : {R"({"variant":"x","trial":0,"extra":1})", R"({"variant":"x","trial":0,"variant":"y"})",
                        R"({"variant":"","trial":0})", R"({"trial":0})"})
    CHECK_THROWS_WITH(parse_dmesg_text("# nvmesim boot " + std::string(m) + "\n", "m.dmesg"),
                      Catch::Contains("m.dmesg: line 1: a boot marker must be"));
  // A trial past 2^63 - 1 wrapped negative and printed as "no trial" (review of stop 25).
  CHECK_THROWS_WITH(parse_dmesg_text("# nvmesim boot {\"variant\":\"a\",\"trial\":9223372036854775808}\n", "m.dmesg"),
                    Catch::Contains("m.dmesg: line 1: a boot marker must be"));
  const auto big = parse_dmesg_text("# nvmesim boot {\"variant\":\"a\",\"trial\":9223372036854775807}\n"
                                    "[    1.000000] nvme_init\n[    1.001000] nvme nvme0: 1/0/0 default/read/poll queues\n", "m.dmesg");
  REQUIRE(big.intervals.size() == 1);
  CHECK(big.intervals[0].trial == 9223372036854775807);
}

TEST_CASE("a printk time of more than 9 digits of seconds is refused at its line - not taken as untimed", "[dmesg]") {
  // "[9999999999.000000]" (10 digits) would pass int64 ns; it was read as a line without a time,
  // and a log whose queues lines had such times reported "0 matching --to" (review of stop 25).
  for (const char* prefix : {"", "Mar  3 10:00:00 host kernel: "})
    CHECK_THROWS_WITH(parse_dmesg_text("[    1.000000] nvme_init\n" + std::string(prefix) +
                                           "[9999999999.000000] nvme nvme0: 1/0/0 default/read/poll queues\n",
                                       "t.dmesg"),
                      Catch::StartsWith("t.dmesg: line 2: \"[9999999999.000000]\" is not a time the reader takes: more "
                                        "than 9 digits of seconds"));
  // Nine digits (31 years of uptime) are a time: 999999999 s to 999999999.5 s.
  const auto p = parse_dmesg_text("[999999999.000000] nvme_init\n[999999999.500000] nvme nvme0: 1/0/0 default/read/poll queues\n", "t");
  REQUIRE(p.intervals.size() == 1);
  CHECK(p.intervals[0].duration_ns() == 500'000'000);
}

TEST_CASE("DmesgReport streamed: head and records reach the sink as the logs are read - same bytes as spooled",
          "[dmesg]") {
  const std::string a = "[    1.000000] nvme_init\n[    1.077000] nvme nvme0: 4/0/0 default/read/poll queues\n";
  const std::string b = "[    2.000000] nvme_init\n[    2.000500] nvme nvme1: 4/0/0 default/read/poll queues\n";
  std::ostringstream warn;
  const DmesgReportOptions o = init_to_queues();
  // Spooled: everything arrives at write().
  std::string spooled;
  {
    DmesgReport r(o);
    r.add_lines("a.dmesg", lines_of(a), warn);
    r.add_lines("b.dmesg", lines_of(b), warn);
    r.write([&](const char* d, size_t n) { spooled.append(d, n); });
  }
  // Streamed: the head at once, each log's records (in blocks of at most 1 MiB) by the end of
  // that log, the rest at finish_stream().
  std::string streamed;
  DmesgReport r(o);
  r.stream_intervals_to([&](const char* d, size_t n) { streamed.append(d, n); });
  CHECK(streamed.size() > 0);
  CHECK(streamed.size() == streamed.rfind("\"intervals\": [\n") + 15);  // the head ends there
  r.add_lines("a.dmesg", lines_of(a), warn);
  CHECK(streamed.find("{\"source\":\"a.dmesg\"") != std::string::npos);
  CHECK(streamed.find("b.dmesg") == std::string::npos);
  r.add_lines("b.dmesg", lines_of(b), warn);
  CHECK(streamed.find(",\n    {\"source\":\"b.dmesg\",\"variant\":null,\"trial\":null,\"ctrl\":\"nvme1\"") != std::string::npos);
  CHECK_THROWS_AS(r.write([](const char*, size_t) {}), std::logic_error);
  r.finish_stream();
  CHECK(streamed == spooled);
  // The contract: before the first log, not with --empirical; finish_stream only when streamed.
  DmesgReport late(o);
  late.add_lines("a.dmesg", lines_of(a), warn);
  CHECK_THROWS_AS(late.stream_intervals_to([](const char*, size_t) {}), std::logic_error);
  CHECK_THROWS_AS(late.finish_stream(), std::logic_error);
  DmesgReportOptions e = o;
  e.empirical = true;
  DmesgReport emp(e);
  CHECK_THROWS_AS(emp.stream_intervals_to([](const char*, size_t) {}), std::logic_error);
}

TEST_CASE("DmesgReport: a line cut at 1024 bytes is warned about - a --to past the cut is not seen", "[dmesg]") {
  // Attack of stop 25: the queues text after 1000 bytes of padding was cut away without a word,
  // and the interval silently ran to the next queues line (109.068 ms instead of 50).
  const std::string log = "[    1.000000] nvme_init\n[    1.050000] " + std::string(1000, 'x') +
                          " nvme nvme0: 1/0/0 default/read/poll queues\n[    1.109068] nvme nvme0: 1/0/0 default/read/poll queues\n";
  const DmesgReportOptions o = init_to_queues();
  DmesgReport r(o);
  std::ostringstream warn;
  r.add_lines("cut.dmesg", lines_of(log), warn);
  CHECK(warn.str() == "nvmesim: warning: cut.dmesg: 1 line(s) longer than 1024 bytes (printk's record limit) were cut "
                      "there before matching: a --from or --to text past the cut is not seen\n");
}

TEST_CASE("DmesgReport: a stop request (SIGINT/SIGTERM) ends the reading with Interrupted", "[dmesg]") {
  // 5000 lines: the flag is looked at every 4096 lines.
  std::string log;
  for (int i = 0; i < 2500; ++i)
    log += "[" + std::to_string(i + 1) + ".000000] nvme_init\n[" + std::to_string(i + 1) + ".001000] nvme nvme0: queues\n";
  const DmesgReportOptions o = init_to_queues();
  DmesgReport r(o);
  std::ostringstream warn;
  request_stop(SIGTERM);
  try {
    r.add_lines("s.dmesg", lines_of(log), warn);
    clear_stop();
    FAIL("the reading did not stop");
  } catch (const Interrupted& i) {
    clear_stop();
    CHECK(i.signal_number() == SIGTERM);
  }
  // A stop during a short log without an interval is a stop (exit 130/143), not "no interval"
  // (attack of stop 25: exit 2 after a SIGINT).
  DmesgReport r2(o);
  request_stop(SIGINT);
  try {
    r2.add_lines("n.dmesg", lines_of("[    1.000000] usb 1-1: new device\n"), warn);
    clear_stop();
    FAIL("no stop");
  } catch (const Interrupted& i) {
    clear_stop();
    CHECK(i.signal_number() == SIGINT);
  } catch (const InputError& e) {
    clear_stop();
    FAIL(std::string("an input error instead of the stop: ") + e.what());
  }
}

TEST_CASE("RE2 patterns: a pathological --from is linear - bad and non-UTF-8 patterns are input errors",
          "[dmesg]") {
  // Issue 16 item 6 (attack 80): '(a*)*b' backtracks exponentially in std::regex (past 30 s on 40
  // characters); RE2 answers in linear time. 1000 characters: any backtracking matcher never ends.
  const std::string line = "[    1.000000] " + std::string(1000, 'a') + "\n";
  const auto p = parse_dmesg_text(line + line, "a.dmesg", "(a*)*b", "queues");
  CHECK(p.intervals.empty());
  CHECK(p.timed_lines == 2);
  CHECK(parse_dmesg_text("[ 1.0] xaaab\n[ 2.0] queues\n", "b", "(a*)*b", "queues").intervals.size() == 1);
  CHECK_THROWS_WITH(parse_dmesg_text("", "e", "(", "queues"), Catch::StartsWith("--from: \"(\" is not a valid"));
  CHECK_THROWS_WITH(parse_dmesg_text("", "e", "x", "\xff"), Catch::StartsWith("--to: the pattern is not valid UTF-8"));
  CHECK(is_valid_utf8("ascii, caf\xc3\xa9, \xe2\x82\xac, \xf0\x9f\x98\x80"));
  for (const char* bad : {"\xff", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\xe2\x82"})
    CHECK_FALSE(is_valid_utf8(bad));
}

TEST_CASE("LogFile::read_line_view gives the lines read_line gives - across 64 KiB blocks, cut and unterminated",
          "[dmesg]") {
  // Lines of 0 to 299 bytes (i * 7919 mod 300), about 1 MB in all: many lines straddle a 64 KiB
  // block of the reader; one line of 70 000 bytes spans a whole block; the last has no newline.
  std::string text;
  std::vector<std::string> want;
  for (int i = 0; i < 7000; ++i) {
    want.push_back(std::string(static_cast<size_t>(i * 7919 % 300), static_cast<char>('a' + i % 26)));
    if (i == 3000) want.back() = std::string(70000, 'L');
  }
  want.push_back("last");
  for (size_t i = 0; i < want.size(); ++i) text += want[i] + (i + 1 < want.size() ? "\n" : "");
  const std::string path = "read_line_view.log";
  {
    std::ofstream(path, std::ios::binary) << text;
  }
  const size_t max = 200;  // cuts lines in the buffer (200-299 bytes) and the long one
  LogFile views(path);
  std::string_view v;
  bool cut = false;
  size_t n = 0;
  while (views.read_line_view(v, max, &cut)) {
    REQUIRE(n < want.size());
    // Each line as written, cut at `max` bytes.
    CHECK(v == std::string_view(want[n]).substr(0, max));
    CHECK(cut == (want[n].size() > max));
    ++n;
  }
  CHECK(n == want.size());
  std::remove(path.c_str());
}

TEST_CASE("append_duration_ms_json writes ns / 10^6 exactly - round6's shortest decimal - never longer than nlohmann's dump()",
          "[dmesg]") {
  // The oracles: the number must parse (strtod) to exactly the double round6 gives, and be no
  // longer than nlohmann's dump() of it (the records' format before; its Grisu2 is sometimes not
  // the shortest: 1 024 617 ns dumps as 1.0246170000000001). Where both have the same length
  // they must be the same text.
  const auto want = [](int64_t ns) { return nlohmann::json(round6(static_cast<double>(ns) / 1e6)).dump(); };
  const auto got = [](int64_t ns) {
    std::string s;
    append_duration_ms_json(s, ns);
    return s;
  };
  // By hand: 76 461 000 ns = 76.461 ms; 1 000 000 ns = "1.0" (nlohmann's whole number); 100 ns =
  // 0.0001 ms (fixed); 99 ns = 9.9e-05 (nlohmann's exponent form, the fallback); 0 = "0.0";
  // 1 024 617 ns = 1.024617 ms (nlohmann: 1.0246170000000001, the same double).
  CHECK(got(76'461'000) == "76.461");
  CHECK(got(1'000'000) == "1.0");
  CHECK(got(100) == "0.0001");
  CHECK(got(99) == "9.9e-05");
  CHECK(got(0) == "0.0");
  CHECK(got(1'024'617) == "1.024617");
  CHECK(want(1'024'617) == "1.0246170000000001");
  // From 10^15 ns the exact decimal (round6's double would move the sixth place: attack of stop 26).
  CHECK(got(4'394'443'630'343'081) == "4394443630.343081");
  CHECK(got(std::numeric_limits<int64_t>::max()) == "9223372036854.775807");
  size_t wrong_value = 0, longer = 0, same_length_other_text = 0, shorter = 0, not_exact = 0;
  const auto check = [&](int64_t ns) {
    const std::string g = got(ns);
    if (ns >= 100) {
      // Exact: the digits with the point removed and the fraction padded to six places are ns.
      const size_t dot = g.find('.');
      std::string digits = g.substr(0, dot) + g.substr(dot + 1);
      digits.append(6 - (g.size() - dot - 1), '0');
      not_exact += dot == std::string::npos || std::stoll(digits) != ns;
    }
    if (ns >= 1'000'000'000'000'000) return;  // the double's own form is not exact there
    const std::string w = want(ns);
    const double value = round6(static_cast<double>(ns) / 1e6);
    wrong_value += std::strtod(g.c_str(), nullptr) != value;
    longer += g.size() > w.size();
    same_length_other_text += g.size() == w.size() && g != w;
    shorter += g.size() < w.size();
  };
  // Every value from 0 to 2 000 000 ns, the edges of the fast path, and 200 000 values spread over
  // 10^6 to 10^18 ns (a multiplicative step).
  for (int64_t ns = 0; ns <= 2'000'000; ++ns) check(ns);
  for (int64_t ns : {int64_t{999'999'999'999'999}, int64_t{1'000'000'000'000'000}, int64_t{123'456'789'012'345},
                     int64_t{4'503'599'627'370'495}, std::numeric_limits<int64_t>::max()})
    check(ns);
  double x = 1e6;
  for (int k = 0; k < 200'000; ++k, x *= 1.000138) {  // 1.000138^200000 = e^27.6 ~ 1e12: up to ~1e18 ns
    const auto ns = static_cast<int64_t>(x) + k % 1000;
    check(ns);
  }
  CHECK(not_exact == 0);
  CHECK(wrong_value == 0);
  CHECK(longer == 0);
  CHECK(same_length_other_text == 0);
  CHECK(shorter > 0);  // the Grisu2 cases above are met
}

TEST_CASE("DmesgReport: past 1024 summaries, the error names the line that ended the interval", "[dmesg]") {
  // Controller k (0-based) opens on line 2k+1 and closes on line 2k+2. Summaries: the log (1), its
  // variant "" (2) at the first interval, then one per controller: controller k makes 3 + k, which
  // passes kDmesgMaxSummaries = 1024 at k = 1022, whose interval ends on line 2 * 1022 + 2 = 2046.
  std::string log;
  for (int k = 0; k < 1100; ++k) {
    log += "[" + std::to_string(k + 1) + ".000000] nvme nvme" + std::to_string(k) + ": pci function 0000:04:00.0\n";
    log += "[" + std::to_string(k + 1) + ".000500] nvme nvme" + std::to_string(k) + ": 1/0/0 default/read/poll queues\n";
  }
  std::ostringstream warn;
  DmesgReport r{DmesgReportOptions{}};
  CHECK_THROWS_WITH(r.add_lines("c.dmesg", lines_of(log), warn),
                    Catch::StartsWith("c.dmesg: line 2046: more than 1024 summaries"));
}

TEST_CASE("attack of stop 26: a /dev/kmsg record whose time does not fit is refused at its line", "[dmesg]") {
  // Line 2's time, 10^15 us (31.7 years), has 16 digits: not read as an untimed line (which let
  // line 3 close the interval, 4000 ms).
  const std::string log = "6,1,1000000,-;nvme nvme0: pci function 0000:04:00.0\n"
                          "6,2,1000000000000000,-;nvme nvme0: 32/0/0 default/read/poll queues\n"
                          "6,3,5000000,-;nvme nvme0: 32/0/0 default/read/poll queues\n";
  CHECK_THROWS_WITH(parse_dmesg_text(log, "k.log"),
                    Catch::StartsWith("k.log: line 2: \"6,2,1000000000000000,-\" is not a /dev/kmsg record"));
  // 15 digits (99 999 999 999 999 us, 3.17 years) is a time: 99 999 999 999 999 000 ns.
  const auto p = parse_dmesg_text("6,1,1000000,-;nvme nvme0: pci function 0000:04:00.0\n"
                                  "6,2,99999999999999,-;nvme nvme0: 32/0/0 default/read/poll queues\n",
                                  "k.log");
  REQUIRE(p.intervals.size() == 1);
  CHECK(p.intervals[0].end_ns == 99'999'999'999'999'000);
}

TEST_CASE("attack of stop 26: --variant skips the lines before the first boot marker", "[dmesg]") {
  // Before the marker: a 900 ms interval of no boot of variant A; in A's boot: 100 ms.
  const std::string log = "[ 5.0] nvme_init\n[ 5.9] nvme nvme0: 1/1/1 default/read/poll queues\n"
                          "# nvmesim boot {\"variant\":\"A\",\"trial\":0}\n"
                          "[ 1.0] nvme_init\n[ 1.1] nvme nvme0: 1/1/1 default/read/poll queues\n";
  DmesgReportOptions o;
  o.variant = "A";
  o.empirical = true;
  std::ostringstream warn;
  DmesgReport r(o);
  r.add_lines("pre.log", lines_of(log), warn);
  std::string out;
  r.write([&](const char* d, size_t n) { out.append(d, n); });
  CHECK(out == "{\"dist\":\"empirical\",\"samples\":[\"100000000ns\"]}\n");
  // A log without markers has no boot of A: no interval.
  DmesgReport none(o);
  CHECK_THROWS_WITH(none.add_lines("real.log", lines_of("[ 5.0] nvme_init\n[ 5.9] nvme nvme0: 1/1/1 default/read/poll queues\n"), warn),
                    Catch::Contains("no interval"));
}

TEST_CASE("attack of stop 26: the no-interval message lists at most 10 variants, each cut at 100 bytes", "[dmesg]") {
  // 12 boots of variants of 300 bytes ("v0xxx...", "v1xxx...", ...) and no interval; --variant nosuch.
  std::string log;
  for (int k = 0; k < 12; ++k)
    log += "# nvmesim boot {\"variant\":\"v" + std::to_string(k) + std::string(298 - (k >= 10), 'x') + "\",\"trial\":0}\n";
  DmesgReportOptions o;
  o.variant = "nosuch";
  std::ostringstream warn;
  DmesgReport r(o);
  try {
    r.add_lines("v.log", lines_of(log), warn);
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK_THAT(m, Catch::Contains("\"v0" + std::string(98, 'x') + "\" (cut), "));
    CHECK_THAT(m, Catch::Contains(" and 2 more"));
    CHECK(m.find("v10") == std::string::npos);
    CHECK(m.size() < 2000);  // 10 names of ~110 bytes and the rest of the message
  }
}
