#include "tools/boot_lines.hpp"

#include <regex>

#include "core/errors.hpp"
#include "tools/dmesg_lines.hpp"
#include "tools/dmesg_reader.hpp"

namespace nvmesim {

const char* boot_line_name(BootLine k) {
  static const char* const names[kBootLines] = {"init", "pci", "queues", "part", "mounted", "vfs", "run_init"};
  return names[static_cast<size_t>(k)];
}

namespace {

struct KindRegex {
  BootLine kind;
  std::regex rx;
};

// The messages of each kind, searched from the start of the kernel's message (section 1.3 of the
// fit design). std::regex (ECMAScript), as the dmesg reader.
const std::vector<KindRegex>& kind_table() {
  using std::regex;
  static const std::vector<KindRegex> t = {
      {BootLine::init, regex(R"(^(initcall nvme_init\+0x[0-9a-f]+/0x[0-9a-f]+( \[nvme\])? returned|nvme_init\b|nvmesim: (boot|reload|reset) start))")},
      {BootLine::pci, regex(R"(^nvme (nvme[0-9]+): pci function [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])")},
      {BootLine::queues, regex(R"(^nvme (nvme[0-9]+): ([0-9]+)/([0-9]+)/([0-9]+) default/read/poll queues)")},
      {BootLine::part, regex(R"(^\s*(nvme[0-9]+)n[0-9]+: (p[0-9]+|unknown partition table))")},
      {BootLine::mounted, regex(R"(^(EXT4-fs \(\S+\): mounted filesystem|XFS \(\S+\): Ending clean mount))")},
      {BootLine::vfs, regex(R"(^VFS: Mounted root \(\w+ filesystem\))")},
      {BootLine::run_init, regex(R"(^Run \S+ as init process)")},
  };
  return t;
}

const std::regex& not_ready_regex() {
  static const std::regex rx(R"(^nvme nvme[0-9]+: Device not ready; aborting)");
  return rx;
}

}  // namespace

std::vector<LogRun> read_log_runs(const std::string& text, const std::string& source) {
  std::vector<std::pair<size_t, dmesg_detail::DmesgLine>> lines;
  bool any_init = false;
  size_t pos = 0, no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string raw = text.substr(pos, std::min(nl - pos, kDmesgMaxLineBytes));
    pos = nl + 1;
    ++no;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    auto l = dmesg_detail::split_dmesg_line(raw);
    if (std::regex_search(l.msg, kind_table()[0].rx)) any_init = true;
    lines.emplace_back(no, std::move(l));
  }
  const BootLine start = any_init ? BootLine::init : BootLine::pci;
  std::vector<LogRun> runs;
  for (const auto& [n, l] : lines) {
    if (std::regex_search(l.msg, not_ready_regex()))
      throw InputError::in_source(source, "line " + std::to_string(n) + ": \"Device not ready\": failed probes cannot be fitted yet; remove the run from the log");
    for (const auto& kr : kind_table()) {
      std::smatch m;
      if (!std::regex_search(l.msg, m, kr.rx)) continue;
      const size_t k = static_cast<size_t>(kr.kind);
      if (!l.timed)
        throw InputError::in_source(source, "line " + std::to_string(n) + ": a " + boot_line_name(kr.kind) +
                                                " line without a timestamp (dmesg -t?); use plain dmesg");
      if (kr.kind == start) runs.emplace_back();
      if (runs.empty()) break;  // before the first run: ignored
      LogRun& r = runs.back();
      if (r.has[k])
        throw InputError::in_source(source, "line " + std::to_string(n) + ": a second \"" + boot_line_name(kr.kind) +
                                                "\" line in the run of line " + std::to_string(r.line[k]) +
                                                "; one probe per run: add the driver-init line or split the log");
      if (kr.kind == BootLine::pci || kr.kind == BootLine::queues || kr.kind == BootLine::part) {
        const std::string c = m[1].str();
        if (!r.ctrl.empty() && c != r.ctrl)
          throw InputError::in_source(source, "line " + std::to_string(n) + ": a line of " + c + " in a run of " + r.ctrl +
                                                "; one controller per run is supported (keep only the lines of one device)");
        r.ctrl = c;
      }
      if (kr.kind == BootLine::queues) r.io_queues = std::stoi(m[2].str());
      r.has[k] = true;
      r.ns[k] = l.ns;
      r.line[k] = n;
      break;
    }
  }
  if (runs.empty())
    throw InputError::in_source(source, "no driver-init line (initcall nvme_init, nvme_init, or an \"nvmesim: ... start\" "
                                        "marker) and no \"pci function\" line: no interval can start");
  return runs;
}

}  // namespace nvmesim
