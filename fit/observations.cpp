#include "fit/observations.hpp"

#include <fstream>
#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/json_reader.hpp"
#include "core/json_text.hpp"
#include "host/linux/kernel_profile.hpp"

namespace nvmesim {

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

void read_machine(const JsonNode& n, Observations& o) {
  for (const char* k : {"lspci", "show_regs", "id_ctrl"})
    if (n.has(k)) n.at(k).fail("is not read by this version yet (docs/fit.md, limits); remove it");
  n.require_object({"controllers", "link"});
  if (n.has("controllers")) n.at("controllers").integer(1, 1);
  if (n.has("link")) o.link = n.at("link").choice(SChoices{{"bare-metal", "bare-metal"}, {"vm-emulated", "vm-emulated"}});
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
  if (root.has("machine")) read_machine(root.at("machine"), o);
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
  std::ifstream probe(path);
  if (!probe) throw IoError(path + ": cannot read the observation file");
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
