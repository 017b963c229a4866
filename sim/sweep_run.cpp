#include "sim/sweep_run.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <ostream>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/output.hpp"
#include "sim/scenario.hpp"
#include "sim/sweep_origin.hpp"
#include "sim/version.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

namespace {

const char* const kManifestSchema = "nvmesim.sweep-manifest/1";
const char* const kSummarySchema = "nvmesim.sweep-summary/1";

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

ojson tool_json() {
  ojson t;
  t["name"] = "nvmesim";
  t["version"] = kVersion;
  return t;
}

enum class FileState { missing, complete, incomplete, other_scenario };

/// Checks DIR/points/<id>.jsonl: complete when its header holds `scenario` and its last line is
/// the summary record (then `summary` receives it).
FileState read_point_file(const std::string& path, const ojson& scenario, ojson& summary) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileState::missing;
  std::string first;
  if (!std::getline(in, first)) return FileState::incomplete;
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

enum class PointStatus { pending, done, failed };

struct PointState {
  const SweepPoint* point = nullptr;
  PointStatus status = PointStatus::pending;
  std::string error;
  ojson summary;
};

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

void write_manifest(const std::string& dir, const Sweep& sw, const SweepRunOptions& opt, const std::vector<PointState>& states) {
  ojson m;
  m["schema"] = kManifestSchema;
  m["tool"] = tool_json();
  m["sweep"] = sweep_json(sw);
  m["shard"] = {{"index", opt.shard.index}, {"count", opt.shard.count}};
  m["run"] = sweep_run_record(opt.sweep_file);
  ojson pts = ojson::array();
  for (const auto& st : states) pts.push_back(point_json(st, true));
  m["points"] = pts;
  AtomicFile f(dir + "/manifest.json");
  f.write(m.dump(2) + "\n");
  f.commit();
}

// ---- workers ------------------------------------------------------------------------------------

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGXCPU: return "SIGXCPU";
    default: return "signal";
  }
}

/// The worker's error message: its last "nvmesim: ...error: " line, without that prefix and
/// without the name of its temporary scenario file; else its last line of output.
std::string worker_message(const std::string& stderr_text, const std::string& scenario_name) {
  std::string best, last;
  size_t pos = 0;
  while (pos < stderr_text.size()) {
    size_t nl = stderr_text.find('\n', pos);
    if (nl == std::string::npos) nl = stderr_text.size();
    std::string line = stderr_text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty() || line[0] == '\r') continue;
    last = line;
    for (const char* p : {"nvmesim: error: ", "nvmesim: internal error: "})
      if (line.rfind(p, 0) == 0) best = std::string(p == std::string("nvmesim: error: ") ? "" : "internal error: ") + line.substr(std::strlen(p));
  }
  std::string msg = best.empty() ? last : best;
  const std::string prefix = scenario_name + ": ";
  if (msg.rfind(prefix, 0) == 0) msg = msg.substr(prefix.size());
  if (msg.size() > 2000) msg = msg.substr(0, 2000) + "...";
  return msg;
}

struct Running {
  size_t state = 0;   // index into states
  pid_t pid = 0;
};

class Progress {
 public:
  Progress(bool enabled, size_t total) : tty_(enabled && ::isatty(2)), total_(total), start_(std::chrono::steady_clock::now()) {}
  /// `done` and `failed` count every point of the shard; `skipped` were complete before this run
  /// (they do not count towards the rate).
  void update(size_t done, size_t failed, size_t skipped, bool force) {
    if (!tty_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done + failed - skipped) / elapsed : 0;
    char left[32] = "--:--";
    if (rate > 0) {
      const long s = static_cast<long>(static_cast<double>(total_ - done - failed) / rate + 0.5);
      std::snprintf(left, sizeof left, "%ld:%02ld", s / 60, s % 60);
    }
    const int width = 30;
    const int filled = total_ ? static_cast<int>(width * static_cast<double>(done + failed) / static_cast<double>(total_)) : width;
    std::fprintf(stderr, "\r[%-*s] %zu/%zu points%s  %.2f points/s  %s left   ", width,
                 std::string(static_cast<size_t>(filled), '#').c_str(), done + failed, total_,
                 failed ? (" (" + std::to_string(failed) + " failed)").c_str() : "", rate, left);
    shown_ = true;
  }
  void clear() {
    if (shown_) std::fprintf(stderr, "\r%*s\r", 100, "");
    shown_ = false;
  }
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  bool tty() const { return tty_; }

