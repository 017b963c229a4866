// Every row of the kernel profile table against shared/reference/linux-readiness.md section 2,
// the `nvmesim profiles` command, host.overrides, and CAP/CRTO given as raw hex registers.
// Pure C++: no SystemC elaboration here.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "host/linux/kernel_profile.hpp"
#include "models/nvme_regs.hpp"
#include "scenario/scenario.hpp"
#include "tools/profiles.hpp"

using namespace nvmesim;

namespace {
const KernelProfile& prof(const char* v) { return profile_for(KernelVersion::parse(v)); }

// The reference's table, typed in by hand: one line per row of linux-readiness.md section 2
// (with the 4.19 queues-line note of section 3, the 5.18 quirk note, and the msleep/fsleep notes
// of section 4 splitting rows).
struct Expect {
  const char* first;
  const char* last;
  SleepPolicy poll;
  DeadlineForm deadline;
  EnableTimeout timeout;
  CrimeRule crime;
  CcSequence seq;
  bool warn, extra_jiffy, fsleep613, csts_msg, queues_line;
  ShutdownWait shutdown;
  size_t quirk_ids;  // 6 base ids; 7 in 5.18 (+144d:a808); fewer before 4.19 (section 6)
  bool model_rule, flr;
  unsigned quirk_ms = 2300;    // NVME_QUIRK_DELAY_AMOUNT: 2000 up to 4.13 (section 6)
  bool quirk_first_probe = true;  // false in 4.8-4.9 (section 6)
};
const SleepPolicy kMs100 = SleepPolicy::msleep(100);
const SleepPolicy kUr = SleepPolicy::usleep_range(1000, 2000);
using D = DeadlineForm;
using T = EnableTimeout;
using C = CrimeRule;
using S = CcSequence;
using W = ShutdownWait;
const Expect kRows[] = {
    // release    poll    deadline        timeout          CRIME                  CC sequence          warn  jiffy  fs613  csts   queues shutdown         ids model  flr
    // Section 6 splits 4.8-5.3 by the delay quirk's history: 4.8-4.9 2 ids, 2000 ms, not at the
    // first probe; 4.10 every disable; 4.13 4 ids; 4.14 5 ids and 2300 ms; 4.19 section 2's six.
    // Section 6: 4.8 has no all-ones test in its wait loop (4.9 has): 4.8 is a row of its own.
    {"4.8", "4.8", kMs100, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, false, false, W::msleep_loop, 2, false, false, 2000, false},
    {"4.9", "4.9", kMs100, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, false, false, W::msleep_loop, 2, false, false, 2000, false},
    {"4.10", "4.12", kMs100, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, false, false, W::msleep_loop, 2, false, false, 2000, true},
    {"4.13", "4.13", kMs100, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, false, false, W::msleep_loop, 4, false, false, 2000, true},
    {"4.14", "4.18", kMs100, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, false, false, W::msleep_loop, 5, false, false, 2300, true},
    {"4.19", "4.20", kMs100, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, false, false, W::msleep_loop, 6, false, false},
    // Section 6: the queues line from 5.0 (not 5.4).
    {"5.0", "5.3", kMs100, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, false, true, W::msleep_loop, 6, false, false},
    // Section 6: the enable re-reads CAP from 5.4; CC.CSS from CAP.CSS from 5.10.
    {"5.4", "5.6", kMs100, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, false, true, W::msleep_loop, 6, false, false},
    {"5.7", "5.9", kUr, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, true, true, W::msleep_loop, 6, false, false},
    {"5.10", "5.17", kUr, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, true, true, W::msleep_loop, 6, false, false},
    {"5.18", "5.18", kUr, D::half_jiffies, T::cap_to, C::never, S::single_write, false, true, false, true, true, W::msleep_loop, 7, false, false},
    // Section 6: CRIME only with CRWMS and CRIMS from 5.19 (not CRIMS alone).
    {"5.19", "6.1", kUr, D::half_jiffies, T::crto_instead, C::if_crwms_and_crims, S::en0_readback, false, true, false, true, true, W::msleep_loop, 6, true, false},
    {"6.2", "6.5", kUr, D::whole_seconds, T::crto_instead, C::if_crwms_and_crims, S::en0_readback, false, true, false, true, true, W::wait_ready, 6, true, false},
    // 6.9: "D3 entry latency set to" (section 6: by 6.12, likely 6.9) splits 6.6-6.11.
    {"6.6", "6.8", kUr, D::whole_seconds, T::crto_max, C::if_crwms_and_crims, S::en0_readback_cap, true, true, false, true, true, W::wait_ready, 6, true, false},
    {"6.9", "6.11", kUr, D::whole_seconds, T::crto_max, C::if_crwms_and_crims, S::en0_readback_cap, true, true, false, true, true, W::wait_ready, 6, true, false},
    // Section 6: the CC read-back goes in 6.12 (not 6.19); FLR and one retry from 6.17 (not 6.19).
    {"6.12", "6.12", kUr, D::whole_seconds, T::crto_max, C::never, S::en0_cap, true, false, false, true, true, W::wait_ready, 6, true, false},
    {"6.13", "6.16", kUr, D::whole_seconds, T::crto_max, C::never, S::en0_cap, true, false, true, true, true, W::wait_ready, 6, true, false},
    {"6.17", "6.19", kUr, D::whole_seconds, T::crto_max, C::never, S::en0_cap, true, false, true, true, true, W::wait_ready, 6, true, true},
};

void check_row(const KernelProfile& p, const Expect& e) {
  INFO("row " << e.first << "-" << e.last);
  CHECK(p.first == e.first);
  CHECK(p.last == e.last);
  CHECK(p.poll == e.poll);
  // Shutdown: msleep(100) in the pre-6.2 loop, the wait loop's usleep_range from 6.2.
  CHECK(p.shutdown_poll == (e.shutdown == W::msleep_loop ? kMs100 : kUr));
  CHECK(p.deadline == e.deadline);
  CHECK(p.enable_timeout == e.timeout);
  CHECK(p.crime == e.crime);
  CHECK(p.cc_sequence == e.seq);
  CHECK(p.crto_warning == e.warn);
  CHECK(p.timer.msleep_extra_jiffy == e.extra_jiffy);
  CHECK(p.timer.fsleep_613 == e.fsleep613);
  CHECK(p.csts_in_message == e.csts_msg);
  CHECK(p.queues_line == e.queues_line);
  CHECK(p.shutdown_wait == e.shutdown);
  CHECK(p.delay_quirk_ids.size() == e.quirk_ids);
  CHECK(p.delay_quirk_model_rule == e.model_rule);
  CHECK(p.flr_retry == e.flr);
  CHECK(p.delay_quirk_ms == e.quirk_ms);
  CHECK(p.delay_quirk_first_probe == e.quirk_first_probe);
  // The quirk ids by release (section 6): each id from the release that added it on; 144d:a808
  // only in 5.18.
  const int key = KernelVersion::parse(e.first).release_key();
  const std::pair<const char*, int> since[] = {{"1c58:0003", 4008}, {"1c5f:0540", 4008}, {"144d:a821", 4013},
                                               {"144d:a822", 4013}, {"1c58:0023", 4014}, {"1bb1:0100", 4019}};
  for (const auto& [id, from] : since) {
    INFO(id);
    CHECK((std::find(p.delay_quirk_ids.begin(), p.delay_quirk_ids.end(), id) != p.delay_quirk_ids.end()) ==
          (key >= from));
  }
  CHECK((std::find(p.delay_quirk_ids.begin(), p.delay_quirk_ids.end(), "144d:a808") != p.delay_quirk_ids.end()) ==
        (std::string(e.first) == "5.18"));
}
}  // namespace

