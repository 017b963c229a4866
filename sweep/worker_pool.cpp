#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <ostream>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/progress.hpp"
#include "core/terminal_text.hpp"
#include "sweep/folder.hpp"
#include "sweep/origin.hpp"
#include "sweep/run.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

namespace sweep_detail {

PointCheck check_point_outputs(const SweepPoint& p, const SweepOutputs& o, const std::string& points_dir,
                               const ojson& scenario) {
  PointCheck c;
  const std::string path = points_dir + "/" + p.id + ".jsonl";
  if (read_point_file(path, scenario, c.summary) != FileState::complete) return PointCheck{};
  for (const auto& n : extra_output_names(o, p.id))
    if (!file_exists(points_dir + "/" + n)) return PointCheck{};
  if (o.any()) {
    c.outputs = output_records(o, points_dir, p.id);
    if (c.outputs.is_null()) return PointCheck{};
  }
  c.jsonl = jsonl_record(path);
  if (c.jsonl.is_null()) return PointCheck{};
  c.complete = true;
  return c;
}

std::string check_text(const std::string& id, const PointCheck& c) {
  ojson j;
  j["id"] = id;
  j["complete"] = c.complete;
  if (c.complete) {
    j["summary"] = c.summary;
    j["outputs"] = c.outputs;
    j["jsonl"] = c.jsonl;
  }
  return j.dump() + "\n";
}

bool read_check(const std::string& path, const std::string& id, PointCheck& c) {
  const std::string text = read_small_file(path, size_t{64} << 20);
  if (text.empty() || text.back() != '\n') return false;
  try {
    ojson j = ojson::parse(text);
    if (!j.is_object() || j.value("id", ojson()) != ojson(id) || !j.contains("complete") || !j["complete"].is_boolean())
      return false;
    c = PointCheck{};
    if (!j["complete"].get<bool>()) return true;
    if (!j.contains("summary") || !j["summary"].is_object() || !j.contains("jsonl") || !j["jsonl"].is_object() ||
        !j["jsonl"].contains("bytes") || !j["jsonl"]["bytes"].is_number_unsigned() || !j.contains("outputs"))
      return false;
    c.complete = true;
    c.summary = std::move(j["summary"]);
    c.outputs = std::move(j["outputs"]);
    c.jsonl = std::move(j["jsonl"]);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace sweep_detail

using namespace sweep_detail;

namespace {

/// The exit status of `nvmesim run` for an I/O failure (kExitIo of cli/cli.hpp, which sweep/
/// does not include): the disk is full or unwritable, so the sweep stops.
constexpr int kWorkerExitIo = 3;
/// kExitInternal of cli/cli.hpp: a forked worker's exception outside `run` (a bug of ours).
constexpr int kWorkerExitInternal = 4;
/// A forked or executed worker that could not enter DIR/.work or create its .stderr file there
/// (a full disk, no inodes left): it exits before it can say why, so the sweep says it.
constexpr int kWorkerExitSetup = 126;

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
/// without the name of its temporary scenario file, its outputs named under `points_dir`; else
/// its last line of output.
std::string worker_message(const std::string& stderr_text, const std::string& scenario_name, const std::string& points_dir) {
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
  // The worker names its outputs from DIR/.work ("../points/<id>.jsonl"); the user knows them
  // under DIR (attack of stop 27).
  for (size_t at = 0; (at = msg.find("../points/", at)) != std::string::npos; at += points_dir.size() + 1)
    msg.replace(at, 10, points_dir + "/");
  if (msg.size() > 2000) msg = msg.substr(0, 2000) + "...";
  return msg;
}

// "12/40 points (1 failed)  2.50 points/s  0:11 left" (the points complete before this run do
// not count towards the rate).
void show_progress(ProgressBar& bar, size_t total, size_t done, size_t failed, size_t skipped, bool force) {
  if (!bar.due(force)) return;
  const double elapsed = bar.elapsed_s();
  const double rate = elapsed > 0 ? static_cast<double>(done + failed - skipped) / elapsed : 0;
  char left[32] = "--:--";
  if (rate > 0) {
    const long s = static_cast<long>(static_cast<double>(total - done - failed) / rate + 0.5);
    std::snprintf(left, sizeof left, "%ld:%02ld", s / 60, s % 60);
  }
  char text[160];
  std::snprintf(text, sizeof text, "%zu/%zu points%s  %.2f points/s  %s left   ", done + failed, total,
                failed ? (" (" + std::to_string(failed) + " failed)").c_str() : "", rate, left);
  bar.draw(total ? static_cast<double>(done + failed) / static_cast<double>(total) : 1.0, text);
}

/// The stop signal (SIGTERM or SIGINT) a worker that ended with wait status `status` obeyed: it
/// died of it, or `run` caught it and exited 128 + signal (core/signals.hpp); else 0.
int stop_signal_of(int status) {
  for (const int sig : {SIGTERM, SIGINT})
    if ((WIFSIGNALED(status) && WTERMSIG(status) == sig) || (WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig))
      return sig;
  return 0;
}

/// Writes all of `text` to a new file `path` (0644), made by this call: whatever was at `path`
/// is unlinked first, and a file or link put there in between is not written through (O_EXCL,
/// O_NOFOLLOW). False with errno set on any failure (the file may then be partial: its reader
/// requires the final newline).
bool write_new_file(const std::string& path, const std::string& text) {
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : ENOSPC;  // the caller reports errno, not close's
      ::close(fd);
      errno = e;
      return false;
    }
    off += static_cast<size_t>(n);
  }
  return ::close(fd) == 0;
}

// Closes a file descriptor when it goes out of scope.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

// SIGCHLD, SIGINT and SIGTERM through a signalfd (blocked for normal delivery while alive), so
// that the pool can wait for "a worker ended or we were asked to stop" in one poll().
class SignalFd {
 public:
  SignalFd() {
    sigemptyset(&mask_);
    sigaddset(&mask_, SIGCHLD);
    sigaddset(&mask_, SIGINT);
    sigaddset(&mask_, SIGTERM);
    if (::sigprocmask(SIG_BLOCK, &mask_, &old_mask_) != 0) throw IoError(std::string("sigprocmask: ") + std::strerror(errno));
    fd_ = ::signalfd(-1, &mask_, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd_ < 0) {
      const int e = errno;
      ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
      throw IoError(std::string("signalfd: ") + std::strerror(e));
    }
  }
  ~SignalFd() {
    ::close(fd_);
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;
  int fd() const { return fd_; }
  /// The mask before this object blocked the signals (restored in a worker before execv).
  const sigset_t& old_mask() const { return old_mask_; }

 private:
  sigset_t mask_, old_mask_;
  int fd_ = -1;
};

// Runs the pending points of `states`, `jobs` at a time, each as `nvmesim run` in a worker
// process of its own, and records how each ended. SIGINT/SIGTERM stop the workers (they are run
// again on --resume).
class WorkerPool {
 public:
  WorkerPool(const Sweep& sw, const SweepRunOptions& opt, const SweepDirs& dirs, std::vector<PointState>& states,
             size_t skipped, std::ostream& err)
      : sw_(sw), opt_(opt), d_(dirs), states_(states), err_(err), jobs_(opt.jobs ? opt.jobs : usable_cpus()),
        skipped_(skipped), done_(skipped), progress_(!opt.quiet, std::chrono::milliseconds(200)) {}

  /// Runs until every point is done or failed, or a stop signal arrived. On an exception the
  /// running workers are killed and their files removed.
  void run();
  unsigned jobs() const { return jobs_; }
  size_t done() const { return done_; }
  size_t failed() const { return failed_; }
  int stop_signal() const { return stop_signal_; }
  /// The first I/O failure of a worker (its point and message), empty while there was none.
  const std::string& io_error() const { return io_error_; }
  double elapsed() const { return progress_.elapsed_s(); }

 private:
  struct Running {
    std::vector<size_t> states;  // indices into states_: one point, or a batch (batch_main)
    pid_t pid = 0;
  };
  /// A worker reaped and not yet settled: its points, pid and wait status.
  struct Finished {
    std::vector<size_t> states;
    pid_t pid = 0;
    int status = 0;
  };
  std::string scenario_name(const PointState& st) const { return st.point->id + ".json"; }
  /// The file in DIR/.work where a forked worker leaves the check of its outputs (check_text).
  static std::string check_name(const PointState& st) { return st.point->id + ".check.json"; }
  // The body of a forked worker, in DIR/.work with its descriptors set: writes the point's
  // scenario, runs the point, checks its outputs and leaves the check. Returns the exit status;
  // never throws (an exception would unwind into the sweep's frames, which this process copied).
  int forked_worker(const PointState& st, const std::string& scen, const std::vector<std::string>& args) const;
  // The same for a batch of points in one process (batch_main): writes their scenarios, runs
  // them, leaves the check of each completed one. Returns the exit status; never throws.
  int forked_batch(const std::vector<size_t>& batch) const;
  // In a forked worker, in DIR/.work: checks point `st`'s outputs (its scenario `scenario`) and
  // leaves the check for the sweep (check_text); never throws.
  void leave_check(const PointState& st, const ojson& scenario) const;
  // The command line of `nvmesim run` for point `st`, from DIR/.work.
  std::vector<std::string> point_args(const PointState& st) const;
  void cleanup_worker(const PointState& st, pid_t pid) const;
  // Removes the point's outputs (a point not done has none).
  void remove_outputs(const PointState& st) const;
  // The next work: a point to run again alone, else the largest pending point with, when
  // batching, the next ones of the same controller count up to the batch's share of the rest.
  std::vector<size_t> next_batch();
  bool has_work() const { return !retry_.empty() || next_ < queue_.size(); }
  void spawn(const std::vector<size_t>& batch);
  // Collects the workers that ended (waitpid) into finished_, without settling them.
  void reap();
  // Settles the workers in finished_: the points' results, counts and failure messages.
  void settle_finished();
  // Whether every worker in finished_ exited 0: its points' results can wait until the
  // workers that replace it have started.
  bool finished_cleanly() const;
  // Stops the sweep on signal `sig`: no new workers, SIGTERM to the running ones.
  void stop(int sig);
  // What the worker that ran `st` and ended with wait status `status` did.
  void settle(PointState& st, int status);
  // The same for a batch: a point with its worker's check is done; the others run again alone
  // (or stay pending when the sweep stops).
  void settle_batch(const std::vector<size_t>& batch, int status);
  // Whether the worker's check of `st` can be taken (it names the point and, complete, its .jsonl
  // still has the size it gives); then it is in `check`.
  bool take_check(const PointState& st, PointCheck& check) const;
  // Records a complete check as the point's result.
  static void record_done(PointState& st, PointCheck& check);
  void wait_for_events();

  const Sweep& sw_;
  const SweepRunOptions& opt_;
  const SweepDirs& d_;
  std::vector<PointState>& states_;
  std::ostream& err_;
  const unsigned jobs_;
  const size_t skipped_;
  size_t done_, failed_ = 0;
  int stop_signal_ = 0;
  std::string io_error_;
  ProgressBar progress_;
  SignalFd signals_;
  std::vector<Running> running_;
  std::vector<Finished> finished_;
  const pid_t parent_ = ::getpid();
  // The pending points, largest estimate first; taken_ marks those handed out, next_ the first not.
  std::vector<size_t> queue_;
  std::vector<char> taken_;
  size_t next_ = 0;
  double remaining_ns_ = 0;     // the estimates of the points not handed out
  std::vector<size_t> retry_;   // points of a batch that ended without their check: each alone
  const bool batching_ = opt_.worker_main && opt_.batch_main && !opt_.outputs.vcd && opt_.max_batch_points > 1;
};

void WorkerPool::cleanup_worker(const PointState& st, pid_t pid) const {
  // The worker's AtomicFile temporaries (core/atomic_file.cpp: ".NAME.tmp.<pid>.<n>", n from 0,
  // one per output) and SystemC's VCD (outputs/vcd.cpp: ".NAME.sc.<pid>.vcd").
  std::vector<std::string> names = extra_output_names(opt_.outputs, st.point->id);
  names.push_back(st.point->id + ".jsonl");
  const std::string p = std::to_string(pid);
  for (const auto& name : names)
    for (int n = 0; n < 5; ++n) std::remove((d_.points + "/." + name + ".tmp." + p + "." + std::to_string(n)).c_str());
  if (opt_.outputs.vcd) std::remove((d_.points + "/." + st.point->id + kVcdExt + ".sc." + p + ".vcd").c_str());
  std::remove((d_.work + "/" + scenario_name(st)).c_str());
  std::remove((d_.work + "/" + st.point->id + ".stderr").c_str());
  std::remove((d_.work + "/" + check_name(st)).c_str());
}

std::vector<std::string> WorkerPool::point_args(const PointState& st) const {
  std::vector<std::string> args = {"nvmesim", "run", scenario_name(st), "--format", "jsonl", "-q",
                                   "--out", "../points/" + st.point->id + ".jsonl"};
  for (auto& a : worker_output_args(opt_.outputs, st.point->id)) args.push_back(std::move(a));
  return args;
}

void WorkerPool::spawn(const std::vector<size_t>& batch) {
  PointState& st = states_[batch.front()];
  const std::string scen = scenario_name(st);
  // The point's scenario, a scratch file for the worker (it is removed afterwards), so no fsync.
  // A forked worker writes it itself: its CPU is then spent in parallel, not in this process,
  // which every worker waits for (issue 15 item 5).
  if (!opt_.worker_main) {
    std::ofstream f(d_.work + "/" + scen, std::ios::binary | std::ios::trunc);
    f << point_scenario(sw_, *st.point).dump() << "\n";
    f.close();
    if (!f) throw IoError(d_.work + "/" + scen + ": cannot write (" + std::strerror(errno) + ")");
  }
  // A batch's messages go to its first point's .stderr (settle_batch quotes them when the batch ends early).
  const std::string err_name = st.point->id + ".stderr";
  std::vector<std::string> args = point_args(st);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  err_.flush();  // nothing buffered is written twice by a forked worker
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw IoError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: only async-signal-safe calls until execv.
    ::setpgid(0, 0);                      // terminal signals go to the parent, which stops us
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);   // and we die with it if it is killed
    if (::getppid() != parent_) ::_exit(127);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &signals_.old_mask(), nullptr);
    if (::chdir(d_.work.c_str()) != 0) ::_exit(kWorkerExitSetup);
    const int null_fd = ::open("/dev/null", O_RDWR);
    const int err_fd = ::open(err_name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (null_fd < 0 || err_fd < 0) ::_exit(kWorkerExitSetup);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(err_fd, 2);
    if (opt_.worker_main) {
      // In this process image (no exec): close what the sweep holds (the folder's lock, the
      // signalfd, files), then run the point as `nvmesim run` would and exit without the
      // sweep's static destructors. Not async-signal-safe from here on: this process has no
      // other thread.
      if (::close_range(3, ~0u, 0) != 0)
        for (int fd = 3; fd < 65536; ++fd) ::close(fd);
      // The streams' state is the sweep's: a failed write to the sweep's own stderr (a full
      // disk, a closed pipe) left badbit set, and the point's messages would not reach its
      // .stderr file (review). The worker starts with clean streams, as an exec'd one does.
      std::cout.clear();
      std::cerr.clear();
      std::clog.clear();
      ::_exit(batch.size() == 1 ? forked_worker(st, scen, args) : forked_batch(batch));
    }
    ::execv(opt_.exe.c_str(), argv.data());
    ::_exit(127);
  }
  running_.push_back({batch, pid});
}

void WorkerPool::leave_check(const PointState& st, const ojson& scenario) const {
  // The sweep reads the check back and, when it cannot, checks the outputs itself: a check not
  // written (whatever the reason) costs time, not correctness, so it is not the point's failure.
  try {
    write_new_file(check_name(st), check_text(st.point->id, check_point_outputs(*st.point, opt_.outputs, "../points", scenario)));
  } catch (...) {
    ::unlink(check_name(st).c_str());
  }
}

int WorkerPool::forked_batch(const std::vector<size_t>& batch) const {
  std::vector<ojson> scenarios;
  std::vector<std::vector<std::string>> args;
  try {
    for (const size_t si : batch) {
      const PointState& st = states_[si];
      ::unlink(check_name(st).c_str());  // no verdict but this run's
      scenarios.push_back(point_scenario(sw_, *st.point));
      // A scenario that cannot be written ends the batch before its point, which runs again
      // alone and reports the failure.
      if (!write_new_file(scenario_name(st), scenarios.back().dump() + "\n")) break;
      std::vector<std::string> a = point_args(st);
      args.emplace_back(a.begin() + 2, a.end());  // after "nvmesim run"
    }
  } catch (const std::exception& e) {
    std::cerr << "nvmesim: internal error: " << e.what() << "\n";
    return kWorkerExitInternal;
  }
  // Each point's check as soon as its outputs are written, before the next point runs: a crash or
  // a signal later in the batch leaves the points before it done.
  const auto committed = [&](size_t i) {
    if (i < args.size()) leave_check(states_[batch[i]], scenarios[i]);
  };
  int status = 0;
  opt_.batch_main(args, status, committed);
  return status;
}

int WorkerPool::forked_worker(const PointState& st, const std::string& scen, const std::vector<std::string>& args) const {
  ojson scenario;
  try {
    ::unlink(check_name(st).c_str());  // no verdict but this run's
    scenario = point_scenario(sw_, *st.point);
    if (!write_new_file(scen, scenario.dump() + "\n")) {
      const int e = errno;
      std::cerr << "nvmesim: error: " << d_.work << "/" << scen << ": cannot write (" << std::strerror(e) << ")\n";
      return kWorkerExitIo;
    }
  } catch (const std::exception& e) {
    std::cerr << "nvmesim: internal error: " << e.what() << "\n";
    return kWorkerExitInternal;
  }
  const int rc = opt_.worker_main(args);  // `run`'s code: catches everything, returns its exit status
  if (rc != 0) return rc;
  leave_check(st, scenario);
  return 0;
}

void WorkerPool::settle(PointState& st, int status) {
  if (WIFEXITED(status) && (WEXITSTATUS(status) == kWorkerExitIo || WEXITSTATUS(status) == kWorkerExitSetup)) {
    // The disk, not the point (issue 16 item 19: a full disk failed every point, exit 1): the
    // point stays pending, no more are started, the running ones are stopped, and the sweep
    // exits 3. Run again on --resume.
    std::string msg = worker_message(read_small_file(d_.work + "/" + st.point->id + ".stderr", 1 << 20), scenario_name(st), d_.points);
    if (WEXITSTATUS(status) == kWorkerExitSetup && msg.empty())
      msg = "its worker could not enter " + d_.work + " or create its .stderr file there (a full disk, no inodes left, or "
            "not writable)";
    if (io_error_.empty()) {
      io_error_ = "point " + std::to_string(st.point->index) + " (" + st.point->id + "): " + (msg.empty() ? "I/O failure" : msg);
      for (const auto& r : running_) ::kill(r.pid, SIGTERM);
    }
    st.status = PointStatus::pending;
    remove_outputs(st);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    // A forked worker checked its own outputs (the same check, in parallel with the other
    // workers) and left the result; an executed one, or a forked one that could not, is checked here.
    PointCheck check;
    if (!take_check(st, check)) check = check_point_outputs(*st.point, opt_.outputs, d_.points, point_scenario(sw_, *st.point));
    if (check.complete) {
      record_done(st, check);
    } else {
      remove_outputs(st);
      st.status = PointStatus::failed;
      st.error = "the worker ended without a complete " + std::string("points/") + st.point->id + ".jsonl and its other outputs";
    }
  } else if (const int sig = stop_signal_of(status); sig || ((stop_signal_ || !io_error_.empty()) && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
    // Stopped: `run` stops between trials and exits 128 + signal (or dies of the signal before it
    // has installed its handler). A SIGTERM or SIGINT we did not send is a stop of the whole
    // sweep too: Slurm's scancel and time limit signal every process of the job, each on its
    // own, so a worker may end before this process has read its own SIGTERM. Run again on
    // --resume.
    if (!stop_signal_ && io_error_.empty()) stop(sig);
    st.status = PointStatus::pending;
    remove_outputs(st);
  } else {
    const std::string text = read_small_file(d_.work + "/" + st.point->id + ".stderr", 1 << 20);
    const std::string msg = worker_message(text, scenario_name(st), d_.points);
    if (WIFSIGNALED(status)) {
      st.error = "worker killed by signal " + std::to_string(WTERMSIG(status)) + " (" + signal_name(WTERMSIG(status)) + ")";
      if (!msg.empty()) st.error += ": " + msg;
    } else {
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      st.error = "worker exit status " + std::to_string(code) + (msg.empty() ? "" : ": " + msg);
      if (code == 127) st.error += " (could not run " + opt_.exe + ")";
    }
    st.status = PointStatus::failed;
    remove_outputs(st);
  }
}

bool WorkerPool::take_check(const PointState& st, PointCheck& check) const {
  // The worker's verdict is taken for this point only when it names the point and its file is
  // still the size the verdict says (a cheap guard; --resume and merge check the hash).
  const std::string path = d_.points + "/" + st.point->id + ".jsonl";
  struct stat sb;
  return opt_.worker_main && read_check(d_.work + "/" + check_name(st), st.point->id, check) &&
         (!check.complete || (::stat(path.c_str(), &sb) == 0 && S_ISREG(sb.st_mode) &&
                              check.jsonl["bytes"].get<uint64_t>() == static_cast<uint64_t>(sb.st_size)));
}

void WorkerPool::record_done(PointState& st, PointCheck& check) {
  st.summary = std::move(check.summary);
  st.outputs = std::move(check.outputs);  // recorded for --resume to check
  st.jsonl = std::move(check.jsonl);      // recorded for --resume and merge to check
  st.status = PointStatus::done;
}

void WorkerPool::settle_batch(const std::vector<size_t>& batch, int status) {
  // A stop signal we did not send stops the sweep, as for a worker of one point.
  if (const int sig = stop_signal_of(status); sig && !stop_signal_ && io_error_.empty()) stop(sig);
  size_t first_open = batch.size();  // the first point without a complete check
  for (size_t i = 0; i < batch.size(); ++i) {
    PointState& st = states_[batch[i]];
    PointCheck check;
    if (take_check(st, check) && check.complete) {
      record_done(st, check);
      continue;
    }
    // Not completed in the batch (it failed at this point or before it, or was stopped): its
    // outputs go. When the sweep stops, it stays pending for --resume. Else the first such point,
    // where the batch ended, runs again in a worker of its own, which reports any failure as for
    // every point; the points after it go back to the queue to be batched again.
    remove_outputs(st);
    st.status = PointStatus::pending;
    if (stop_signal_ || !io_error_.empty()) continue;
    if (first_open == batch.size()) {
      first_open = i;
      retry_.push_back(batch[i]);
    } else {
      queue_.push_back(batch[i]);
      taken_.push_back(0);
      remaining_ns_ += st.point->cost_estimate;
    }
  }
  next_ = std::min(next_, queue_.size());
  while (next_ < queue_.size() && taken_[next_]) ++next_;
  // Said once per batch that ended early other than by a stop, with what the batch said: the
  // point's own failure, if any, follows from its own worker (without this line a batch that
  // always ended early would only be slow).
  if (first_open < batch.size() && !opt_.quiet) {
    const PointState& st = states_[batch[first_open]];
    std::string said = worker_message(read_small_file(d_.work + "/" + states_[batch.front()].point->id + ".stderr", 1 << 20),
                                      scenario_name(st), d_.points);
    if (said.rfind("nvmesim: batch: ", 0) == 0) said = said.substr(16);
    if (said.rfind(scenario_name(st) + ": ", 0) == 0) said = said.substr(scenario_name(st).size() + 2);  // as worker_message does
    if (said.empty() && WIFSIGNALED(status))
      said = "its worker was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + signal_name(WTERMSIG(status)) + ")";
    progress_.clear();
    err_ << "nvmesim: note: a worker's batch of " << batch.size() << " points ended after " << first_open
         << (said.empty() ? "" : " (" + terminal_text(said) + ")") << "; point " << st.point->index << " ("
         << st.point->id << ") runs again alone" << (first_open + 1 < batch.size() ? ", the rest in new batches" : "")
         << "\n";
    err_.flush();
  }
}

void WorkerPool::remove_outputs(const PointState& st) const {
  std::remove((d_.points + "/" + st.point->id + ".jsonl").c_str());
  for (const auto& n : extra_output_names(opt_.outputs, st.point->id)) std::remove((d_.points + "/" + n).c_str());
}

void WorkerPool::stop(int sig) {
  stop_signal_ = sig;
  for (const auto& r : running_) ::kill(r.pid, SIGTERM);
}

void WorkerPool::reap() {
  int status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
    auto it = std::find_if(running_.begin(), running_.end(), [&](const Running& r) { return r.pid == pid; });
    if (it == running_.end()) continue;
    finished_.push_back({std::move(it->states), pid, status});
    running_.erase(it);
  }
}