 private:
  bool tty_;
  size_t total_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace

unsigned usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1u;
}

int run_sweep(const Sweep& sw, const SweepRunOptions& opt, std::ostream& err) {
  const std::string dir = opt.out_dir.empty() ? "." : opt.out_dir;
  const std::string points_dir = dir + "/points", work_dir = dir + "/.work";
  make_dir(dir);
  // One sweep at a time per folder: an advisory lock on the folder itself, released by the
  // kernel however this process ends.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) throw IoError(dir + ": cannot open (" + std::strerror(errno) + ")");
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{dir_fd};
  if (::flock(dir_fd, LOCK_EX | LOCK_NB) != 0)
    throw IoError(dir + ": in use by another 'nvmesim sweep'; wait for it or choose another --out folder");

  // Existing results: refuse without --resume; with it, they must be this sweep's, same shard.
  const std::string manifest_path = dir + "/manifest.json";
  bool has_results = file_exists(manifest_path);
  for (const auto& n : list_dir(points_dir))
    if (n.size() > 6 && n[0] != '.' && n.compare(n.size() - 6, 6, ".jsonl") == 0) has_results = true;
  if (has_results && !opt.resume)
    throw InputError(dir + ": already holds sweep results; add --resume to continue that sweep, or choose a new --out folder");
  if (file_exists(manifest_path)) {
    const ojson m = parse_json_text(read_text_file(manifest_path), manifest_path);
    if (!m.is_object() || m.value("schema", "") != kManifestSchema || !m.contains("sweep") || !m["sweep"].is_object())
      throw InputError(manifest_path + ": not an nvmesim sweep manifest");
    if (m["sweep"].value("id", "") != sw.id)
      throw InputError(manifest_path + ": holds another sweep (id " + m["sweep"].value("id", "?") + ", this one is " + sw.id +
                       "); the sweep file or its base changed; use a new --out folder");
    if (m.contains("shard") && (m["shard"].value("index", uint64_t{0}) != opt.shard.index ||
                                m["shard"].value("count", uint64_t{1}) != opt.shard.count))
      throw InputError(manifest_path + ": was written by --shard " + std::to_string(m["shard"].value("index", uint64_t{0})) + "/" +
                       std::to_string(m["shard"].value("count", uint64_t{1})) + "; resume it with that --shard");
  }
  make_dir(points_dir);
  make_dir(work_dir);
  // Leftovers of an interrupted run (SIGKILL, power loss): partial outputs and worker files.
  for (const auto& n : list_dir(points_dir))
    if (n[0] == '.' && n.find(".jsonl.tmp.") != std::string::npos) std::remove((points_dir + "/" + n).c_str());
  for (const auto& n : list_dir(work_dir)) std::remove((work_dir + "/" + n).c_str());

  std::vector<PointState> states;
  for (const auto& p : sw.points)
    if (in_shard(p.index, opt.shard)) {
      PointState st;
      st.point = &p;
      states.push_back(std::move(st));
    }
  size_t skipped = 0;
  for (auto& st : states) {
    const std::string path = points_dir + "/" + st.point->id + ".jsonl";
    const FileState fs = read_point_file(path, point_scenario(sw, *st.point), st.summary);
    if (fs == FileState::complete) {
      st.status = PointStatus::done;
      ++skipped;
    } else if (fs == FileState::other_scenario) {
      throw InputError(path + ": holds another scenario than point " + std::to_string(st.point->index) +
                       " of this sweep; the sweep file or its base changed; use a new --out folder");
    } else if (fs == FileState::incomplete) {
      std::remove(path.c_str());
    }
  }

  // Signals: SIGCHLD, SIGINT and SIGTERM arrive through a signalfd, so the loop below can wait
  // for "a worker ended or we were asked to stop" in one poll().
  sigset_t mask, old_mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  if (::sigprocmask(SIG_BLOCK, &mask, &old_mask) != 0) throw IoError(std::string("sigprocmask: ") + std::strerror(errno));
  struct MaskRestorer {
    sigset_t old;
    ~MaskRestorer() { ::sigprocmask(SIG_SETMASK, &old, nullptr); }
  } restorer{old_mask};
  const int sfd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) throw IoError(std::string("signalfd: ") + std::strerror(errno));
  FdCloser sfd_closer{sfd};

  // Written now too, so that a shard killed or still running is known by its manifest: merge then
  // names its points as missing with the Slurm task that has them.
  write_manifest(dir, sw, opt, states);

  const unsigned jobs = opt.jobs ? opt.jobs : usable_cpus();
  const pid_t parent = ::getpid();
  std::vector<size_t> queue;
  for (size_t i = 0; i < states.size(); ++i)
    if (states[i].status != PointStatus::done) queue.push_back(i);
  size_t next = 0, failed = 0;
  std::vector<Running> running;
  int stop_signal = 0;
  Progress progress(!opt.quiet, states.size());
  size_t done_count = skipped;

  auto scenario_name = [&](const PointState& st) { return st.point->id + ".json"; };
  auto cleanup_worker = [&](const PointState& st, pid_t pid) {
    std::remove((points_dir + "/." + st.point->id + ".jsonl.tmp." + std::to_string(pid)).c_str());
    std::remove((work_dir + "/" + scenario_name(st)).c_str());
    std::remove((work_dir + "/" + st.point->id + ".stderr").c_str());
  };
  auto spawn = [&](size_t si) {
    PointState& st = states[si];
    const std::string scen = scenario_name(st);
    {
      // A scratch file for the worker (it is removed afterwards), so no fsync.
      std::ofstream f(work_dir + "/" + scen, std::ios::binary | std::ios::trunc);
      f << point_scenario(sw, *st.point).dump() << "\n";
      f.close();
      if (!f) throw IoError(work_dir + "/" + scen + ": cannot write (" + std::strerror(errno) + ")");
    }
    const std::string out_rel = "../points/" + st.point->id + ".jsonl";
    const std::string err_name = st.point->id + ".stderr";
    std::vector<std::string> args = {"nvmesim", "run", scen, "--format", "jsonl", "-q", "--out", out_rel};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(&a[0]);
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw IoError(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      // Child: only async-signal-safe calls until execv.
      ::setpgid(0, 0);                      // terminal signals go to the parent, which stops us
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);   // and we die with it if it is killed
      if (::getppid() != parent) ::_exit(127);
      ::signal(SIGINT, SIG_DFL);
      ::signal(SIGTERM, SIG_DFL);
      ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
      if (::chdir(work_dir.c_str()) != 0) ::_exit(126);
      const int null_fd = ::open("/dev/null", O_RDWR);
      const int err_fd = ::open(err_name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (null_fd < 0 || err_fd < 0) ::_exit(126);
      ::dup2(null_fd, 0);
      ::dup2(null_fd, 1);
      ::dup2(err_fd, 2);
      ::execv(opt.exe.c_str(), argv.data());
      ::_exit(127);
    }
    running.push_back({si, pid});
  };
  auto reap = [&]() {
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      auto it = std::find_if(running.begin(), running.end(), [&](const Running& r) { return r.pid == pid; });
      if (it == running.end()) continue;
      PointState& st = states[it->state];
      running.erase(it);
      const std::string path = points_dir + "/" + st.point->id + ".jsonl";
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        if (read_point_file(path, point_scenario(sw, *st.point), st.summary) == FileState::complete) {
          st.status = PointStatus::done;
        } else {
          st.status = PointStatus::failed;
          st.error = "the worker ended without a complete " + std::string("points/") + st.point->id + ".jsonl";
        }
      } else if (stop_signal &&
                 ((WIFSIGNALED(status) && (WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGKILL)) ||
                  (WIFEXITED(status) && (WEXITSTATUS(status) == 128 + SIGTERM || WEXITSTATUS(status) == 128 + SIGINT)))) {
        // Stopped by us: `run` stops between trials and exits 128 + signal (or dies of the signal
        // before it has installed its handler). Run again on --resume.
        st.status = PointStatus::pending;
        std::remove(path.c_str());
      } else {
        const std::string text = read_small_file(work_dir + "/" + st.point->id + ".stderr", 1 << 20);
        const std::string msg = worker_message(text, scenario_name(st));
        if (WIFSIGNALED(status)) {
          st.error = "worker killed by signal " + std::to_string(WTERMSIG(status)) + " (" + signal_name(WTERMSIG(status)) + ")";
          if (!msg.empty()) st.error += ": " + msg;
        } else {
          const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
          st.error = "worker exit status " + std::to_string(code) + (msg.empty() ? "" : ": " + msg);
          if (code == 127) st.error += " (could not run " + opt.exe + ")";
        }
        st.status = PointStatus::failed;
        std::remove(path.c_str());
      }
      cleanup_worker(st, pid);
      if (st.status == PointStatus::done) ++done_count;
      if (st.status == PointStatus::failed) {
        ++failed;
        progress.clear();
        err << "nvmesim: point " << st.point->index << " (" << st.point->id << ") failed: " << st.error << "\n";
        err.flush();
      }
    }
  };

  try {
    while (true) {
      while (!stop_signal && running.size() < jobs && next < queue.size()) spawn(queue[next++]);
      if (running.empty()) break;
      progress.update(done_count, failed, skipped, false);
      pollfd pfd{sfd, POLLIN, 0};
      const int rc = ::poll(&pfd, 1, progress.tty() ? 250 : -1);
      if (rc < 0 && errno != EINTR) throw IoError(std::string("poll: ") + std::strerror(errno));
      signalfd_siginfo si;
      while (::read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        const int sig = static_cast<int>(si.ssi_signo);
        if ((sig == SIGINT || sig == SIGTERM) && !stop_signal) {
          stop_signal = sig;
          for (const auto& r : running) ::kill(r.pid, SIGTERM);
        }
      }
      reap();
    }
  } catch (...) {
    for (const auto& r : running) ::kill(r.pid, SIGKILL);
    for (const auto& r : running) {
      int status;
      ::waitpid(r.pid, &status, 0);
      cleanup_worker(states[r.state], r.pid);
    }
    throw;
  }
  progress.update(done_count, failed, skipped, true);
  progress.clear();
  ::rmdir(work_dir.c_str());
  write_manifest(dir, sw, opt, states);

  if (!opt.quiet) {
    const double secs = progress.elapsed();
    const size_t ran = done_count - skipped + failed;  // points this run completed (not those stopped)
    char line[512];
    std::snprintf(line, sizeof line,
                  "nvmesim sweep %s: %zu point%s%s: %zu done (%zu already complete), %zu failed, %zu not run; "
                  "%.1f s, %.2f points/s with %u worker%s\n",
                  sw.name.empty() ? sw.source.c_str() : sw.name.c_str(), states.size(), states.size() == 1 ? "" : "s",
                  opt.shard.count > 1 ? (" in shard " + std::to_string(opt.shard.index) + "/" + std::to_string(opt.shard.count)).c_str() : "",
                  done_count, skipped, failed, states.size() - done_count - failed, secs,
                  secs > 0 ? static_cast<double>(ran) / secs : 0.0, jobs, jobs == 1 ? "" : "s");
    err << line;
    if (stop_signal) err << "nvmesim: stopped by " << signal_name(stop_signal) << "; continue with --resume\n";
  }
  if (stop_signal) return 128 + stop_signal;
  return failed ? kExitPointsFailed : 0;
}

