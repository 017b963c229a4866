#include "tools/boot_lines.hpp"

#include <memory>

#include <re2/re2.h>

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
  std::unique_ptr<re2::RE2> rx;
};

std::unique_ptr<re2::RE2> rx(const char* pattern) { return std::make_unique<re2::RE2>(pattern); }

// The messages of each kind, searched from the start of the kernel's message (RE2, as the dmesg
// reader). pci, queues and part capture the controller ("nvme0"); queues also its I/O queue count.
const std::vector<KindRegex>& kind_table() {
  static const std::vector<KindRegex> t = [] {
    std::vector<KindRegex> v;
    v.push_back({BootLine::init, rx(R"(^(?:initcall nvme_init\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[nvme\])? returned|nvme_init\b|nvmesim: (?:boot|reload|reset) start))")});
    v.push_back({BootLine::pci, rx(R"(^nvme (nvme[0-9]+): pci function [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])")});
    v.push_back({BootLine::queues, rx(R"(^nvme (nvme[0-9]+): ([0-9]+)/[0-9]+/[0-9]+ default/read/poll queues)")});
    v.push_back({BootLine::part, rx(R"(^\s*(nvme[0-9]+)n[0-9]+: (?:p[0-9]+|unknown partition table))")});
    v.push_back({BootLine::mounted, rx(R"(^(?:EXT4-fs \(\S+\): mounted filesystem|XFS \(\S+\): Ending clean mount))")});
    v.push_back({BootLine::vfs, rx(R"(^VFS: Mounted root \(\w+ filesystem\))")});
    v.push_back({BootLine::run_init, rx(R"(^Run \S+ as init process)")});
    return v;
  }();
  return t;
}

const re2::RE2& not_ready_regex() {
  static const re2::RE2 r(R"(^nvme nvme[0-9]+: Device not ready; aborting)");
  return r;
}

// Matches `msg` against kind k; fills the controller and queue count where the kind has them.
bool match_kind(const KindRegex& kr, const std::string& msg, std::string& ctrl, int& queues) {
  const re2::StringPiece m(msg.data(), msg.size());
  switch (kr.kind) {
    case BootLine::queues: return re2::RE2::PartialMatch(m, *kr.rx, &ctrl, &queues);
    case BootLine::pci:
    case BootLine::part: return re2::RE2::PartialMatch(m, *kr.rx, &ctrl);
    default: return re2::RE2::PartialMatch(m, *kr.rx);
  }
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
    if (re2::RE2::PartialMatch(re2::StringPiece(l.msg.data(), l.msg.size()), *kind_table()[0].rx)) any_init = true;
    lines.emplace_back(no, std::move(l));
  }
  const BootLine start = any_init ? BootLine::init : BootLine::pci;
  std::vector<LogRun> runs;
  for (const auto& [n, l] : lines) {
    if (re2::RE2::PartialMatch(re2::StringPiece(l.msg.data(), l.msg.size()), not_ready_regex()))
      throw InputError::in_source(source, "line " + std::to_string(n) + ": \"Device not ready\": failed probes cannot be fitted yet; remove the run from the log");
    for (const auto& kr : kind_table()) {
      std::string c;
      int q = 0;
      if (!match_kind(kr, l.msg, c, q)) continue;
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
        if (!r.ctrl.empty() && c != r.ctrl)
          throw InputError::in_source(source, "line " + std::to_string(n) + ": a line of " + c + " in a run of " + r.ctrl +
                                                "; one controller per run is supported (keep only the lines of one device)");
        r.ctrl = c;
      }
      if (kr.kind == BootLine::queues) r.io_queues = q;
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
