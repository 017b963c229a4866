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

size_t first_line(const LogRun& r) {
  for (size_t k = 0; k < kBootLines; ++k)
    if (r.has[k]) return r.line[k];
  return 0;
}

// Every interval between consecutive present kinds lies in [1 us, kMaxLogIntervalNs].
void check_intervals(const LogRun& r, const std::string& source) {
  int prev = -1;
  for (size_t k = 0; k < kBootLines; ++k) {
    if (!r.has[k]) continue;
    if (prev >= 0) {
      const size_t p = static_cast<size_t>(prev);
      const int64_t d = r.ns[k] - r.ns[p];
      const std::string what = "line " + std::to_string(r.line[k]) + ": the \"" + boot_line_name(static_cast<BootLine>(k)) +
                               "\" line is ";
      const std::string ref = " the \"" + std::string(boot_line_name(static_cast<BootLine>(p))) + "\" line " +
                              std::to_string(r.line[p]);
      if (d < 0)
        throw InputError::in_source(source, what + "earlier than" + ref + "; each stage follows the one before it");
      if (d == 0)
        throw InputError::in_source(source, what + "at the same time as" + ref +
                                                " (0 us apart): every stage takes time; the log's times are not the kernel's");
      if (d > kMaxLogIntervalNs)
        throw InputError::in_source(source, what + std::to_string(d / 1000000000) + " s after" + ref +
                                                "; an interval may be at most 300 s (Linux gives up after CAP.TO, at most "
                                                "127.5 s, per wait; the boot-stage priors end at 10 s): a suspend or a "
                                                "clock jump in the log?");
    }
    prev = static_cast<int>(k);
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
  // The time going backwards ends the open run, as in nvmesim dmesg (a log of several boots):
  // the lines after it count only from the next run start on.
  bool closed = false;
  int64_t last_ns = 0;
  size_t last_line = 0;
  for (const auto& [n, l] : lines) {
    if (l.timed) {
      if (last_line && l.ns < last_ns && !runs.empty() && !closed) {
        if (!runs.back().present(BootLine::queues))
          throw InputError::in_source(source, "line " + std::to_string(n) + ": the time goes backwards (line " +
                                                  std::to_string(last_line) + " is later) inside the run of line " +
                                                  std::to_string(first_line(runs.back())) +
                                                  ", before its queues line; keep one boot's lines in order");
        closed = true;
      }
      last_ns = l.ns, last_line = n;
    }
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
      if (kr.kind == start) runs.emplace_back(), closed = false;
      if (runs.empty() || closed) break;  // before the first run, or after its time went backwards: ignored
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
  for (const LogRun& r : runs) check_intervals(r, source);
  if (runs.empty())
    throw InputError::in_source(source, "no driver-init line (initcall nvme_init, nvme_init, or an \"nvmesim: ... start\" "
                                        "marker) and no \"pci function\" line: no interval can start");
  return runs;
}

}  // namespace nvmesim
