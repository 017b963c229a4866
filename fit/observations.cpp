#include "fit/observations.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/json_reader.hpp"
#include "core/json_text.hpp"
#include "host/linux/kernel_profile.hpp"
#include "models/identity_checks.hpp"
#include "models/nvme_regs.hpp"

namespace nvmesim {

const char* implausible_cap(uint64_t cap_raw) {
  if (cap_raw == ~uint64_t{0}) return "cap is all ones: the device did not answer when the dump was taken";
  const regs::Cap c = regs::Cap::decode(cap_raw);
  if (c.mqes == 0) return "CAP.MQES is 0 (a queue needs at least 2 entries): not a real CAP";
  if (c.mpsmin > c.mpsmax) return "CAP.MPSMIN > CAP.MPSMAX: not a real CAP";
  return nullptr;
}

namespace {

using SChoices = std::vector<std::pair<std::string, std::string>>;

std::string base_name(const std::string& p) {
  const size_t s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

// The text of {"path": ...} or {"text": string or array of lines}.
std::string text_or_path(const JsonNode& n, const std::string& dir, std::string& name, std::vector<std::string>* files) {
  if (n.has("path") == n.has("text")) n.fail("needs exactly one of \"path\" (a file) or \"text\" (the lines inline)");
  if (n.has("path")) {
    std::string p = n.at("path").str();
    if (p.empty()) n.at("path").fail("must not be empty");
    const std::string full = (p[0] == '/' || dir.empty()) ? p : dir + "/" + p;
    struct stat st{};
    if (::stat(full.c_str(), &st) != 0) throw IoError(full + ": cannot read the log (" + n.source() + ": " + n.ptr() + "/path)");
    name = base_name(p);
    if (files) files->push_back(full);
    return read_text_file(full, 256u << 20);
  }
  const JsonNode t = n.at("text");
  name = n.source() + ": " + n.ptr() + "/text";
  if (t.json().is_string()) return t.str();
  std::string out;
  const auto& arr = t.array();
  for (size_t i = 0; i < arr.size(); ++i) out += t.at(i).str() + "\n";
  return out;
}

// "5.4.0-1045-aws" -> "5.4" (the one parser of kernel versions, host/linux/kernel_profile.hpp).
std::string release_of_uname(const JsonNode& n) {
  try {
    return KernelVersion::parse(n.str()).mainline();
  } catch (const std::invalid_argument& e) {
    n.fail(e.what());
  }
}

ObsHost read_host(const JsonNode& n, const std::string& name) {
  n.require_object({"kernel", "uname_r", "hz", "tick", "highres", "cpus", "driver"});
  ObsHost h;
  h.name = name;
  if (n.has("kernel") == n.has("uname_r")) n.fail("needs exactly one of \"kernel\" (a release, e.g. \"5.6\") or \"uname_r\"");
  if (n.has("kernel")) {
    h.kernel = n.at("kernel").str();
  } else {
    h.uname_r = n.at("uname_r").str();
    h.kernel = release_of_uname(n.at("uname_r"));
  }
  try {
    (void)profile_for(KernelVersion::parse(h.kernel));
  } catch (const std::invalid_argument& e) {
    n.at(n.has("kernel") ? "kernel" : "uname_r").fail(e.what());
  }
  if (!n.has("hz")) n.fail("needs \"hz\" (CONFIG_HZ: 100, 250, 300 or 1000): msleep depends on it");
  const JsonNode hz = n.at("hz");
  if (!hz.json().is_number_integer() || (hz.json() != 100 && hz.json() != 250 && hz.json() != 300 && hz.json() != 1000))
    hz.fail(hz.json().dump() + " is not a CONFIG_HZ; allowed: 100, 250, 300, 1000 (an unknown HZ is not fitted yet)");
  h.hz = hz.json().get<int>();
  if (!n.has("tick")) n.fail("needs \"tick\" (auto, nohz_idle or periodic: host.tick, docs/scenario.md)");
  h.tick = n.at("tick").choice(SChoices{{"auto", "auto"}, {"nohz_idle", "nohz_idle"}, {"nohz_full", "nohz_idle"}, {"periodic", "periodic"}});
  if (n.has("highres")) h.highres = n.at("highres").boolean();
  if (!n.has("cpus")) n.fail("needs \"cpus\" (1 to 4096): the driver asks for one I/O queue per CPU");
  h.cpus = static_cast<int>(n.at("cpus").integer(1, 4096));
  if (n.has("driver")) n.at("driver").choice(SChoices{{"linux", "linux"}});
  return h;
}

// One "key : value" line of nvme-cli's normal output (`nvme show-regs`, `nvme id-ctrl`).
struct DumpValue {
  std::string value;
  size_t line = 0;  ///< from 1
};

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// The "key : value" lines of a dump: a key of letters, digits and '_' at the start of the line,
// white space, ':', the value. Other lines are skipped: the -H detail lines (indented), headers
// ("NVME Identify Controller:") and the power state lines ("ps    0 : ..."), whose keys have
// spaces. A key given twice (two dumps in one file) is an error at its second line.
std::vector<std::pair<std::string, DumpValue>> dump_values(const std::string& text, const std::string& name) {
  std::vector<std::pair<std::string, DumpValue>> out;
  size_t pos = 0, line = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string l = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line;
    const size_t colon = l.find(':');
    if (l.empty() || l[0] == ' ' || l[0] == '\t' || colon == std::string::npos) continue;
    const std::string key = trimmed(l.substr(0, colon));
    bool word = !key.empty();
    for (char c : key) word = word && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!word) continue;
    for (const auto& [k, v] : out)
      if (k == key)
        throw InputError::at_line(name, line, 1, "\"" + key + "\" is given twice (also line " + std::to_string(v.line) +
                                                    "): one dump of one controller per file");
    out.push_back({key, {trimmed(l.substr(colon + 1)), line}});
  }
  return out;
}

const DumpValue* dump_find(const std::vector<std::pair<std::string, DumpValue>>& d, const char* key) {
  for (const auto& [k, v] : d)
    if (k == key) return &v;
  return nullptr;
}

// `nvme show-regs /dev/nvmeN` (normal or -H output): CAP, VS and, from NVMe 2.0 devices and
// nvme-cli 2.x, CRTO, each printed in hex without "0x". Fixes controllers[0].cap, vs and crto.
void read_show_regs(const std::string& text, const std::string& name, Observations& o) {
  const auto d = dump_values(text, name);
  const DumpValue* cap = dump_find(d, "cap");
  if (!cap) throw InputError::in_source(name, "has no \"cap     : ...\" line: is it the output of `nvme show-regs /dev/nvme0`?");
  uint64_t raw = 0;
  if (!regs::parse_hex(cap->value, 64, raw))
    throw InputError::at_line(name, cap->line, 1, "cap \"" + cap->value + "\" is not a 64-bit register in hex");
  if (const char* why = implausible_cap(raw)) throw InputError::at_line(name, cap->line, 1, why);
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(raw));
  o.device["cap"] = hex;
  o.device_from["cap"] = "show-regs " + name + " line " + std::to_string(cap->line);
  if (const DumpValue* vs = dump_find(d, "version")) {
    uint64_t v = 0;
    if (!regs::parse_hex(vs->value, 32, v) || v == 0xFFFFFFFFu)
      throw InputError::at_line(name, vs->line, 1, "version \"" + vs->value + "\" is not a 32-bit register in hex");
    if (v == 0) throw InputError::at_line(name, vs->line, 1, "version 0 is no NVMe version (1.0 is 10000)");
    const regs::Vs x = regs::Vs::decode(static_cast<uint32_t>(v));
    o.device["vs"] = std::to_string(x.mjr) + "." + std::to_string(x.mnr) + "." + std::to_string(x.ter);
    o.device_from["vs"] = "show-regs " + name + " line " + std::to_string(vs->line);
  }
  if (const DumpValue* cr = dump_find(d, "crto")) {
    uint64_t v = 0;
    if (!regs::parse_hex(cr->value, 32, v) || v == 0xFFFFFFFFu)
      throw InputError::at_line(name, cr->line, 1, "crto \"" + cr->value + "\" is not a 32-bit register in hex");
    std::snprintf(hex, sizeof hex, "0x%08llx", static_cast<unsigned long long>(v));
    o.device["crto"] = hex;
    o.device_from["crto"] = "show-regs " + name + " line " + std::to_string(cr->line);
  }
}