// ---- merge --------------------------------------------------------------------------------------

namespace {

/// o[key] when `o` is an object holding it, else a null (a reference that outlives the call).
const ojson& member(const ojson& o, const std::string& key) {
  static const ojson null_value;
  if (o.is_object()) {
    auto it = o.find(key);
    if (it != o.end()) return *it;
  }
  return null_value;
}

/// Elements of an array member, or nothing.
const ojson& items_of(const ojson& o, const std::string& key) {
  static const ojson empty = ojson::array();
  const ojson& m = member(o, key);
  return m.is_array() || m.is_object() ? m : empty;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_value(const ojson& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  return csv_field(v.dump());
}

}  // namespace

int merge_sweeps(const std::vector<std::string>& dirs, const std::string& out_json, std::ostream& err) {
  if (dirs.empty()) throw InputError("merge needs at least one sweep folder");
  ojson sweep, tool;
  std::string first_manifest;
  std::map<size_t, ojson> points;  // by index
  std::map<size_t, long> origin;   // by index: the folder (into `folders`) of the point in `points`,
                                   // or of a pending point no folder completed
  std::vector<MergedFolder> folders;
  for (const auto& d : dirs) {
    const std::string path = d + "/manifest.json";
    if (!file_exists(path))
      throw InputError(path + ": missing; no sweep has written its manifest in " + d +
                       " (a sweep writes it when it starts): run or continue it with 'nvmesim sweep SWEEP.json --out " + d +
                       " --resume' (and its --shard)");
    const ojson m = parse_json_text(read_text_file(path), path);
    if (!m.is_object() || m.value("schema", "") != kManifestSchema || !m.contains("sweep") || !m["sweep"].is_object() ||
        !m.contains("points") || !m["points"].is_array())
      throw InputError(path + ": not an nvmesim sweep manifest (" + kManifestSchema + ")");
    if (first_manifest.empty()) {
      first_manifest = path;
      sweep = m["sweep"];
      tool = m.value("tool", ojson::object());
    } else {
      if (m["sweep"].value("id", "") != sweep.value("id", ""))
        throw InputError(path + ": is from another sweep (id " + m["sweep"].value("id", "?") + ") than " + first_manifest +
                         " (id " + sweep.value("id", "?") + ")");
      if (m.value("tool", ojson::object()) != tool)
        throw InputError(path + ": was written by " + m.value("tool", ojson::object()).dump() + ", " + first_manifest +
                         " by " + tool.dump() + "; rerun the shards with one version");
    }
    const long folder = static_cast<long>(folders.size());
    auto shard_field = [&](const char* key, uint64_t fallback) {
      const ojson& v = member(member(m, "shard"), key);
      return v.is_number_unsigned() ? v.get<uint64_t>() : fallback;
    };
    folders.push_back({d, Shard{shard_field("index", 0), shard_field("count", 1)}, member(m, "run")});
    for (const auto& p : m["points"]) {
      if (!p.is_object() || !p.contains("index") || !p["index"].is_number_unsigned())
        throw InputError(path + ": a point without an index");
      const size_t idx = p["index"].get<size_t>();
      const std::string status = p.value("status", "");
      if (status == "pending") {
        if (!points.count(idx)) origin.emplace(idx, folder);
        continue;
      }
      auto it = points.find(idx);
      if (it == points.end() || (it->second.value("status", "") != "done" && status == "done")) {
        points[idx] = p;
        origin[idx] = folder;
      } else if (status == "done" && it->second.value("status", "") == "done") {
        if (it->second.value("variants", ojson()) != p.value("variants", ojson()))
          throw InputError(path + ": point " + std::to_string(idx) + " differs from the same point in another folder");
      }
    }
  }
  // Rebuild the axes to name the points no folder holds.
  std::vector<SweepAxis> axes;
  for (const auto& a : items_of(sweep, "axes")) {
    SweepAxis ax;
    ax.pointer = a.value("pointer", "");
    ax.zip = a.value("kind", "") == "zip";
    for (const auto& v : items_of(a, "values")) ax.values.push_back(v);
    axes.push_back(std::move(ax));
  }
  const size_t total = sweep.value("points", size_t{0});
  ojson out_points = ojson::array();
  size_t n_failed = 0, n_missing = 0;
  std::vector<IncompletePoint> incomplete;
  for (size_t i = 0; i < total; ++i) {
    auto it = points.find(i);
    auto from = origin.find(i);
    ojson p;
    if (it == points.end()) {
      const ojson params = point_parameters(axes, i);
      p["index"] = i;
      p["id"] = point_id(params);
      p["parameters"] = params;
      p["status"] = "missing";
      ++n_missing;
      incomplete.push_back({i, p["id"], false, "", from == origin.end() ? -1 : from->second});
    } else {
      p = it->second;
      p.erase("file");
      if (p.value("status", "") == "failed") {
        ++n_failed;
        incomplete.push_back({i, p.value("id", ""), true, p.value("error", ""), from == origin.end() ? -1 : from->second});
      }
    }
    out_points.push_back(p);
  }
  ojson merged;
  merged["schema"] = kSummarySchema;
  merged["tool"] = tool;
  merged["sweep"] = sweep;
  merged["points"] = out_points;

  // CSV: one row per point and variant (one row for a failed or missing point).
  std::vector<std::string> status_keys;
  for (const auto& p : out_points)
    for (const auto& v : items_of(p, "variants"))
      for (const auto& [k, val] : items_of(member(v, "summary"), "status").items()) {
        (void)val;
        if (std::find(status_keys.begin(), status_keys.end(), k) == status_keys.end()) status_keys.push_back(k);
      }
  static const char* const stats[] = {"mean", "stddev", "min", "p5", "p10", "p50", "p90", "p95", "p99", "max"};
  std::string csv = "index,id";
  for (const auto& a : axes) csv += "," + csv_field(a.pointer);
  csv += ",status,variant,trials";
  for (const auto& k : status_keys) csv += "," + csv_field(k);
  for (const char* group : {"probe_ms", "critical_path_ms", "delta_ms"})
    for (const char* s : stats) csv += std::string(",") + group + "_" + s;
  csv += ",error\n";
  for (const auto& p : out_points) {
    std::string lead = std::to_string(p["index"].get<size_t>()) + "," + csv_field(p.value("id", ""));
    for (const auto& a : axes) lead += "," + csv_value(member(member(p, "parameters"), a.pointer));
    lead += "," + csv_field(p.value("status", ""));
    const ojson& variants = items_of(p, "variants");
    if (variants.empty()) {
      csv += lead + ",,";
      for (size_t i = 0; i < status_keys.size() + 3 * std::size(stats); ++i) csv += ",";
      csv += "," + csv_field(p.value("error", "")) + "\n";
      continue;
    }
    for (const auto& v : variants) {
      const ojson& s = member(v, "summary");
      csv += lead + "," + csv_field(v.value("name", "")) + "," + csv_value(member(s, "trials"));
      for (const auto& k : status_keys) csv += "," + csv_value(member(member(s, "status"), k));
      const ojson* delta = &member(v, "no delta");
      for (const auto& d : items_of(p, "paired"))
        if (member(d, "variant") == member(v, "name")) delta = &member(d, "delta_ms");
      for (const ojson* g : std::initializer_list<const ojson*>{&member(s, "probe_ms"), &member(s, "critical_path_ms"), delta})
        for (const char* st : stats) csv += "," + csv_value(member(*g, st));
      csv += ",\n";
    }
  }

  std::string out_csv = out_json;
  if (out_csv.size() > 5 && out_csv.compare(out_csv.size() - 5, 5, ".json") == 0) out_csv.resize(out_csv.size() - 5);
  out_csv += ".csv";
  // One after the other: AtomicFile's stdio buffer is shared by the instances of a thread.
  {
    AtomicFile fj(out_json);
    fj.write(merged.dump(2) + "\n");
    fj.commit();
  }
  {
    AtomicFile fc(out_csv);
    fc.write(csv);
    fc.commit();
  }
  if (n_failed || n_missing) {
    err << "nvmesim merge: " << total << " points: " << (total - n_failed - n_missing) << " done, " << n_failed
        << " failed, " << n_missing << " missing (listed in " << out_json << ")\n";
    report_incomplete_points(folders, incomplete, err);
    return kExitPointsFailed;
  }
  return 0;
}

}  // namespace nvmesim