bool WorkerPool::finished_cleanly() const {
  return std::all_of(finished_.begin(), finished_.end(),
                     [](const Finished& f) { return WIFEXITED(f.status) && WEXITSTATUS(f.status) == 0; });
}

void WorkerPool::settle_finished() {
  // Each worker leaves finished_ once settled: when settling throws (an I/O error), the catch
  // in run() cleans up after it and the others still there.
  while (!finished_.empty()) {
    const Finished& f = finished_.front();
    if (f.states.size() == 1)
      settle(states_[f.states.front()], f.status);
    else
      settle_batch(f.states, f.status);
    for (const size_t si : f.states) {
      PointState& st = states_[si];
      cleanup_worker(st, f.pid);
      if (st.status == PointStatus::done) ++done_;
      if (st.status == PointStatus::failed) {
        ++failed_;
        progress_.clear();
        err_ << "nvmesim: point " << st.point->index << " (" << st.point->id << ") failed: " << st.error << "\n";
        err_.flush();
      }
    }
    finished_.erase(finished_.begin());
  }
}

void WorkerPool::wait_for_events() {
  pollfd pfd{signals_.fd(), POLLIN, 0};
  const int rc = ::poll(&pfd, 1, progress_.tty() ? 250 : -1);
  if (rc < 0 && errno != EINTR) throw IoError(std::string("poll: ") + std::strerror(errno));
  signalfd_siginfo si;
  while (::read(signals_.fd(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    const int sig = static_cast<int>(si.ssi_signo);
    if ((sig == SIGINT || sig == SIGTERM) && !stop_signal_) stop(sig);
  }
}

std::vector<size_t> WorkerPool::next_batch() {
  if (!retry_.empty()) {
    const size_t si = retry_.front();
    retry_.erase(retry_.begin());
    return {si};
  }
  const size_t head = queue_[next_];
  taken_[next_] = 1;
  std::vector<size_t> batch{head};
  double cost_ns = states_[head].point->cost_estimate;
  if (batching_) {
    // Guided self-scheduling: a batch takes a share of the estimated work not yet handed out,
    // 1 / (4 x workers), so that batches shrink towards the end and the workers finish together;
    // at least 50 ms (a fork and an elaboration are worth sharing), at most 2 s (the progress
    // shown and the work a stop discards), at most max_batch_points points, all of the head's
    // controller count (one elaboration). Points keep the largest-first order.
    constexpr double kMinBatchNs = 50e6, kMaxBatchNs = 2e9;
    constexpr size_t kMaxScan = 4096;  // points looked at past the head, so a batch costs O(1)
    const double target_ns = std::clamp(remaining_ns_ / (4.0 * jobs_), kMinBatchNs, kMaxBatchNs);
    const size_t controllers = states_[head].point->controllers;
    const size_t max_points = std::min<size_t>(opt_.max_batch_points, 256);
    for (size_t i = next_ + 1; i < queue_.size() && i <= next_ + kMaxScan && cost_ns < target_ns && batch.size() < max_points; ++i) {
      const SweepPoint& p = *states_[queue_[i]].point;
      if (taken_[i] || p.controllers != controllers) continue;
      taken_[i] = 1;
      batch.push_back(queue_[i]);
      cost_ns += p.cost_estimate;
    }
  }
  remaining_ns_ -= cost_ns;
  while (next_ < queue_.size() && taken_[next_]) ++next_;
  return batch;
}

void WorkerPool::run() {
  for (size_t i = 0; i < states_.size(); ++i)
    if (states_[i].status != PointStatus::done) queue_.push_back(i);
  // Largest first (issue 15 item 5): the points with the largest estimated cost start first, so
  // that the last to finish are small ones and no worker idles while another runs a long point
  // to the end. Equal estimates keep index order. Only the order of the work changes: each point
  // writes its own files, and the manifest and merge go by index.
  std::stable_sort(queue_.begin(), queue_.end(), [&](size_t a, size_t b) {
    return states_[a].point->cost_estimate > states_[b].point->cost_estimate;
  });
  taken_.assign(queue_.size(), 0);
  for (const size_t si : queue_) remaining_ns_ += states_[si].point->cost_estimate;
  try {
    while (true) {
      // A worker that exited 0 is settled after its replacement has started: reading its
      // points' checks and outputs' sizes then overlaps the next worker instead of delaying it
      // (issue 15 item 5). Any other end is settled first, since it may stop the sweep (a
      // signal, an I/O failure). Settling either may hand points back to run again (a batch
      // without a point's check): the loop spawns again after it.
      if (!finished_cleanly()) settle_finished();
      while (!stop_signal_ && io_error_.empty() && running_.size() < jobs_ && has_work()) spawn(next_batch());
      if (!finished_.empty()) {
        settle_finished();
        continue;  // settling may have handed points back: spawn again before waiting
      }
      if (running_.empty()) break;
      show_progress(progress_, states_.size(), done_, failed_, skipped_, false);
      wait_for_events();
      reap();
    }
  } catch (...) {
    for (const auto& r : running_) ::kill(r.pid, SIGKILL);
    for (const auto& r : running_) {
      int status;
      ::waitpid(r.pid, &status, 0);
      for (const size_t si : r.states) cleanup_worker(states_[si], r.pid);
    }
    for (const auto& f : finished_)
      for (const size_t si : f.states) cleanup_worker(states_[si], f.pid);
    throw;
  }
  show_progress(progress_, states_.size(), done_, failed_, skipped_, true);
  progress_.clear();
}

// "nvmesim sweep NAME: N points: ... done, ... failed, ... not run; S s, R points/s with J workers".
void print_summary(std::ostream& err, const Sweep& sw, const SweepRunOptions& opt, const WorkerPool& pool,
                   size_t points, size_t skipped) {
  const double secs = pool.elapsed();
  const size_t ran = pool.done() - skipped + pool.failed();  // points this run completed (not those stopped)
  const unsigned jobs = pool.jobs();
  // Built as a string: the sweep's name (or path) is the user's, of any length (issue 16's last
  // findings, item 10: a 512-byte snprintf cut it and what followed).
  char rate[96];
  std::snprintf(rate, sizeof rate, "%.1f s, %.2f points/s with %u worker%s", secs,
                secs > 0 ? static_cast<double>(ran) / secs : 0.0, jobs, jobs == 1 ? "" : "s");
  const std::string line =
      "nvmesim sweep " + (sw.name.empty() ? sw.source : sw.name) + ": " + std::to_string(points) + " point" +
      (points == 1 ? "" : "s") +
      (opt.shard.count > 1 ? " in shard " + std::to_string(opt.shard.index) + "/" + std::to_string(opt.shard.count) : "") +
      ": " + std::to_string(pool.done()) + " done (" + std::to_string(skipped) + " already complete), " +
      std::to_string(pool.failed()) + " failed, " + std::to_string(points - pool.done() - pool.failed()) + " not run; " + rate;
  err << terminal_text(line) << "\n";  // names and paths as the user wrote them, made safe
  if (pool.stop_signal()) err << "nvmesim: stopped by " << signal_name(pool.stop_signal()) << "; continue with --resume\n";
}

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
  const SweepDirs d(opt.out_dir);
  const FdCloser lock{lock_dir(d.dir)};
  const ojson run = sweep_run_record(opt.sweep_file);
  prepare_dir(d, sw, opt.shard, opt.resume, run, opt.outputs);
  size_t skipped = 0;
  std::vector<PointState> states = shard_states(d, sw, opt.shard, opt.outputs, skipped);
  WorkerPool pool(sw, opt, d, states, skipped, err);
  // Written now too, so that a shard killed or still running is known by its manifest: merge then
  // names its points as missing with the Slurm task that has them.
  write_manifest(d.dir, sw, opt.shard, run, opt.outputs, states);
  pool.run();
  ::rmdir(d.work.c_str());
  // A manifest that cannot be written (the disk a worker filled, too) is said with the summary
  // and the worker's failure, not instead of them (attack of stop 27: only the manifest's error
  // was printed, without the point, its message or --resume).
  std::string manifest_error;
  try {
    write_manifest(d.dir, sw, opt.shard, run, opt.outputs, states);
  } catch (const IoError& e) {
    manifest_error = e.what();
  }
  if (!opt.quiet) print_summary(err, sw, opt, pool, states.size(), skipped);
  if (!pool.io_error().empty() || !manifest_error.empty())
    throw IoError((pool.io_error().empty() ? "" : "I/O failure in " + pool.io_error() + "; ") +
                  (manifest_error.empty() ? "" : "the manifest was not updated: " + manifest_error + "; ") +
                  "the sweep stopped (no more points started); make room or fix the folder, then continue with --resume");
  if (pool.stop_signal()) return 128 + pool.stop_signal();
  return pool.failed() ? kExitPointsFailed : 0;
}

}  // namespace nvmesim
