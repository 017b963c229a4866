#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

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
    // A symbolic link whose target does not exist is no file that "exists" (issue 16 item 22).
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && ::stat(path.c_str(), &st) != 0)
      throw IoError(path + ": is a symbolic link to a path that does not exist (a dangling link); remove it or "
                           "give another folder");
    throw IoError(path + ": exists and is not a folder");
  }
  throw IoError(path + ": cannot create the folder (" + std::strerror(errno) + ")");
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

void require_file_if_present(const std::string& path, const std::string& what) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;
  throw InputError::in_source(path, std::string(S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file") +
                                        ", expected a file (" + what +
                                        "); move it out of the sweep folder, then run the sweep again with --resume");
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
  // In blocks, so that a small file costs its size, not max_bytes of zeroed memory.
  char buf[16384];
  while (s.size() < max_bytes) {
    in.read(buf, static_cast<std::streamsize>(std::min(sizeof buf, max_bytes - s.size())));
    if (in.gcount() <= 0) break;
    s.append(buf, static_cast<size_t>(in.gcount()));
  }
  return s;
}

namespace {

ojson sweep_json(const Sweep& sw) {
  ojson s;
  s["name"] = sw.name;
  s["description"] = sw.description;
  s["id"] = sw.id;
  // Trials per point; left out when an axis sets /trials, since then the points' own parameters
  // say it (issue 16 item 22: the base's count was reported as the sweep's).
  const bool trials_axis =
      std::any_of(sw.axes.begin(), sw.axes.end(), [](const SweepAxis& a) { return a.pointer == "/trials"; });
  if (!trials_axis) s["trials"] = sw.trials;
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
    if (!st.outputs.is_null()) j["outputs"] = st.outputs;
    if (!st.jsonl.is_null()) j["jsonl"] = st.jsonl;
  } else if (st.status == PointStatus::failed) {
    j["error"] = st.error;
  }
  return j;
}

}  // namespace

// ---- manifest -----------------------------------------------------------------------------------

void write_manifest(const std::string& dir, const Sweep& sw, const Shard& shard, const ojson& run,
                    const SweepOutputs& outputs, const std::vector<PointState>& states) {
  ojson m;
  m["schema"] = kManifestSchema;
  m["tool"] = tool_json();
  m["sweep"] = sweep_json(sw);
  m["shard"] = {{"index", shard.index}, {"count", shard.count}};
  m["run"] = run;
  if (outputs.any()) m["outputs"] = outputs.to_json();
  ojson pts = ojson::array();
  for (const auto& st : states) pts.push_back(point_json(st, true));
  m["points"] = pts;
  AtomicFile f(dir + "/manifest.json");
  f.write(m.dump(2) + "\n");
  f.commit();
}

void check_manifest_matches(const std::string& manifest_path, const Sweep& sw, const Shard& shard,
                            const SweepOutputs& outputs) {
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
  const ojson had = m.contains("outputs") ? m["outputs"] : ojson();
  if (had != outputs.to_json())
    throw InputError::in_source(manifest_path, "was written with the point outputs " + (had.is_null() ? std::string("(none)") : had.dump()) +
                                                     ", this run selects " + (outputs.any() ? outputs.to_json().dump() : std::string("none")) +
                                                     "; resume with the same --trace, --vcd, --dmesg and trial selections, or use a new --out folder");
}

// ---- preparing a run ------------------------------------------------------------------------------

int lock_dir(const std::string& dir) {
  make_dir(dir);
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) throw IoError(dir + ": cannot open (" + std::strerror(errno) + ")");
  if (::flock(dir_fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(dir_fd);
    // Another live sweep holds the folder: a usage error the user fixes (wait, or another --out),
    // exit 2 like every other refusal of a folder; only a lock that cannot be taken at all is I/O.
    if (e == EWOULDBLOCK)
      throw InputError::in_source(dir, "in use by another 'nvmesim sweep' (it holds the folder's lock); wait for it "
                                       "to end or choose another --out folder");
    throw IoError(dir + ": cannot lock the folder (" + std::strerror(e) + ")");
  }
  return dir_fd;
}