TEST_CASE("the profile table has the reference's rows - 4.8 through 6.19", "[profiles]") {
  const auto& t = kernel_profiles();
  REQUIRE(t.size() == std::size(kRows));
  for (size_t i = 0; i < t.size(); ++i) check_row(t[i], kRows[i]);
}

namespace {
// Section 6's facts that hold over a span of releases: the field is true from `from` to `to`
// (inclusive) and false in every other release of the table.
struct Span {
  const char* field;
  bool KernelProfile::*member;
  const char* from;
  const char* to;
};
const Span kSpans[] = {
    {"queues_line", &KernelProfile::queues_line, "5.0", "6.19"},            // "exists from 5.0 (not 5.4)"
    {"all_ones_in_loop", &KernelProfile::all_ones_in_loop, "4.9", "6.19"},  // "4.8 has no all-ones test"
    {"flr_retry", &KernelProfile::flr_retry, "6.17", "6.19"},               // "mainline from 6.17"
    {"enable_reads_cap", &KernelProfile::enable_reads_cap, "5.4", "6.19"},            // "from 5.4 ... re-reading CAP"
    {"admin_queue_reads_cap", &KernelProfile::admin_queue_reads_cap, "4.8", "4.8"},   // "4.8 re-reads CAP"
    {"css_from_cap", &KernelProfile::css_from_cap, "5.10", "6.19"},                   // "from 5.10 CC.CSS is written as 6"
    {"rtd3e_shutdown_timeout", &KernelProfile::rtd3e_shutdown_timeout, "4.14", "6.19"},  // "from 4.14/4.15"
    {"probe_failure_message", &KernelProfile::probe_failure_message, "4.8", "6.1"},   // "exists up to 6.1"
    {"d3_latency_message", &KernelProfile::d3_latency_message, "6.9", "6.19"},        // "by 6.12 (likely 6.9)"
};
}  // namespace

