// The kernel-log reader behind `nvmesim dmesg` (pure C++, no SystemC): the published case logs give
// exactly the intervals of shared/cases/README.md, and the line formats and block rules hold.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "scenario/scenario.hpp"
#include "tools/dmesg_reader.hpp"

using namespace nvmesim;

namespace {
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
