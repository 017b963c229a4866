#include "tools/profiles.hpp"

#include <cstdio>
#include <ostream>

#include "host/linux/kernel_profile.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

namespace {

std::string quirk_rules(const KernelProfile& p) {
  std::string s;
  for (const auto& id : p.delay_quirk_ids) {
    bool base = false;
    for (const auto& b : base_delay_quirk_ids()) base |= b == id;
    if (!base) s += (s.empty() ? "" : " ") + ("+" + id);
  }
  std::string out = std::to_string(p.delay_quirk_ms) + "ms " + std::to_string(p.delay_quirk_ids.size()) + " ids";
  if (!s.empty()) out += " (" + s + ")";
  if (!p.delay_quirk_first_probe) out += ", not at first probe";
  if (p.delay_quirk_model_rule) out += ", X5 model after Identify";
  return out;
}

ojson row_json(const KernelProfile& p) {
  ojson j;
  j["first"] = p.first;
  j["last"] = p.last;
  ojson releases = ojson::array();
  const int lo = KernelVersion::parse(p.first).release_key(), hi = KernelVersion::parse(p.last).release_key();
  for (const auto& r : supported_releases()) {
    const int k = KernelVersion::parse(r).release_key();
    if (k >= lo && k <= hi) releases.push_back(r);
  }
  j["releases"] = releases;
  j["poll"] = p.poll.to_string();
  j["shutdown_poll"] = p.shutdown_poll.to_string();
  j["deadline"] = key_of(p.deadline);
  j["enable_timeout"] = key_of(p.enable_timeout);
  j["crime"] = key_of(p.crime);
  j["cc_sequence"] = key_of(p.cc_sequence);
  j["enable_reads_cap"] = p.enable_reads_cap;
  j["admin_queue_reads_cap"] = p.admin_queue_reads_cap;
  j["css_from_cap"] = p.css_from_cap;
  j["rtd3e_shutdown_timeout"] = p.rtd3e_shutdown_timeout;
  j["crto_warning"] = p.crto_warning;
  j["msleep_extra_jiffy"] = p.timer.msleep_extra_jiffy;
  j["fsleep_613"] = p.timer.fsleep_613;
  j["csts_in_message"] = p.csts_in_message;
  j["all_ones_in_loop"] = p.all_ones_in_loop;
  j["queues_line"] = p.queues_line;
  j["probe_failure_message"] = p.probe_failure_message;
  j["d3_latency_message"] = p.d3_latency_message;
  j["shutdown_wait"] = key_of(p.shutdown_wait);
  j["delay_quirk_ids"] = p.delay_quirk_ids;
  j["delay_quirk_ms"] = p.delay_quirk_ms;
  j["delay_quirk_first_probe"] = p.delay_quirk_first_probe;
  j["delay_quirk_model_rule"] = p.delay_quirk_model_rule;
  j["flr_retry"] = p.flr_retry;
  return j;
}

}  // namespace

ojson profiles_json() {
  ojson j;
  j["schema"] = "nvmesim.profiles/1";
  j["supported"] = supported_kernel_range();
  ojson rows = ojson::array();
  for (const auto& p : kernel_profiles()) rows.push_back(row_json(p));
  j["rows"] = rows;
  return j;
}

void print_profiles_table(std::ostream& out) {
  char line[512];
  const char* fmt = "%-7s %-13s %-25s %-25s %-13s %-17s %-16s %-5s %-6s %s\n";
  std::snprintf(line, sizeof line, fmt, "release", "row", "poll sleep", "shutdown sleep", "deadline",
                "enable timeout", "CC sequence", "CRIME", "jiffy+", "quirk rules");
  out << line;
  for (const auto& r : supported_releases()) {
    const KernelProfile& p = profile_for(KernelVersion::parse(r));
    const std::string row = p.first == p.last ? p.first : p.first + "-" + p.last;
    const std::string shut = p.shutdown_poll.to_string() + (p.shutdown_wait == ShutdownWait::msleep_loop ? " loop" : "");
    std::string timeout = key_of(p.enable_timeout);
    if (p.crto_warning) timeout += "+warn";
    std::string seq = key_of(p.cc_sequence);
    if (p.flr_retry) seq += "+flr";
    std::snprintf(line, sizeof line, fmt, r.c_str(), row.c_str(), p.poll.to_string().c_str(), shut.c_str(),
                  key_of(p.deadline), timeout.c_str(), seq.c_str(), p.crime == CrimeRule::never      ? "never"
                  : p.crime == CrimeRule::if_crims ? "CRIMS"
                                                   : "both", p.timer.msleep_extra_jiffy ? "yes" : "no",
                  quirk_rules(p).c_str());
    out << line;
  }
  out << "\nrow: the table row (host/kernel_profile.cpp); deadline: half_jiffies = jiffies + (TO+1)*HZ/2,\n"
         "whole_seconds = jiffies + ((TO+1)/2)*HZ; enable timeout: cap_to = CAP.TO, crto_instead = CRTO field\n"
         "when CAP.CRWMS, crto_max = max(CAP.TO, CRTO field), +warn = \"bad crto\" once; CC sequence (from 5.4\n"
         "each starts with a CAP re-read): single_write, en0_readback (CRTO first: CRTO read before the first\n"
         "CC write, then EN=0 write, CC read), en0_readback_cap (EN=0 write, CC read, CAP read, then CRTO),\n"
         "en0_cap (EN=0 write, CAP read, then CRTO; no CC read); CRTO is read only with CAP.CRWMS and a CRTO\n"
         "rule; the CRTO-first order goes with en0_readback, so an override of cc_sequence moves it too;\n"
         "+flr = FLR and one retry when the disable wait fails; CRIME: when CC.CRIME is set (CRIMS = CAP.CRIMS,\n"
         "both = CAP.CRWMS and CAP.CRIMS); jiffy+: msleep adds a jiffy; quirk rules: the delay quirk's\n"
         "msleep (ms) after the disable write (never on a shutdown), its PCI ids (+ beyond 4.19's six),\n"
         "\"not at first probe\" = only later disables (reset), and the model-string rule. Override any\n"
         "field under host.overrides with the names of `nvmesim profiles --json`, which also has the fields\n"
         "this table leaves out (all_ones_in_loop, enable_reads_cap, admin_queue_reads_cap, css_from_cap,\n"
         "rtd3e_shutdown_timeout, probe_failure_message, d3_latency_message, ...).\n";
}

}  // namespace nvmesim