// `nvme id-ctrl /dev/nvmeN`: MN (the model: quirk rules match it) and RTD3E (us: the shutdown
// timeout). vid is kept to check it against lspci's.
void read_id_ctrl(const std::string& text, const std::string& name, Observations& o, std::string& vid) {
  const auto d = dump_values(text, name);
  const DumpValue* mn = dump_find(d, "mn");
  if (!mn) throw InputError::in_source(name, "has no \"mn        : ...\" line: is it the output of `nvme id-ctrl /dev/nvme0`?");
  if (mn->value.size() > 40) throw InputError::at_line(name, mn->line, 1, "mn holds at most 40 characters (Identify MN)");
  if (const size_t i = regs::first_non_printable(mn->value); i != std::string::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "%02Xh", static_cast<unsigned char>(mn->value[i]));
    throw InputError::at_line(name, mn->line, 1, "mn is printable ASCII (20h to 7Eh), as Identify MN is; byte " +
                                                     std::to_string(i + 1) + " is " + hex);
  }
  o.device["identify"]["model"] = mn->value;
  o.device_from["identify.model"] = "id-ctrl " + name + " line " + std::to_string(mn->line);
  if (const DumpValue* r = dump_find(d, "rtd3e")) {
    uint64_t us = 0;
    bool ok = !r->value.empty();
    if (r->value.rfind("0x", 0) == 0) {
      ok = regs::parse_hex(r->value, 32, us);
    } else {
      for (char c : r->value) ok = ok && c >= '0' && c <= '9';
      ok = ok && r->value.size() <= 10 && (us = std::stoull(r->value)) <= 0xFFFFFFFFull;
    }
    if (!ok) throw InputError::at_line(name, r->line, 1, "rtd3e \"" + r->value + "\" is not a 32-bit count of microseconds");
    o.device["identify"]["rtd3e"] = std::to_string(us) + "us";
    o.device_from["identify.rtd3e"] = "id-ctrl " + name + " line " + std::to_string(r->line);
  }
  if (const DumpValue* v = dump_find(d, "vid")) {
    uint64_t x = 0;
    if (!regs::parse_hex(v->value, 16, x))
      throw InputError::at_line(name, v->line, 1, "vid \"" + v->value + "\" is not a 16-bit PCI vendor id in hex");
    vid = v->value;
  }
}