namespace {

/// Whether `s` is one or more decimal digits.
bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

/// Whether `name` in DIR/points is the temporary of a worker's output for one of the sweep's point
/// ids `ids` (the worker was killed before it renamed it): ".<id><ext>.tmp.<pid>.<n>" of an
/// AtomicFile (core/atomic_file.cpp) or ".<id>.vcd.sc.<pid>.vcd" of SystemC's VCD writer
/// (outputs/vcd.cpp), <ext> one of ".jsonl" and the SweepOutputs extensions.
bool is_worker_temporary(const std::string& name, const std::set<std::string>& ids) {
  if (name.size() < 2 || name[0] != '.') return false;
  std::string target;
  const size_t t = name.rfind(".tmp."), sc = name.rfind(".sc.");
  if (t != std::string::npos) {
    const std::string rest = name.substr(t + 5);  // "<pid>.<n>"
    const size_t dot = rest.find('.');
    if (dot == std::string::npos || !all_digits(rest.substr(0, dot)) || !all_digits(rest.substr(dot + 1))) return false;
    target = name.substr(1, t - 1);
  } else if (sc != std::string::npos) {
    const std::string rest = name.substr(sc + 4);  // "<pid>.vcd"
    if (rest.size() < 5 || rest.compare(rest.size() - 4, 4, ".vcd") != 0 || !all_digits(rest.substr(0, rest.size() - 4)))
      return false;
    target = name.substr(1, sc - 1);
    if (target.size() < 4 || target.compare(target.size() - 4, 4, kVcdExt) != 0) return false;
  } else {
    return false;
  }
  for (const char* ext : {".jsonl", kTraceExt, kVcdExt, kDmesgExt}) {
    const size_t n = std::strlen(ext);
    if (target.size() > n && target.compare(target.size() - n, n, ext) == 0 && ids.count(target.substr(0, target.size() - n)))
      return true;
  }
  return false;
}

/// Whether `name` in DIR/.work is a worker's scratch file: "<id>.json" (its scenario),
/// "<id>.stderr" or "<id>.check.json" (a forked worker's check of its outputs) for one of the
/// sweep's point ids.
bool is_worker_scratch(const std::string& name, const std::set<std::string>& ids) {
  for (const char* ext : {".json", ".stderr", ".check.json"}) {
    const size_t n = std::strlen(ext);
    if (name.size() > n && name.compare(name.size() - n, n, ext) == 0 && ids.count(name.substr(0, name.size() - n)))
      return true;
  }
  return false;
}

/// DIR/.work must be a folder of DIR's own, not a symbolic link: each worker runs in it and writes
/// its outputs to "../points" from there, which is DIR/points only when DIR/.work's parent is DIR
/// (review of stop 27: through a link to another folder, the points went to that folder's points/,
/// and the workers' own checks of them said done). Throws InputError otherwise.
void require_own_work_dir(const SweepDirs& d) {
  struct stat work, up, dir;
  const bool link = ::lstat(d.work.c_str(), &work) == 0 && S_ISLNK(work.st_mode);
  const bool same = ::stat((d.work + "/..").c_str(), &up) == 0 && ::stat(d.dir.c_str(), &dir) == 0 &&
                    up.st_dev == dir.st_dev && up.st_ino == dir.st_ino;
  if (link || !same)
    throw InputError::in_source(d.work, std::string(link ? "is a symbolic link" : "is not a folder inside " + d.dir) +
                                            "; the sweep's workers run in it and write to ../points, so it must be "
                                            "a plain folder of the sweep folder: remove it (the sweep makes it)");
}

/// Removes what an interrupted run of this sweep (SIGKILL, power loss) left: its workers'
/// temporaries in DIR/points and their scratch files in DIR/.work, recognised by name, and
/// nothing else (issue 16 item 15: a new sweep removed every file there). Throws InputError,
/// before removing anything, when DIR/.work holds a file this tool did not make.
void remove_leftovers(const SweepDirs& d, const Sweep& sw) {
  std::set<std::string> ids;
  for (const auto& p : sw.points) ids.insert(p.id);
  const std::vector<std::string> work = list_dir(d.work);
  for (const auto& n : work) {
    if (is_worker_scratch(n, ids)) require_file_if_present(d.work + "/" + n, "a worker's scratch file");
    if (!is_worker_scratch(n, ids))
      throw InputError::in_source(d.work + "/" + n, "is not a file of this sweep's workers; " + d.work +
                                                        " is the sweep's scratch folder: move the file elsewhere");
  }
  for (const auto& n : list_dir(d.points))
    if (is_worker_temporary(n, ids)) {
      require_file_if_present(d.points + "/" + n, "a worker's temporary output");
      std::remove((d.points + "/" + n).c_str());
    }
  for (const auto& n : work) std::remove((d.work + "/" + n).c_str());
}

}  // namespace

