// The tables of `controllers[]` and its objects: cap, crto, admin, identify, faults
// (scenario/keys.hpp).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>

#include "core/duration.hpp"
#include "models/identity_checks.hpp"
#include "scenario/loader_parts.hpp"

namespace nvmesim::scenario_detail {

using Node = JsonNode;

namespace {

using KC = Keys<ControllerEntry>;

uint8_t hex_nibble_or_fail(const Node& n, char c) {
  if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<uint8_t>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<uint8_t>(c - 'A' + 10);
  n.fail("must be \"vendor:device\" in hex, e.g. \"1d0f:8061\"");
}

void read_clock(const Node& n, ControllerEntry& c) {
  try {
    c.clock_period_ps = parse_clock_period_ps(n.str());
  } catch (const ParseError& e) {
    n.fail(e.what());
  }
}

void read_vs(const Node& vs, ControllerEntry& c) {
  const std::string s = vs.str();
  unsigned a = 0, b = 0, t = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%u.%u.%u%c", &a, &b, &t, &tail) != 3 || a > 65535 || b > 255 || t > 255)
    vs.fail("must be \"MAJOR.MINOR.TERTIARY\", e.g. \"1.4.0\"");
  c.vs = regs::Vs{static_cast<uint16_t>(a), static_cast<uint8_t>(b), static_cast<uint8_t>(t)};
}

// CAP as the raw register `nvme show-regs` prints, decoded by models/nvme_regs.hpp. False for an
// object (read by the cap table).
bool read_cap_hex(const Node& cap, regs::Cap& c) {
  if (!cap.json().is_string()) return false;
  uint64_t raw = 0;
  if (!regs::parse_hex(cap.str(), 64, raw))
    cap.fail("must be an object of CAP fields or the 64-bit register in hex, e.g. \"0x4028033fff\" or \"4028033fff\"");
  c = regs::Cap::decode(raw);
  if (c.mqes == 0) cap.fail("CAP.MQES is 0 (a queue needs at least 2 entries)");
  if (c.mpsmin > c.mpsmax) cap.fail("CAP.MPSMIN > CAP.MPSMAX");
  return true;
}

bool read_crto_hex(const Node& crto, regs::Crto& c) {
  if (!crto.json().is_string()) return false;
  uint64_t raw = 0;
  if (!regs::parse_hex(crto.str(), 32, raw))
    crto.fail("must be an object {crwmt, crimt} or the 32-bit register in hex, e.g. \"0x00280014\"");
  c = regs::Crto::decode(static_cast<uint32_t>(raw));
  return true;
}

const Section<regs::Cap>& crms_section() {
  using K = Keys<regs::Cap>;
  static const Section<regs::Cap> s(
      "controllers[].cap.crms", "CAP.CRMS, the controller ready modes supported (NVMe 2.0).",
      {K::boolean("crwms", dflt("false"), "ready with media", to(&regs::Cap::crwms)),
       K::boolean("crims", dflt("false"), "ready independent of media", to(&regs::Cap::crims))});
  return s;
}

regs::Cap& self(regs::Cap& c) { return c; }

const Section<regs::Cap>& cap_section() {
  using K = Keys<regs::Cap>;
  static const Section<regs::Cap> s(
      "controllers[].cap",
      "CAP, the Controller Capabilities register: these fields, or the raw 64-bit register as `nvme show-regs` "
      "prints it (`\"4028033fff\"` or `\"0x4028033fff\"`).",
      {K::integer("to", 0, 255, dflt("30"), "500 ms", "CAP.TO, the timeout for RDY to follow EN", to(&regs::Cap::to)),
       K::integer("mqes", 1, 65535, dflt("1023"), "entries", "CAP.MQES, maximum queue entries, 0's based",
                  to(&regs::Cap::mqes)),
       K::integer("dstrd", 0, 15, dflt("0"), "", "CAP.DSTRD, doorbell stride 2^(2+dstrd) bytes", to(&regs::Cap::dstrd)),
       K::integer("css", 1, 255, dflt("1"), "bits",
                  "CAP.CSS, command sets supported: bit 0 NVM, bit 6 I/O command sets (Linux 5.10+ then writes "
                  "CC.CSS 6), bit 7 admin only; an enable whose CC.CSS is not supported ends in CFS",
                  to(&regs::Cap::css)),
       K::boolean("nssrs", dflt("false"), "CAP.NSSRS, NVM subsystem reset supported", to(&regs::Cap::nssrs)),
       K::integer("mpsmin", 0, 15, dflt("0"), "", "CAP.MPSMIN, smallest page 2^(12+mpsmin) bytes",
                  to(&regs::Cap::mpsmin)),
       K::integer("mpsmax", 0, 15, dflt("0"), "", "CAP.MPSMAX, largest page 2^(12+mpsmax) bytes (>= mpsmin)",
                  to(&regs::Cap::mpsmax)),
       K::object("crms", "object: `controllers[].cap.crms`", "CAP.CRMS", crms_section(), self)},
      [](const Node& cap, regs::Cap& c) {
        if (c.mpsmin > c.mpsmax) cap.fail("mpsmin must be <= mpsmax");
      });
  return s;
}

const Section<regs::Crto>& crto_section() {
  using K = Keys<regs::Crto>;
  static const Section<regs::Crto> s(
      "controllers[].crto",
      "CRTO, the Controller Ready Timeouts register (NVMe 2.0): these fields, or the raw 32-bit register in hex.",
      {K::integer("crwmt", 0, 65535, dflt("0"), "500 ms", "CRTO.CRWMT, ready with media timeout",
                  to(&regs::Crto::crwmt)),
       K::integer("crimt", 0, 65535, dflt("0"), "500 ms", "CRTO.CRIMT, ready independent of media timeout",
                  to(&regs::Crto::crimt))});
  return s;
}

const Section<AdminLatencies>& admin_section() {
  using K = Keys<AdminLatencies>;
  auto latency = [](const char* key, const char* doc, Distribution AdminLatencies::*m) {
    return K::row(key, "duration or distribution", dflt("\"0ns\""), "", doc,
                  [m](const Node& n, AdminLatencies& a) { a.*m = read_distribution(n); });
  };
  static const Section<AdminLatencies> s(
      "controllers[].admin", "Processing latency of each admin command: SQE fetched to CQE ready to post.",
      {latency("identify", "Identify", &AdminLatencies::identify),
       latency("set_features", "Set Features (number of queues)", &AdminLatencies::set_features),
       latency("create_queue", "Create I/O CQ and Create I/O SQ (and the Delete commands)",
               &AdminLatencies::create_queue)});
  return s;
}

const Section<ControllerParams>& identify_section() {
  using K = Keys<ControllerParams>;
  static const Section<ControllerParams> s(
      "controllers[].identify", "The Identify Controller fields the host uses.",
      {K::row("model", "string of printable ASCII, at most 40 characters", dflt("\"nvmesim controller\""), "",
              "MN; \"Samsung Portable SSD X5\" with vendor 144d triggers the later quirk rule",
              [](const Node& n, ControllerParams& c) {
                c.model = n.str();
                if (c.model.size() > 40) n.fail("Identify MN holds at most 40 characters");
                if (const size_t i = regs::first_non_printable(c.model); i != std::string::npos) {
                  char hex[8];
                  std::snprintf(hex, sizeof hex, "%02Xh", static_cast<unsigned char>(c.model[i]));
                  n.fail("Identify MN is printable ASCII (20h to 7Eh); byte " + std::to_string(i + 1) + " is " + hex);
                }
              }),
       K::row("rtd3e", "duration, at most 4294s", dflt("\"0s\""), "",
              "RTD3E (0: not reported); the shutdown timeout is clamp(RTD3E in whole seconds, "
              "`host.shutdown_timeout_s`, 60)",
              [](const Node& n, ControllerParams& c) {
                const int64_t ps = n.duration_ps();
                if (ps / 1000000 > 0xFFFFFFFFll) n.fail("RTD3E is a 32-bit count of microseconds (at most 4294s)");
                c.rtd3e_us = ps / 1000000;
              }),
       K::integer("nn", 0, 0xFFFFFFFFll, dflt("0"), "namespaces",
                  "NN, the number of namespaces (the largest namespace ID); 0 reports none, as earlier "
                  "releases' model did; QEMU's emulated controller reports 1. Hosts that walk "
                  "namespaces 1..NN (seabios, freebsd, uboot, edk2, openbsd, spdk) read it; linux does not",
                  to(&ControllerParams::nn))});
  return s;
}

const Section<AllOnesWindow>& all_ones_section() {
  using K = Keys<AllOnesWindow>;
  static const Section<AllOnesWindow> s(
      "controllers[].faults.all_ones",
      "Every read of the function returns all ones and writes are dropped in this window of trial time "
      "(from driver init): surprise removal, or a device off the bus for a while. The function's own requests are "
      "not sent in the window either: a DMA (SQE fetch, Identify data, CQE post) fails as one the host rejects "
      "does (docs/model.md), and an MSI-X message is lost.",
      {K::duration("from", dflt("\"0s\""), "start of the window", to(&AllOnesWindow::from_ps)),
       K::duration("for", computed("for ever"), "length of the window", to(&AllOnesWindow::for_ps))});
  return s;
}

bool activate(const Node&, AllOnesWindow& w) {
  w.active = true;  // the key's presence turns the fault on
  return false;
}

const Section<ControllerFaults>& faults_section() {
  using K = Keys<ControllerFaults>;
  static const Section<ControllerFaults> s(
      "controllers[].faults", "Device faults (docs/behaviours.md).",
      {K::boolean("never_ready", dflt("false"), "CC.EN 0->1 never sets CSTS.RDY", to(&ControllerFaults::never_ready)),
       K::number("cfs_on_enable", 0, 1, dflt("0"), "probability",
                 "an enable ends in CSTS.CFS instead of RDY (one draw per enable)", to(&ControllerFaults::cfs_on_enable)),
       K::object("all_ones", "object: `controllers[].faults.all_ones`", "reads return FFFFFFFFh in a window",
                 all_ones_section(), +[](ControllerFaults& f) -> AllOnesWindow& { return f.all_ones; }, activate),
       K::boolean("ignore_enable_before_admin_queue", dflt("false"),
                  "CC.EN 0->1 is ignored until AQA, ASQ and ACQ were written", 
                  to(&ControllerFaults::ignore_enable_before_admin_queue)),
       K::boolean("stuck_ready", dflt("false"), "CC.EN 1->0 never clears RDY until a function-level reset",
                  to(&ControllerFaults::stuck_ready)),
       K::integer("identify_status", 0, 0x7FFF, dflt("0"), "",
                  "every Identify completes with this CQE Status Field (SC in bits 7:0, SCT in 10:8, CRD, M, DNR above; 6: "
                  "Internal Error) and transfers no data; 0: Identify succeeds",
                  to(&ControllerFaults::identify_status))});
  return s;
}

Key<ControllerEntry> latency(const char* key, Default def, const char* doc,
                             void (*set)(ControllerEntry&, Distribution)) {
  return KC::row(key, "duration or distribution", std::move(def), "", doc,
                 [set](const Node& n, ControllerEntry& c) { set(c, read_distribution(n)); });
}

}  // namespace

std::string read_pci_id(const Node& n) {
  const std::string s = n.str();
  if (s.size() != 9 || s[4] != ':') n.fail("must be \"vendor:device\" in hex, e.g. \"1d0f:8061\"");
  for (size_t i = 0; i < s.size(); ++i)
    if (i != 4) hex_nibble_or_fail(n, s[i]);
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (regs::pci_id_of_absent_function(lower))
    n.fail(lower.compare(0, 4, "ffff") == 0
               ? "vendor ffff is what a configuration read of an absent function returns, never a device's vendor ID "
                 "(no vendor is assigned it); give the device's own, e.g. \"1d0f:8061\""
               : lower + " is what Linux takes for an empty slot, not a device's id; give the device's own, e.g. "
                         "\"1d0f:8061\"");
  if (regs::pci_id_of_config_retry(lower))
    n.fail("vendor 0001 is what a configuration read returns while the function asks for a retry (CRS Software "
           "Visibility, PCIe Base 4.0 section 2.3.2): Linux retries, it does not probe, and nvmesim does not model "
           "that; give the device's own id, e.g. \"1d0f:8061\"");
  return lower;
}

const Section<ControllerEntry>& controller_section() {
  static const Section<ControllerEntry> s(
      "controllers[]",
      "One entry per kind of controller. The defaults describe an emulator-like device (QEMU sets RDY inside "
      "the CC write handler).",
      {KC::row("name", "string, at most 256 bytes", computed("`nvmeN`"), "",
               "a label; the kernel name is `nvmeN` by position",
               [](const Node& n, ControllerEntry& c) { c.label = read_label(n); }),
       KC::integer("count", 1, kMaxControllers, dflt("1"), "", "this many identical controllers (1024 in all at most)",
                   to(&ControllerEntry::count)),
       KC::row("pci_id", "`\"vvvv:dddd\"` (hex; not ffff:*, 0001:*, 0000:0000 or 0000:ffff)", dflt("\"1d0f:8061\""), "", "PCI vendor:device",
               [](const Node& n, ControllerEntry& c) { c.pci_id = read_pci_id(n); }),
       KC::row("pci_address", "string, at most 256 bytes", computed("`0000:NN:00.0`, NN = 4 + index in hex"), "",
               "printed in `pci function ...`; with `count`, the copies add `+1`, `+2`, ...",
               [](const Node& n, ControllerEntry& c) { c.pci_address = read_label(n); }),
       KC::boolean("flr", dflt("true"),
                   "the function has the PCIe Function Level Reset capability (Device Capabilities FLR); without it "
                   "6.17's reset and retry of a failed disable wait is skipped and the probe fails",
                   to(&ControllerEntry::flr)),
       KC::row("clock", "frequency, e.g. `\"500MHz\"` (Hz, kHz, MHz, GHz)", dflt("\"500MHz\""), "",
               "controller clock: every device-side change happens on a rising edge", read_clock),
       KC::integer("read_cycles", 0, 1'000'000, dflt("16"), "controller cycles",
                   "a register read's arrival to its completion", to(&ControllerEntry::read_cycles)),
       KC::integer("write_cycles", 0, 1'000'000, dflt("4"), "controller cycles",
                   "a register write's arrival to its effect", to(&ControllerEntry::write_cycles)),
       KC::object("cap", "object: `controllers[].cap`, or a 64-bit hex string", "CAP", cap_section(),
                  +[](ControllerEntry& c) -> regs::Cap& { return c.cap; }, read_cap_hex),
       KC::row("vs", "`\"MAJOR.MINOR.TERTIARY\"`", dflt("\"1.4.0\""), "", "VS, the version", read_vs),
       KC::object("crto", "object: `controllers[].crto`, or a 32-bit hex string", "CRTO", crto_section(),
                  +[](ControllerEntry& c) -> regs::Crto& { return c.crto; }, read_crto_hex),
       KC::choice("handoff", kHandoffNames, dflt("\"disabled\""),
                  "the state firmware leaves: `disabled` (EN=0, RDY=0) or `enabled` (EN=1, RDY=1: the probe pays a "
                  "disable wait)",
                  to(&ControllerEntry::handoff)),
       latency("enable_latency", dflt("\"0ns\""), "CC.EN 0->1 to CSTS.RDY=1",
               [](ControllerEntry& c, Distribution d) { c.enable_latency = std::move(d); }),
       latency("disable_latency", dflt("\"0ns\""), "CC.EN 1->0 to CSTS.RDY=0",
               [](ControllerEntry& c, Distribution d) { c.disable_latency = std::move(d); }),
       latency("shutdown_latency", dflt("\"0ns\""), "CC.SHN=01b (normal) write to SHST=complete",
               [](ControllerEntry& c, Distribution d) {
                 c.abrupt_shutdown_latency = d;  // abrupt_shutdown_latency's default, when it is not given
                 c.shutdown_latency = std::move(d);
               }),
       latency("abrupt_shutdown_latency", computed("`shutdown_latency`"), "CC.SHN=10b (abrupt) write to SHST=complete",
               [](ControllerEntry& c, Distribution d) { c.abrupt_shutdown_latency = std::move(d); }),
       latency("media_latency", dflt("\"0ns\""),
               "CC.EN 0->1 to the namespaces being ready: with CC.CRIME=0 RDY waits for it too; with CC.CRIME=1 "
               "RDY follows `enable_latency` and namespaces report NRDY=0 until then",
               [](ControllerEntry& c, Distribution d) { c.media_latency = std::move(d); }),
       KC::object("admin", "object: `controllers[].admin`", "admin command latencies", admin_section(),
                  +[](ControllerEntry& c) -> AdminLatencies& { return c.admin; }),
       KC::integer("io_queues", 1, kMaxIoQueues, dflt("2"), "queue pairs",
                   "I/O queue pairs the device grants (Set Features)", to(&ControllerEntry::io_queues)),
       KC::object("identify", "object: `controllers[].identify`", "Identify Controller fields", identify_section(),
                  +[](ControllerEntry& c) -> ControllerParams& { return c; }),
       KC::object("faults", "object: `controllers[].faults`", "device faults", faults_section(),
                  +[](ControllerEntry& c) -> ControllerFaults& { return c.faults; })});
  return s;
}

}  // namespace nvmesim::scenario_detail