bool hex4(const std::string& s, size_t at) {
  if (at + 4 > s.size()) return false;
  for (size_t i = at; i < at + 4; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// `lspci -n` ("00:04.0 0108: 1d0f:8061 (rev 01)") or `lspci -nn` ("... [0108]: Amazon.com, Inc.
// NVMe EBS Controller [1d0f:8061]"): the vendor:device of the functions of class 0108 (NVMe).
// Other functions' lines are skipped; NVMe functions of two different ids are an error (one
// device model per file).
void read_lspci(const std::string& text, const std::string& name, Observations& o, const std::string& vid) {
  std::string id;
  size_t id_line = 0, pos = 0, line = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string l = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line;
    for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string here;
    size_t k = l.find(" 0108: ");
    if (k != std::string::npos && hex4(l, k + 7) && l.size() > k + 11 && l[k + 11] == ':' && hex4(l, k + 12)) {
      // The id is a whole token: "1d0f:80611" is not 1d0f:8061.
      if (l.size() > k + 16 && l[k + 16] != ' ')
        throw InputError::at_line(name, line, 1, "\"" + l.substr(k + 7) + "\" is not a vendor:device id (4 + 4 hex digits)");
      here = l.substr(k + 7, 9);
    } else if (l.find("[0108]:") != std::string::npos) {
      const size_t b = l.rfind('[');
      if (b != std::string::npos && hex4(l, b + 1) && l.size() > b + 10 && l[b + 5] == ':' && hex4(l, b + 6) && l[b + 10] == ']')
        here = l.substr(b + 1, 9);
    }
    if (here.empty()) continue;
    if (here == "ffff:ffff")
      throw InputError::at_line(name, line, 1, "ffff:ffff is all ones: the function did not answer when lspci ran");
    // What the scenario's pci_id refuses, said here with the line.
    if (regs::pci_id_of_absent_function(here))
      throw InputError::at_line(name, line, 1, here + " is what a read of an absent function returns, not a device's id");
    if (regs::pci_id_of_config_retry(here))
      throw InputError::at_line(name, line, 1, here + ": vendor 0001 is what a read returns while the function asks for a "
                                                  "retry (CRS), not a device's id");
    if (!id.empty() && here != id)
      throw InputError::at_line(name, line, 1, "a second NVMe function, " + here + ", beside " + id + " (line " + std::to_string(id_line) +
                                                  "): this version fits one device; keep the line of the one the logs measure");
    if (id.empty()) id = here, id_line = line;
  }
  if (id.empty())
    throw InputError::in_source(name, "has no NVMe function (class 0108) line: is it the output of `lspci -n` or `lspci -nn`?");
  if (!vid.empty()) {
    uint64_t v = 0;
    if (regs::parse_hex(vid, 16, v)) {  // read_id_ctrl checked it
      char want[8];
      std::snprintf(want, sizeof want, "%04llx", static_cast<unsigned long long>(v));
      if (id.substr(0, 4) != want)
        throw InputError::at_line(name, id_line, 1, "vendor " + id.substr(0, 4) + " differs from id-ctrl's vid " + vid +
                                                       ": the two dumps are of different devices");
    }
  }
  o.device["pci_id"] = id;
  o.device_from["pci_id"] = "lspci " + name + " line " + std::to_string(id_line);
}

void read_machine(const JsonNode& n, const std::string& dir, Observations& o) {
  n.require_object({"controllers", "link", "show_regs", "id_ctrl", "lspci"});
  if (n.has("controllers")) n.at("controllers").integer(1, 1);
  if (n.has("link")) o.link = n.at("link").choice(SChoices{{"bare-metal", "bare-metal"}, {"vm-emulated", "vm-emulated"}});
  std::string name, vid;
  auto dump = [&](const char* key) {
    const JsonNode d = n.at(key);
    d.require_object({"path", "text"});
    return text_or_path(d, dir, name, &o.files);
  };
  if (n.has("show_regs")) read_show_regs(dump("show_regs"), name, o);
  if (n.has("id_ctrl")) read_id_ctrl(dump("id_ctrl"), name, o, vid);
  if (n.has("lspci")) read_lspci(dump("lspci"), name, o, vid);
}

// Two boots never print the same lines at the same microseconds: a run whose lines (kinds and
// times) equal an earlier run's is the same evidence given twice (a log listed twice, or two
// logs that overlap). So is a run whose every line kind that the earlier run also has is at the
// same time there: a filtered copy of a log (a subset of its lines), or two filters of one boot's
// log. Counting either twice would narrow the intervals (or make one boot two), so it is refused. Runs that share some lines' times but not all are two boots.
void check_not_seen(const JsonNode& n, const Observations& o, const std::string& name, const LogRun& r) {
  for (const auto& q : o.runs) {
    size_t common = 0;
    bool same = true;
    std::string kinds;
    for (size_t k = 0; k < kBootLines; ++k) {
      if (!q.lines.has[k] || !r.has[k]) continue;
      same = same && q.lines.ns[k] == r.ns[k];
      kinds += std::string(common++ ? ", " : "") + boot_line_name(static_cast<BootLine>(k));
    }
    if (common == 0 || !same) continue;
    // Each run by its first line.
    size_t rk = 0, qk = 0;
    while (!r.has[rk]) ++rk;
    while (!q.lines.has[qk]) ++qk;
    const std::string r_at = std::to_string(r.line[rk]), q_at = std::to_string(q.lines.line[qk]);
    if (q.lines.has == r.has)
      n.fail(name + ": the run at line " + r_at + " is the run at line " + q_at + " of /logs/" + std::to_string(q.log) +
             " (" + q.source + ") again: the same lines at the same times; each boot counts once, so list each log "
             "once (and logs that do not overlap)");
    n.fail(name + ": the run at line " + r_at + " has the " + kinds + " line" + (common > 1 ? "s" : "") +
           " of the run at line " + q_at + " of /logs/" +
           std::to_string(q.log) + " (" + q.source + ") at the same time" + (common > 1 ? "s" : "") +
           ": the same boot given twice (a filtered copy of a log, or logs that overlap); each boot counts once, so "
           "give each boot's lines in one log");
  }
}

void read_log(const JsonNode& n, size_t index, const std::string& dir, Observations& o) {
  n.require_object({"path", "text", "host", "kind", "runs", "handoff"});
  if (!n.has("host")) n.fail("needs \"host\": a name in /hosts");
  const std::string hname = n.at("host").str();
  size_t h = o.hosts.size();
  std::string known;
  for (size_t i = 0; i < o.hosts.size(); ++i) {
    if (o.hosts[i].name == hname) h = i;
    known += (i ? ", " : "") + o.hosts[i].name;
  }
  if (h == o.hosts.size()) n.at("host").fail("\"" + hname + "\" is not a host in /hosts (known: " + known + ")");
  std::string kind = "boot";
  if (n.has("kind")) {
    kind = n.at("kind").choice(SChoices{{"boot", "boot"}, {"module_reload", "module_reload"}, {"reset", "reset"}});
    if (kind == "reset") n.at("kind").fail("\"reset\" logs are not fitted by this version yet; allowed: boot, module_reload");
  }
  const int handoff = -1;
  if (n.has("handoff")) n.at("handoff").fail("is not used by this version yet (the hand-off state is fitted); remove it");
  std::string name;
  const std::string text = text_or_path(n, dir, name, &o.files);
  const auto runs = read_log_runs(text, name);
  if (n.has("runs")) {
    const int64_t want = n.at("runs").integer(1, 100000);
    if (static_cast<size_t>(want) != runs.size())
      n.at("runs").fail("says " + std::to_string(want) + " runs, but the log has " + std::to_string(runs.size()) +
                        " (a run starts at each driver-init line)");
  }
  for (const auto& r : runs) {
    if (r.present(BootLine::queues) && r.io_queues < 1)
      n.fail("line " + std::to_string(r.line[2]) + " of the log: 0 I/O queues in the queues line; a controller "
             "without I/O queues is not modelled (1 to 4096 are)");
    if (r.io_queues > o.hosts[h].cpus)
      n.fail("line " + std::to_string(r.line[2]) + " of the log: " + std::to_string(r.io_queues) +
             " I/O queues in the queues line, more than the host's " + std::to_string(o.hosts[h].cpus) + " cpus");
    if (!r.present(BootLine::queues))
      n.fail(name + ": the run at line " + std::to_string(r.line[r.present(BootLine::init) ? 0 : 1]) +
             " has no \"default/read/poll queues\" line: the probe's end is not observed");
    check_not_seen(n, o, name, r);
    o.runs.push_back({h, kind, name, index, handoff, r});
  }
}

}  // namespace

