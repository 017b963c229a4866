// Reading back a point file DIR/points/<id>.jsonl (`nvmesim run --format jsonl`: a header line,
// one line per trial, variant-major and trial 0 first, then the summary line) to tell whether
// --resume may keep it. A file is complete only when every trial line the summary counts is
// there, in order (issue 16 item 16: a file whose trial lines were deleted but whose header and
// summary remained counted as complete).
#include <algorithm>
#include <cstring>
#include <fstream>

#include "core/json_text.hpp"
#include "core/tool.hpp"
#include "sweep/folder.hpp"

namespace nvmesim::sweep_detail {

using ojson = nlohmann::ordered_json;

namespace {

/// A line longer than this is no line of ours (the header holds at most the 16 MiB of an input
/// file as JSON), and is not read whole (issue 16 item 11: a 1.5 GB file without a newline took
/// 2.1 GB on --resume).
constexpr size_t kMaxLineBytes = size_t{64} << 20;

/// Reads a file line by line in blocks, each line at most kMaxLineBytes.
class LineReader {
 public:
  explicit LineReader(std::ifstream& in) : in_(in) {}
  /// The next line without its newline; false at the end of the file, for a last line without a
  /// newline, and for a line longer than kMaxLineBytes.
  bool next(std::string& line) {
    line.clear();
    while (true) {
      const char* nl = static_cast<const char*>(std::memchr(buf_.data() + pos_, '\n', buf_.size() - pos_));
      if (nl) {
        const size_t end = static_cast<size_t>(nl - buf_.data());
        line.append(buf_, pos_, end - pos_);
        pos_ = end + 1;
        return line.size() <= kMaxLineBytes;
      }
      line.append(buf_, pos_, std::string::npos);
      if (line.size() > kMaxLineBytes) return false;
      buf_.resize(kBlockBytes);
      in_.read(&buf_[0], static_cast<std::streamsize>(kBlockBytes));
      buf_.resize(static_cast<size_t>(in_.gcount()));
      pos_ = 0;
      if (buf_.empty()) return false;
    }
  }
  /// Whether the whole file has been read.
  bool at_end() {
    if (pos_ < buf_.size()) return false;
    return in_.peek() == std::char_traits<char>::eof();
  }

 private:
  static constexpr size_t kBlockBytes = 1 << 16;
  std::ifstream& in_;
  std::string buf_;
  size_t pos_ = 0;
};

/// Whether the trial lines after the header are exactly those the summary `s` counts: for each
/// variant in order, trials 0 .. trials-1, each line {"record":"trial","variant":NAME,"trial":K,...},
/// then the summary line and the end of the file. Every variant ran the scenario's "trials"
/// (`scenario_trials`; when the scenario leaves it to its default, every variant as many as the first).
bool trial_lines_match(LineReader& lines, const ojson& s, ojson scenario_trials) {
  std::string line, prefix;
  for (const auto& v : s["variants"]) {
    if (!v.is_object() || !v.contains("name") || !v["name"].is_string() || !v.contains("summary")) return false;
    const ojson n = v["summary"].is_object() ? v["summary"].value("trials", ojson()) : ojson();
    if (scenario_trials.is_null()) scenario_trials = n;
    if (!n.is_number_unsigned() || n != scenario_trials) return false;
    const std::string head = "{\"record\":\"trial\",\"variant\":" + v["name"].dump() + ",\"trial\":";
    for (uint64_t k = 0, trials = n.get<uint64_t>(); k < trials; ++k) {
      prefix = head + std::to_string(k) + ",";
      if (!lines.next(line) || line.compare(0, prefix.size(), prefix) != 0 || line.back() != '}') return false;
    }
  }
  return lines.next(line) && lines.at_end();  // the summary line, last
}

/// The last line of a file (without its newline), read backwards so that a large file costs
/// little. Empty when the file does not end with a newline (then it is not complete) or the line
/// is longer than kMaxLineBytes.
std::string last_line(std::ifstream& in) {
  in.clear();
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size <= 0) return {};
  char c = 0;
  in.seekg(size - 1);
  in.get(c);
  if (c != '\n') return {};
  std::string tail;
  std::streamoff pos = size - 1;
  const std::streamoff chunk = 65536;
  while (pos > 0 && tail.size() <= kMaxLineBytes) {
    const std::streamoff start = std::max<std::streamoff>(0, pos - chunk);
    std::string buf(static_cast<size_t>(pos - start), '\0');
    in.seekg(start);
    in.read(&buf[0], static_cast<std::streamsize>(buf.size()));
    tail.insert(0, buf);
    const size_t nl = tail.rfind('\n');
    if (nl != std::string::npos) return tail.substr(nl + 1);
    pos = start;
  }
  return {};
}

}  // namespace

bool read_point_summary(const std::string& path, ojson& summary) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  const std::string last = last_line(in);
  if (last.empty()) return false;
  try {
    ojson s = ojson::parse(last);
    if (!s.is_object() || s.value("record", "") != "summary" || !s.contains("variants")) return false;
    summary = std::move(s);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

bool read_point_header_scenario(const std::string& path, ojson& scenario) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  LineReader lines(in);
  std::string first;
  if (!lines.next(first)) return false;
  try {
    ojson h = ojson::parse(first);
    if (!h.is_object() || h.value("record", "") != "header" || !h.contains("scenario")) return false;
    scenario = std::move(h["scenario"]);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

FileState read_point_file(const std::string& path, const ojson& scenario, ojson& summary) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileState::missing;
  LineReader lines(in);
  std::string first;
  if (!lines.next(first)) return FileState::incomplete;  // no newline: not complete
  try {
    const ojson h = ojson::parse(first);
    if (!h.is_object() || h.value("record", "") != "header" || !h.contains("scenario")) return FileState::incomplete;
    if (h["scenario"] != scenario) return FileState::other_scenario;
    if (h.value("tool", ojson()) != tool_json()) return FileState::incomplete;  // another version: run again
    std::ifstream back(path, std::ios::binary);
    const std::string last = last_line(back);
    if (last.empty()) return FileState::incomplete;
    ojson s = ojson::parse(last);
    if (!s.is_object() || s.value("record", "") != "summary" || !s.contains("variants") || !s["variants"].is_array())
      return FileState::incomplete;
    if (!trial_lines_match(lines, s, scenario.value("trials", ojson()))) return FileState::incomplete;
    summary = std::move(s);
    return FileState::complete;
  } catch (const std::exception&) {
    return FileState::incomplete;
  }
}

}  // namespace nvmesim::sweep_detail