TEST_CASE("section 6's spans of releases - every release from 4.8 to 6.19", "[profiles]") {
  for (const auto& span : kSpans) {
    INFO(span.field);
    const int from = KernelVersion::parse(span.from).release_key(), to = KernelVersion::parse(span.to).release_key();
    for (const auto& r : supported_releases()) {
      INFO(r);
      const int k = KernelVersion::parse(r).release_key();
      CHECK(prof(r.c_str()).*span.member == (k >= from && k <= to));
    }
  }
}

TEST_CASE("every release selects its row - first - last and patch levels", "[profiles]") {
  for (const auto& e : kRows) {
    check_row(prof(e.first), e);
    check_row(prof(e.last), e);
    check_row(profile_for(KernelVersion::parse(std::string(e.last) + ".99")), e);  // a stable patch level
  }
  // Spot checks named in the reference: the 2020 change first shipped in 5.7, not in 5.4.y.
  CHECK(prof("5.6").poll == kMs100);
  CHECK(prof("5.7").poll == kUr);
  CHECK(prof("5.4.280").poll == kMs100);
  CHECK(prof("6.1").deadline == DeadlineForm::half_jiffies);   // "up to 6.1"
  CHECK(prof("6.2").deadline == DeadlineForm::whole_seconds);  // "from 6.2"
  CHECK(prof("4.20").queues_line == false);                    // section 6: the queues line from 5.0
  CHECK(prof("5.0").queues_line == true);
  CHECK(prof("6.16").flr_retry == false);                       // section 6: FLR from 6.17
  CHECK(prof("6.17").flr_retry == true);
  CHECK(prof("6.11").cc_sequence == CcSequence::en0_readback_cap);  // section 6: no CC read-back from 6.12
  CHECK(prof("6.12").cc_sequence == CcSequence::en0_cap);
}

TEST_CASE("unsupported releases are errors that name the supported range", "[profiles]") {
  for (const char* v : {"4.7", "3.10", "4.21", "5.20", "7.0", "2.6"}) {
    INFO(v);
    try {
      profile_for(KernelVersion::parse(v));
      FAIL("no error for " << v);
    } catch (const std::invalid_argument& e) {
      CHECK_THAT(e.what(), Catch::Contains("supported releases: 4.8 to 6.19"));
    }
  }
  CHECK(supported_releases().size() == 13 + 20 + 20);  // 4.8..4.20, 5.0..5.19, 6.0..6.19
  CHECK(supported_releases().front() == "4.8");
  CHECK(supported_releases().back() == "6.19");
}