int Observations::io_queues(size_t h) const {
  for (const auto& r : runs)
    if (r.host == h) return r.lines.io_queues;
  return 0;
}

size_t observed_interval_count(const Observations& obs) {
  size_t n = 0;
  for (const auto& r : obs.runs) {
    size_t present = 0;
    for (bool b : r.lines.has) present += b;
    n += present ? present - 1 : 0;
  }
  return n;
}

Observations parse_observations(const std::string& text, const std::string& source, const std::string& dir) {
  const auto doc = parse_json_text(text, source);
  const JsonNode root(doc, source, "");
  root.require_object({"schema", "name", "description", "machine", "hosts", "logs", "fit"});
  if (!root.has("schema") || !root.at("schema").json().is_string() || root.at("schema").str() != "nvmesim.observations/1")
    (root.has("schema") ? root.at("schema") : root).fail("must be \"nvmesim.observations/1\"");
  Observations o;
  o.source = source;
  if (root.has("name")) o.name = root.at("name").str();
  if (root.has("description")) o.description = root.at("description").str();
  if (root.has("machine")) read_machine(root.at("machine"), dir, o);
  if (!root.has("hosts") || !root.at("hosts").json().is_object() || root.at("hosts").json().empty())
    root.fail("needs \"hosts\": an object of named hosts (kernel, hz, tick, cpus)");
  for (const auto& [k, v] : root.at("hosts").json().items()) o.hosts.push_back(read_host(root.at("hosts").at(k), k));
  if (!root.has("logs") || root.at("logs").array().empty()) root.fail("needs \"logs\": at least one log");
  for (size_t i = 0; i < root.at("logs").array().size(); ++i) read_log(root.at("logs").at(i), i, dir, o);
  for (size_t h = 0; h < o.hosts.size(); ++h)
    for (const auto& r : o.runs)
      if (r.host == h && r.lines.io_queues != o.io_queues(h))
        root.at("logs").at(r.log).fail("runs of host \"" + o.hosts[h].name + "\" disagree on the I/O queue count (" +
                                       std::to_string(r.lines.io_queues) + " and " + std::to_string(o.io_queues(h)) +
                                       "); give each queue count a host of its own");
  if (observed_interval_count(o) == 0) root.at("logs").fail("no interval to fit: the runs have a single line each");
  if (root.has("fit")) {
    const JsonNode f = root.at("fit");
    f.require_object({"particles", "trials_per_particle"});
    if (f.has("particles")) o.fit.particles = static_cast<int>(f.at("particles").integer(20, 100000));
    if (f.has("trials_per_particle")) o.fit.trials_per_particle = static_cast<int>(f.at("trials_per_particle").integer(4, 4096));
  }
  return o;
}