std::vector<PointState> pending_states(const Sweep& sw, const Shard& shard) {
  std::vector<PointState> states;
  for (const auto& p : sw.points)
    if (in_shard(p.index, shard)) {
      PointState st;
      st.point = &p;
      states.push_back(std::move(st));
    }
  return states;
}

void prepare_dir(const SweepDirs& d, const Sweep& sw, const Shard& shard, bool resume, const ojson& run,
                 const SweepOutputs& outputs) {
  const std::string manifest_path = d.dir + "/manifest.json";
  bool has_results = file_exists(manifest_path);
  for (const auto& n : list_dir(d.points))
    if (n.size() > 6 && n[0] != '.' && n.compare(n.size() - 6, 6, ".jsonl") == 0) has_results = true;
  if (has_results && !resume)
    throw InputError::in_source(
        d.dir, "already holds sweep results; add --resume to continue that sweep, or choose a new --out folder");
  if (file_exists(manifest_path)) check_manifest_matches(manifest_path, sw, shard, outputs);
  else if (file_exists(d.work)) {  // checked before the folder is claimed
    require_own_work_dir(d);
    remove_leftovers(d, sw);
  }
  // The claim (issue 16 item 13): the manifest, every point pending, is in DIR before anything
  // else of the sweep is, so that a sweep killed from here on leaves a folder that another sweep
  // or shard refuses, and a new run of this one takes only with --resume.
  if (!file_exists(manifest_path)) write_manifest(d.dir, sw, shard, run, outputs, pending_states(sw, shard));
  make_dir(d.points);
  make_dir(d.work);
  require_own_work_dir(d);
  remove_leftovers(d, sw);
}

namespace {

/// What the manifest in DIR (already checked by prepare_dir) records of its done points, by id:
/// their "outputs" and their "jsonl" (null when a point has none); empty without a manifest.
struct Recorded {
  ojson outputs, jsonl;
};
std::map<std::string, Recorded> recorded_points(const SweepDirs& d) {
  std::map<std::string, Recorded> out;
  const std::string path = d.dir + "/manifest.json";
  if (!file_exists(path)) return out;
  const ojson m = parse_json_text(read_text_file(path), path);
  for (const auto& p : m["points"])
    if (p.value("status", "") == "done" && p.contains("id") && p["id"].is_string())
      out[p["id"].get<std::string>()] = {p.contains("outputs") ? p["outputs"] : ojson(),
                                         p.contains("jsonl") ? p["jsonl"] : ojson()};
  return out;
}

/// The other point of `sw` whose scenario the point file at `path` (point `self`'s) holds, or
/// null (issue 16's last findings, item 8: point files swapped between two points were blamed on
/// a changed sweep file). Runs only when the file's scenario is not `self`'s: each candidate is
/// first matched on its parameters (a pointer lookup each), then on its whole scenario.
const SweepPoint* point_whose_scenario_is(const Sweep& sw, const std::string& path, const SweepPoint& self) {
  ojson held;
  if (!read_point_header_scenario(path, held)) return nullptr;
  for (const SweepPoint& q : sw.points) {
    if (q.index == self.index) continue;
    try {
      bool same = true;
      for (const auto& item : q.parameters.items()) {
        const ojson::json_pointer ptr(item.key());
        if (!(same = held.contains(ptr) && held.at(ptr) == item.value())) break;
      }
      if (same && point_scenario(sw, q) == held) return &q;
    } catch (const std::exception&) {
      // an axis pointer the held scenario does not have, or a point that fails to build: not it
    }
  }
  return nullptr;
}

}  // namespace

