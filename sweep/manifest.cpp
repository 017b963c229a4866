#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomic_file.hpp"
#include "core/json_text.hpp"
#include "core/tool.hpp"
#include "sweep/folder.hpp"

namespace nvmesim::sweep_detail {

using ojson = nlohmann::ordered_json;

// ---- files ------------------------------------------------------------------------------------

void make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0777) == 0 || errno == EEXIST) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return;
    throw IoError(path + ": exists and is not a folder");
  }
  throw IoError(path + ": cannot create the folder (" + std::strerror(errno) + ")");
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> out;
  DIR* d = ::opendir(path.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_small_file(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string s;
  if (!in) return s;
  s.resize(max_bytes);
  in.read(&s[0], static_cast<std::streamsize>(max_bytes));
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

namespace {

/// The last line of a file (without its newline), read backwards so that a large file costs
/// little. Empty when the file does not end with a newline (then it is not complete).
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
  while (pos > 0) {
    const std::streamoff start = std::max<std::streamoff>(0, pos - chunk);
    std::string buf(static_cast<size_t>(pos - start), '\0');
    in.seekg(start);
    in.read(&buf[0], static_cast<std::streamsize>(buf.size()));
    tail.insert(0, buf);
    const size_t nl = tail.rfind('\n');
    if (nl != std::string::npos) return tail.substr(nl + 1);
    pos = start;
  }
  return tail;
}

ojson sweep_json(const Sweep& sw) {
  ojson s;
  s["name"] = sw.name;
  s["description"] = sw.description;
  s["id"] = sw.id;
  s["trials"] = sw.trials;
  s["points"] = sw.points.size();
  ojson axes = ojson::array();
  for (const auto& a : sw.axes) {
    ojson j;
    j["pointer"] = a.pointer;
    j["kind"] = a.zip ? "zip" : "grid";
    j["values"] = a.values;
    axes.push_back(j);
  }
  s["axes"] = axes;
  s["scenario"] = sw.base;
  return s;
}

ojson point_json(const PointState& st, bool with_file) {
  ojson j;
  j["index"] = st.point->index;
  j["id"] = st.point->id;
  j["parameters"] = st.point->parameters;
  j["status"] = st.status == PointStatus::done ? "done" : st.status == PointStatus::failed ? "failed" : "pending";
  if (st.status == PointStatus::done) {
    if (with_file) j["file"] = "points/" + st.point->id + ".jsonl";
    j["variants"] = st.summary["variants"];
    j["paired"] = st.summary.contains("paired") ? st.summary["paired"] : ojson::array();
  } else if (st.status == PointStatus::failed) {
    j["error"] = st.error;
  }
  return j;
}

}  // namespace

FileState read_point_file(const std::string& path, const ojson& scenario, ojson& summary) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileState::missing;
  // The header line holds the resolved scenario (at most the 16 MiB of an input file, as JSON):
  // a first line longer than kMaxHeaderBytes is no header of ours, and is not read whole (issue 16
  // item 11: a 1.5 GB file without a newline took 2.1 GB on --resume).
  constexpr size_t kMaxHeaderBytes = size_t{64} << 20;
  std::string first;
  for (char buf[65536];;) {
    in.getline(buf, sizeof buf);
    const size_t got = static_cast<size_t>(in.gcount());
    if (in.good()) {  // the rest of the line and its newline (counted by gcount, not stored)
      first.append(buf, got - 1);
      break;
    }
    if (in.eof() || got != sizeof buf - 1) return FileState::incomplete;  // no newline: not complete
    first.append(buf, got);  // the buffer filled before the newline: read on
    if (first.size() > kMaxHeaderBytes) return FileState::incomplete;
    in.clear();
  }
  try {
    const ojson h = ojson::parse(first);
    if (!h.is_object() || h.value("record", "") != "header" || !h.contains("scenario")) return FileState::incomplete;
    if (h["scenario"] != scenario) return FileState::other_scenario;
    if (h.value("tool", ojson()) != tool_json()) return FileState::incomplete;  // another version: run again
    const std::string last = last_line(in);
    if (last.empty()) return FileState::incomplete;
    ojson s = ojson::parse(last);
    if (!s.is_object() || s.value("record", "") != "summary" || !s.contains("variants")) return FileState::incomplete;
    summary = std::move(s);
    return FileState::complete;
  } catch (const std::exception&) {
    return FileState::incomplete;
  }
}