TEST_CASE("deadline forms by release - the reference's arithmetic", "[profiles]") {
  // Old form (TO+1)*HZ/2 at HZ=250: TO=0 125 jiffies (0.5 s), TO=1 250 (1 s), TO=2 375 (1.5 s),
  // TO=0xFF 256*125 = 32000 (128 s).
  CHECK(deadline_half_jiffies(1000, 0, 250) == 1000 + 125);
  CHECK(deadline_half_jiffies(1000, 1, 250) == 1000 + 250);
  CHECK(deadline_half_jiffies(1000, 2, 250) == 1000 + 375);
  CHECK(deadline_half_jiffies(1000, 0xFF, 250) == 1000 + 32000);
  // New form ((TO+1)/2)*HZ: TO=0 0 s, TO=1 1 s, TO=2 1 s, TO=4 2 s, TO=0xFF 128 s.
  CHECK(deadline_whole_seconds_jiffies(1000, 0, 250) == 1000);
  CHECK(deadline_whole_seconds_jiffies(1000, 1, 250) == 1000 + 250);
  CHECK(deadline_whole_seconds_jiffies(1000, 2, 250) == 1000 + 250);
  CHECK(deadline_whole_seconds_jiffies(1000, 4, 250) == 1000 + 500);
  CHECK(deadline_whole_seconds_jiffies(1000, 0xFF, 250) == 1000 + 32000);
}

TEST_CASE("nvmesim profiles lists every release - text and JSON", "[profiles][cli]") {
  std::ostringstream out, err;
  const char* argv[] = {"nvmesim", "profiles"};
  REQUIRE(cli_main(2, argv, out, err) == 0);
  const std::string text = out.str();
  for (const auto& r : supported_releases()) CHECK_THAT(text, Catch::Contains("\n" + r + " "));
  CHECK_THAT(text, Catch::Contains("+144d:a808"));
  std::ostringstream jout;
  const char* jargv[] = {"nvmesim", "profiles", "--json"};
  REQUIRE(cli_main(3, jargv, jout, err) == 0);
  const auto j = nlohmann::json::parse(jout.str());
  CHECK(j["schema"] == "nvmesim.profiles/1");
  size_t releases = 0;
  for (const auto& row : j["rows"]) releases += row["releases"].size();
  CHECK(releases == supported_releases().size());
  CHECK(j["rows"][0]["poll"] == "msleep(100)");
  CHECK(j["rows"].back()["cc_sequence"] == "en0_cap");
  CHECK(j["rows"].back()["flr_retry"] == true);
  // The delay quirk's history (section 6): 4.8's row 2000 ms, 2 ids, not at the first probe.
  CHECK(j["rows"][0]["delay_quirk_ms"] == 2000);
  CHECK(j["rows"][0]["delay_quirk_first_probe"] == false);
  CHECK(j["rows"][0]["delay_quirk_ids"] == nlohmann::json::array({"1c58:0003", "1c5f:0540"}));
  CHECK(j["rows"].back()["delay_quirk_ms"] == 2300);
  CHECK(j["rows"].back()["delay_quirk_first_probe"] == true);
  CHECK_THAT(text, Catch::Contains("\n4.8     4.8           "));  // a row of its own (section 6)
  CHECK(j["rows"][0]["all_ones_in_loop"] == false);
  CHECK(j["rows"][1]["all_ones_in_loop"] == true);
  CHECK_THAT(text, Catch::Contains("\n6.17    6.17-6.19 "));  // FLR from 6.17 (section 6)
  CHECK_THAT(text, Catch::Contains("2000ms 2 ids, not at first probe"));
  // The legend says what "CRTO first" is and that it follows cc_sequence (section 6: 5.19-6.5).
  CHECK_THAT(text, Catch::Contains("en0_readback (CRTO first: CRTO read before the first\nCC write"));
  CHECK_THAT(text, Catch::Contains("an override of cc_sequence moves it too"));
}

TEST_CASE("docs/profiles.md holds the output of nvmesim profiles", "[profiles][docs]") {
  std::ostringstream out, err;
  const char* argv[] = {"nvmesim", "profiles"};
  REQUIRE(cli_main(2, argv, out, err) == 0);
  std::ifstream in(std::string(NVMESIM_SOURCE_DIR) + "/docs/profiles.md");
  REQUIRE(in);
  std::stringstream doc;
  doc << in.rdbuf();
  CHECK_THAT(doc.str(), Catch::Contains(out.str()));
}