std::vector<PointState> shard_states(const SweepDirs& d, const Sweep& sw, const Shard& shard, const SweepOutputs& outputs,
                                     size_t& skipped) {
  std::vector<PointState> states = pending_states(sw, shard);
  const std::map<std::string, Recorded> recorded = recorded_points(d);
  skipped = 0;
  for (auto& st : states) {
    const std::string path = d.points + "/" + st.point->id + ".jsonl";
    require_file_if_present(path, "point " + std::to_string(st.point->index) + "'s point file");
    for (const auto& n : extra_output_names(outputs, st.point->id))
      require_file_if_present(d.points + "/" + n, "an output of point " + std::to_string(st.point->index));
    if (!file_exists(path)) continue;  // the scenario of each point is built only when needed (a 1 MB base)
    FileState fs = read_point_file(path, point_scenario(sw, *st.point), st.summary);
    // The worker renames its outputs together, and the manifest records their sizes and hashes
    // when the point is done: a complete .jsonl whose other outputs are missing, truncated,
    // replaced, or not recorded (the sweep was killed before it wrote the manifest) is run again
    // (issue 16: a truncated or foreign .dmesg / .trace.json was kept because it existed).
    const auto rec = recorded.find(st.point->id);
    if (fs == FileState::complete && outputs.any()) {
      const ojson now = output_records(outputs, d.points, st.point->id);
      if (rec == recorded.end() || now.is_null() || rec->second.outputs != now) fs = FileState::incomplete;
      else st.outputs = now;
    }
    // The .jsonl's own size and hash, when the manifest recorded them (a point completed after the
    // last manifest, by a sweep killed before it wrote one, has only its line checks): a trial
    // line edited in place, which keeps the count and the summary, is run again (issue 16 item 16).
    if (fs == FileState::complete) {
      st.jsonl = jsonl_record(path);
      // A point the manifest says is done but whose record is missing (an older manifest, or a
      // record deleted beside an edit) cannot be checked: run it again.
      if (st.jsonl.is_null() || (rec != recorded.end() && (rec->second.jsonl.is_null() || rec->second.jsonl != st.jsonl)))
        fs = FileState::incomplete;
    }
    if (fs == FileState::complete) {
      st.status = PointStatus::done;
      ++skipped;
    } else if (fs == FileState::other_scenario) {
      if (const SweepPoint* q = point_whose_scenario_is(sw, path, *st.point))
        throw InputError::in_source(path, "is point " + std::to_string(st.point->index) + "'s file (id " + st.point->id +
                                              ") but holds point " + std::to_string(q->index) + "'s scenario (id " + q->id +
                                              "): the point files were renamed or swapped; move it back to " + d.points +
                                              "/" + q->id + ".jsonl, or remove it to run point " +
                                              std::to_string(st.point->index) + " again");
      throw InputError::in_source(path, "holds another scenario than point " + std::to_string(st.point->index) +
                                            " of this sweep; the sweep file or its base changed; use a new --out folder");
    } else if (fs == FileState::incomplete) {
      std::remove(path.c_str());
    }
  }
  return states;
}

}  // namespace nvmesim::sweep_detail