// ---- manifest -----------------------------------------------------------------------------------

void write_manifest(const std::string& dir, const Sweep& sw, const Shard& shard, const ojson& run,
                    const std::vector<PointState>& states) {
  ojson m;
  m["schema"] = kManifestSchema;
  m["tool"] = tool_json();
  m["sweep"] = sweep_json(sw);
  m["shard"] = {{"index", shard.index}, {"count", shard.count}};
  m["run"] = run;
  ojson pts = ojson::array();
  for (const auto& st : states) pts.push_back(point_json(st, true));
  m["points"] = pts;
  AtomicFile f(dir + "/manifest.json");
  f.write(m.dump(2) + "\n");
  f.commit();
}

void check_manifest_matches(const std::string& manifest_path, const Sweep& sw, const Shard& shard) {
  const ojson m = parse_json_text(read_text_file(manifest_path), manifest_path);
  check_manifest(m, manifest_path);
  if (m["sweep"].value("id", "") != sw.id)
    throw InputError::in_source(manifest_path, "holds another sweep (id " + m["sweep"].value("id", "?") + ", this one is " + sw.id +
                                     "); the sweep file or its base changed; use a new --out folder");
  if (m.contains("shard") && (m["shard"].value("index", uint64_t{0}) != shard.index ||
                              m["shard"].value("count", uint64_t{1}) != shard.count))
    throw InputError::in_source(manifest_path, "was written by --shard " +
                                                     std::to_string(m["shard"].value("index", uint64_t{0})) + "/" +
                                                     std::to_string(m["shard"].value("count", uint64_t{1})) + "; resume it with that --shard");
}

// ---- preparing a run ------------------------------------------------------------------------------

int lock_dir(const std::string& dir) {
  make_dir(dir);
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) throw IoError(dir + ": cannot open (" + std::strerror(errno) + ")");
  if (::flock(dir_fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(dir_fd);
    throw IoError(dir + ": in use by another 'nvmesim sweep'; wait for it or choose another --out folder");
  }
  return dir_fd;
}

void prepare_dir(const SweepDirs& d, const Sweep& sw, const Shard& shard, bool resume) {
  const std::string manifest_path = d.dir + "/manifest.json";
  bool has_results = file_exists(manifest_path);
  for (const auto& n : list_dir(d.points))
    if (n.size() > 6 && n[0] != '.' && n.compare(n.size() - 6, 6, ".jsonl") == 0) has_results = true;
  if (has_results && !resume)
    throw InputError::in_source(
        d.dir, "already holds sweep results; add --resume to continue that sweep, or choose a new --out folder");
  if (file_exists(manifest_path)) check_manifest_matches(manifest_path, sw, shard);
  make_dir(d.points);
  make_dir(d.work);
  for (const auto& n : list_dir(d.points))
    if (n[0] == '.' && n.find(".jsonl.tmp.") != std::string::npos) std::remove((d.points + "/" + n).c_str());
  for (const auto& n : list_dir(d.work)) std::remove((d.work + "/" + n).c_str());
}

std::vector<PointState> shard_states(const SweepDirs& d, const Sweep& sw, const Shard& shard, size_t& skipped) {
  std::vector<PointState> states;
  for (const auto& p : sw.points)
    if (in_shard(p.index, shard)) {
      PointState st;
      st.point = &p;
      states.push_back(std::move(st));
    }
  skipped = 0;
  for (auto& st : states) {
    const std::string path = d.points + "/" + st.point->id + ".jsonl";
    const FileState fs = read_point_file(path, point_scenario(sw, *st.point), st.summary);
    if (fs == FileState::complete) {
      st.status = PointStatus::done;
      ++skipped;
    } else if (fs == FileState::other_scenario) {
      throw InputError::in_source(path, "holds another scenario than point " + std::to_string(st.point->index) +
                                            " of this sweep; the sweep file or its base changed; use a new --out folder");
    } else if (fs == FileState::incomplete) {
      std::remove(path.c_str());
    }
  }
  return states;
}

}  // namespace nvmesim::sweep_detail