namespace {
Scenario load(const std::string& host, const std::string& ctrl = "") {
  return load_scenario_text(R"({"schema": "nvmesim.scenario/1", "host": )" + host +
                                R"(, "controllers": [{"enable_latency": "1ms")" + ctrl + "}]}",
                            "s.json");
}
std::string error_of(const std::string& host, const std::string& ctrl = "") {
  try {
    load(host, ctrl);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

// The enum fields of host.overrides are parsed through the enums' name tables: every key of a
// table loads as its value, and anything else is refused with the table's keys listed.
template <class E, size_t N>
void check_override_names(const char* field, const EnumName<E> (&table)[N], E KernelProfile::*member) {
  for (const auto& n : table) {
    INFO(field << " = " << n.key);
    const Scenario sc = load(std::string(R"({"kernel": "6.1", "overrides": {")") + field + "\": \"" + n.key + "\"}}");
    CHECK(sc.variants[0].host.profile.*member == n.value);
  }
  const std::string err = error_of(std::string(R"({"kernel": "6.1", "overrides": {")") + field + R"(": "nope"}})");
  CHECK_THAT(err, Catch::Contains("/host/overrides/" + std::string(field) + ": \"nope\" is not allowed; allowed: \"" +
                                  table[0].key + "\""));
}

TEST_CASE("the enum fields of host.overrides take the names of their tables", "[profiles][scenario]") {
  check_override_names("deadline", kDeadlineFormNames, &KernelProfile::deadline);
  check_override_names("enable_timeout", kEnableTimeoutNames, &KernelProfile::enable_timeout);
  check_override_names("crime", kCrimeRuleNames, &KernelProfile::crime);
  check_override_names("cc_sequence", kCcSequenceNames, &KernelProfile::cc_sequence);
  check_override_names("shutdown_wait", kShutdownWaitNames, &KernelProfile::shutdown_wait);
  // The profile JSON spells the values with the same keys.
  const auto profiles = profiles_json();
  for (const auto& row : profiles["rows"])
    CHECK(find_key(kCcSequenceNames, row["cc_sequence"].get<std::string>()) != nullptr);
}

TEST_CASE("host.overrides sets every named field of a profile", "[profiles][scenario]") {
  const Scenario sc = load(R"J({"kernel": "6.1.90", "overrides": {
      "poll": "msleep(10)", "shutdown_poll": "usleep_range(100, 200)", "deadline": "whole_seconds",
      "enable_timeout": "crto_max", "crime": "never", "cc_sequence": "en0_cap", "crto_warning": true,
      "msleep_extra_jiffy": false, "fsleep_613": true, "csts_in_message": false, "queues_line": false,
      "shutdown_wait": "wait_ready", "delay_quirk_ids": ["144D:A808"], "delay_quirk_model_rule": false,
      "flr_retry": true, "delay_quirk_ms": 2000, "delay_quirk_first_probe": false, "all_ones_in_loop": false,
      "enable_reads_cap": false, "admin_queue_reads_cap": true, "css_from_cap": false, "rtd3e_shutdown_timeout": false,
      "probe_failure_message": false, "d3_latency_message": true}})J");
  const KernelProfile& p = sc.variants[0].host.profile;
  CHECK(p.poll == SleepPolicy::msleep(10));
  CHECK(p.shutdown_poll == SleepPolicy::usleep_range(100, 200));
  CHECK(p.deadline == DeadlineForm::whole_seconds);
  CHECK(p.enable_timeout == EnableTimeout::crto_max);
  CHECK(p.crime == CrimeRule::never);
  CHECK(p.cc_sequence == CcSequence::en0_cap);
  CHECK(p.crto_warning);
  CHECK_FALSE(p.timer.msleep_extra_jiffy);  // the timer model reads its rules from the profile
  CHECK(p.timer.fsleep_613);
  CHECK_FALSE(p.csts_in_message);
  CHECK_FALSE(p.queues_line);
  CHECK(p.shutdown_wait == ShutdownWait::wait_ready);
  CHECK(p.delay_quirk_ids == std::vector<std::string>{"144d:a808"});  // lower-cased
  CHECK_FALSE(p.delay_quirk_model_rule);
  CHECK(p.flr_retry);
  CHECK(p.delay_quirk_ms == 2000);
  CHECK_FALSE(p.delay_quirk_first_probe);
  CHECK_FALSE(p.all_ones_in_loop);  // 6.1's row has it
  CHECK_FALSE(p.enable_reads_cap);   // ... and each of these the other way
  CHECK(p.admin_queue_reads_cap);
  CHECK_FALSE(p.css_from_cap);
  CHECK_FALSE(p.rtd3e_shutdown_timeout);
  CHECK_FALSE(p.probe_failure_message);
  CHECK(p.d3_latency_message);
  CHECK_THAT(error_of(R"({"overrides": {"delay_quirk_ms": 60001}})"), Catch::Contains("/host/overrides/delay_quirk_ms"));
  // Unknown fields and values are errors that list what is allowed.
  CHECK_THAT(error_of(R"({"overrides": {"enable_timout": "cap_to"}})"),
             Catch::Contains("did you mean \"enable_timeout\""));
  CHECK_THAT(error_of(R"({"overrides": {"cc_sequence": "two_writes"}})"),
             Catch::Contains("/host/overrides/cc_sequence: \"two_writes\" is not allowed; allowed: \"single_write\""));
  CHECK_THAT(error_of(R"({"kernel": "4.7"})"), Catch::Contains("/host/kernel: kernel 4.7 is not supported"));
}

TEST_CASE("CAP and CRTO as raw hex registers are decoded by nvme_regs.hpp", "[regs][scenario]") {
  uint64_t v = 0;
  CHECK(regs::parse_hex("4028033fff", 64, v));  // nvme show-regs prints no 0x
  CHECK(v == 0x4028033fffull);
  CHECK(regs::parse_hex("0x00280014", 32, v));
  CHECK(v == 0x00280014ull);
  CHECK_FALSE(regs::parse_hex("0x1FFFFFFFF", 32, v));  // 33 bits
  CHECK_FALSE(regs::parse_hex("12g4", 64, v));
  CHECK_FALSE(regs::parse_hex("", 64, v));
  // 0x1800002014001fff: MQES = 1FFFh = 8191; TO = 14h = 20 (10 s); high dword 18000020h: bit 5
  // (CAP bit 37, CSS NVM) and bits 27, 28 (CAP bits 59, 60: CRWMS, CRIMS).
  // CRTO 00280014h: CRWMT = 14h = 20, CRIMT = 28h = 40.
  const Scenario sc = load(R"({"kernel": "6.6"})", R"(, "cap": "0x1800002014001fff", "crto": "00280014")");
  const ControllerParams& c = sc.variants[0].controllers[0];
  CHECK(c.cap.mqes == 8191);
  CHECK(c.cap.to == 20);
  CHECK(c.cap.css == 0x01);
  CHECK(c.cap.crwms);
  CHECK(c.cap.crims);
  CHECK(c.crto.crwmt == 20);
  CHECK(c.crto.crimt == 40);
  CHECK_THAT(error_of(R"({})", R"(, "crto": "0x123456789")"), Catch::Contains("/controllers/0/crto: must be"));
  CHECK_THAT(error_of(R"({})", R"(, "cap": "0x14000000")"), Catch::Contains("CAP.MQES is 0"));
  CHECK_THAT(error_of(R"({})", R"(, "cap": "cap")"), Catch::Contains("/controllers/0/cap: must be"));
}

TEST_CASE("ready timeout of the specification - CAP.TO or the CRTO field CRIME selects", "[regs]") {
  regs::Cap cap;
  cap.to = 30;
  const regs::Crto crto{20, 40};
  CHECK(regs::ready_timeout_500ms(cap, crto, false) == 30);  // CRWMS clear: CAP.TO
  cap.crwms = true;
  CHECK(regs::ready_timeout_500ms(cap, crto, false) == 20);  // CRWMT
  CHECK(regs::ready_timeout_500ms(cap, crto, true) == 40);   // CRIMT
}

TEST_CASE("every shipped scenario validates", "[scenario]") {
  for (const char* f : {"aws-c5.12xlarge", "reload-32q", "crto-bogus", "quirk-delay-before-check-ready",
                        "samsung-x5-reset", "surprise-removal", "stuck-disable-flr", "cfs-on-enable",
                        "enable-before-admin-queue", "ready-independent-of-media", "shutdown-16-controllers",
                        "shutdown-timeout", "reboot", "vm-emulated-link", "many-controllers-probe",
                        "stable-kernel-overrides"}) {
    INFO(f);
    const Scenario sc = load_scenario_file(std::string(NVMESIM_SOURCE_DIR) + "/scenarios/" + f + ".json");
    CHECK_FALSE(sc.description.empty());
  }
}