Observations load_observations(const std::string& path) {
  // read_text_file refuses what is not a regular file (a FIFO would block an open for reading,
  // issue 16 item 5) and a missing one, as run and predict do.
  const size_t s = path.rfind('/');
  return parse_observations(read_text_file(path), path, s == std::string::npos ? "" : path.substr(0, s));
}

nlohmann::ordered_json Observations::resolved() const {
  using oj = nlohmann::ordered_json;
  oj j = {{"name", name}, {"link", link}};
  oj hs = oj::object();
  for (size_t h = 0; h < hosts.size(); ++h) {
    const auto& x = hosts[h];
    hs[x.name] = {{"kernel", x.kernel}, {"hz", x.hz}, {"tick", x.tick}, {"highres", x.highres}, {"cpus", x.cpus},
                  {"io_queues", io_queues(h)}};
    if (!x.uname_r.empty()) hs[x.name]["uname_r"] = x.uname_r;
  }
  j["hosts"] = hs;
  if (!device.empty()) {
    j["device"] = device;
    j["device_from"] = device_from;
  }
  oj rs = oj::array();
  for (const auto& r : runs) {
    oj lines = oj::object(), iv = oj::array();
    int prev = -1;
    for (size_t k = 0; k < kBootLines; ++k) {
      if (!r.lines.has[k]) continue;
      lines[boot_line_name(static_cast<BootLine>(k))] = {{"line", r.lines.line[k]}, {"ns", r.lines.ns[k]}};
      if (prev >= 0)
        iv.push_back({{"from", boot_line_name(static_cast<BootLine>(prev))}, {"to", boot_line_name(static_cast<BootLine>(k))},
                      {"ms", static_cast<double>(r.lines.ns[k] - r.lines.ns[static_cast<size_t>(prev)]) / 1e6}});
      prev = static_cast<int>(k);
    }
    rs.push_back({{"host", hosts[r.host].name}, {"kind", r.kind}, {"log", r.source}, {"lines", lines}, {"intervals", iv}});
  }
  j["runs"] = rs;
  return j;
}

}  // namespace nvmesim
