#include "fit/forward.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <csignal>
#include <ctime>

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/json_text.hpp"
#include "core/signals.hpp"

namespace nvmesim {

using oj = nlohmann::ordered_json;

namespace {

oj lognormal(double median_s, double sigma) {
  return {{"dist", "lognormal"}, {"mu_ln_s", std::log(median_s)}, {"sigma", sigma}};
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int64_t floor_us(int64_t ns) { return ns / 1000 * 1000; }

// A child's error message without "nvmesim: error: " and the chunk file's name, and without the
// trailing newline.
std::string child_detail(std::string text, const std::string& chunk) {
  for (const std::string& prefix : {std::string("nvmesim: error: "), chunk + ": "})
    if (text.compare(0, prefix.size(), prefix) == 0) text.erase(0, prefix.size());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text.empty() ? "(no message)" : text;
}

// The integer after `key` at or after `pos` in `s`; moves pos past it.
bool read_int_after(const std::string& s, size_t& pos, const char* key, int64_t& v) {
  const size_t p = s.find(key, pos);
  if (p == std::string::npos) return false;
  size_t i = p + std::strlen(key);
  int64_t x = 0;
  bool any = false;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') x = x * 10 + (s[i++] - '0'), any = true;
  pos = i;
  v = x;
  return any;
}

}  // namespace

SimHost sim_host_of(const Observations& obs, size_t h) {
  const ObsHost& x = obs.hosts[h];
  SimHost s;
  s.name = x.name;
  s.host = {{"kernel", x.kernel}, {"hz", x.hz}, {"tick", x.tick}, {"highres", x.highres},
            {"wakeup_latency", {{"dist", "lognormal"}, {"median", "20us"}, {"sigma", 0.5}}}, {"cpus", x.cpus}};
  s.io_queues = obs.io_queues(h);
  return s;
}

oj host_json(const SimHost& host, const Theta& t) {
  oj h = host.host;
  h["init_to_probe"] = lognormal(t.init_to_probe_median_s, t.init_to_probe_sigma);
  return h;
}

oj controller_json(const Theta& t, int io_queues, const oj& fixed) {
  oj c = {{"name", "nvme0"}, {"handoff", t.handoff_enabled ? "enabled" : "disabled"}};
  c["disable_latency"] = t.disable_immediate ? oj("0ns") : lognormal(t.disable_median_s, t.disable_sigma);
  c["enable_latency"] = t.enable_immediate ? oj("0ns") : lognormal(t.enable_median_s, t.enable_sigma);
  c["admin"] = {{"identify", lognormal(t.identify_median_s, t.admin_sigma)},
                {"set_features", lognormal(t.set_features_median_s, t.admin_sigma)},
                {"create_queue", lognormal(t.create_queue_median_s, t.create_queue_sigma)}};
  c["io_queues"] = io_queues;
  for (const auto& [k, v] : fixed.items()) c[k] = v;
  return c;
}

oj chunk_scenario(const std::vector<SimJob>& jobs, size_t first, size_t count, size_t trials, uint64_t seed,
                  const std::string& link, const oj& fixed) {
  const SimJob& j0 = jobs[first];
  oj sc = {{"schema", "nvmesim.scenario/1"}, {"name", "fit"}, {"seed", seed}, {"trials", trials},
           {"host", host_json(*j0.host, j0.theta)}, {"link", {{"preset", link}}},
           {"controllers", oj::array({controller_json(j0.theta, j0.host->io_queues, fixed)})}, {"workload", "probe"}};
  oj vs = oj::array();
  for (size_t i = 0; i < count; ++i) {
    const SimJob& j = jobs[first + i];
    vs.push_back({{"name", "v" + std::to_string(i)},
                  {"patch", {{"host", host_json(*j.host, j.theta)},
                             {"controllers", oj::array({controller_json(j.theta, j.host->io_queues, fixed)})}}}});
  }
  sc["variants"] = vs;
  return sc;
}

void scan_trials(const std::string& text, size_t variants, size_t trials, std::vector<SimTrial>& out, size_t offset,
                 const std::string& tool) {
  size_t pos = 0, seen = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.rfind("{\"record\":\"trial\",", 0) != 0) continue;
    // Each key is searched from the start of the record: the scan does not depend on key order.
    size_t p = 0, p2 = 0;
    int64_t v = 0, k = 0, probe = 0, pci = 0;
    if (!read_int_after(line, p, "\"variant\":\"v", v) || !read_int_after(line, p2, "\"trial\":", k))
      throw std::runtime_error(tool + ": a trial record without variant and trial: " + line.substr(0, 200));
    p = 0;
    if (static_cast<size_t>(v) >= variants || static_cast<size_t>(k) >= trials)
      throw std::runtime_error(tool + ": a trial record out of range: " + line.substr(0, 200));
    SimTrial& t = out[offset + static_cast<size_t>(v) * trials + static_cast<size_t>(k)];
    t.ok = line.find("\"status\":\"ok\"", p) != std::string::npos;
    if (t.ok) {
      size_t q = p;
      if (!read_int_after(line, q, "\"probe_ns\":", probe)) throw std::runtime_error(tool + ": a trial without probe_ns");
      const size_t pp = line.find("\"name\":\"pre_probe\"", q);
      size_t r = pp;
      if (pp == std::string::npos || !read_int_after(line, r, "\"end_ns\":", pci))
        throw std::runtime_error(tool + ": a trial without its pre_probe phase");
      t.queues_ns = floor_us(probe);
      t.pci_ns = floor_us(pci);
    }
    ++seen;
  }
  if (seen != variants * trials)
    throw std::runtime_error(tool + ": a chunk gave " + std::to_string(seen) + " trials, expected " + std::to_string(variants * trials));
}

ForwardModel::ForwardModel(std::string exe, unsigned jobs, std::string link, std::string tool)
    : exe_(std::move(exe)), link_(std::move(link)), tool_(std::move(tool)), jobs_(jobs ? jobs : 1) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/nvmesim-fit-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) throw IoError(templ + ": cannot create a temporary folder: " + std::strerror(errno));
  dir_ = buf.data();
}

ForwardModel::~ForwardModel() {
  // Every file in the folder (the chunks' and any temporary a stopped child left), then the folder.
  if (DIR* d = ::opendir(dir_.c_str())) {
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.push_back(e->d_name);
    ::closedir(d);
    for (const auto& n : names) ::unlink((dir_ + "/" + n).c_str());
  }
  ::rmdir(dir_.c_str());
}

void ForwardModel::stop_children(std::vector<pid_t>& live) {
  for (pid_t p : live) ::kill(p, SIGTERM);
  for (pid_t p : live) {
    int st = 0;
    while (::waitpid(p, &st, 0) < 0 && errno == EINTR) {
    }
  }
  live.clear();
}

double ForwardModel::child_cpu_s() const {
  rusage ru{};
  ::getrusage(RUSAGE_CHILDREN, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

std::vector<SimTrial> ForwardModel::run(const std::vector<SimJob>& jobs, size_t trials, size_t group,
                                        const std::vector<uint64_t>& seeds) {
  std::vector<SimTrial> out(jobs.size() * trials);
  struct Chunk {
    size_t first, count;
    uint64_t seed, id;
    pid_t pid = 0;
  };
  std::vector<Chunk> chunks;
  const size_t per = std::min(group ? group : kMaxChunkVariants, kMaxChunkVariants);
  for (size_t a = 0, g = 0; a < jobs.size(); a += per, ++g)
    chunks.push_back({a, std::min(per, jobs.size() - a), seeds.at(g), counter_++});
  auto base = [&](const Chunk& c) { return dir_ + "/c" + std::to_string(c.id); };
  size_t next = 0, running = 0, done = 0;
  std::vector<Chunk*> live;
  std::string failure, refused;  // the first failing child's message; its detail when it exited 2
  while (done < chunks.size()) {
    while (failure.empty() && next < chunks.size() && running < jobs_) {
      Chunk& c = chunks[next++];
      const std::string b = base(c);
      {
        std::ofstream f(b + ".json", std::ios::binary);
        f << chunk_scenario(jobs, c.first, c.count, trials, c.seed, link_, device_).dump();
        if (!f) throw IoError(b + ".json: cannot write the chunk scenario");
      }
      const std::string sj = b + ".json", oj_path = b + ".jsonl", ep = b + ".err";
      const pid_t pid = ::fork();
      if (pid < 0) throw IoError(std::string("fork: ") + std::strerror(errno));
      if (pid == 0) {
        const int e = ::open(ep.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int nul = ::open("/dev/null", O_RDWR);
        if (e >= 0) ::dup2(e, 2);
        if (nul >= 0) ::dup2(nul, 1), ::dup2(nul, 0);
        const char* argv[] = {exe_.c_str(), "run", sj.c_str(), "--format", "jsonl", "-q", "--out", oj_path.c_str(), nullptr};
        ::execv(exe_.c_str(), const_cast<char* const*>(argv));
        ::_exit(127);
      }
      c.pid = pid;
      live.push_back(&c);
      ++running;
    }
    // SIGINT/SIGTERM (core/signals.hpp): stop the running chunks and unwind (exit 130/143); the
    // destructor removes the folder. The wait polls, because the handler restarts waitpid.
    int status = 0;
    pid_t pid = 0;
    while (!stop_requested() && (pid = ::waitpid(-1, &status, WNOHANG)) == 0) {
      const timespec ts{0, 10'000'000};
      ::nanosleep(&ts, nullptr);
    }
    if (stop_requested()) {
      std::vector<pid_t> pids;
      for (const Chunk* c : live) pids.push_back(c->pid);
      stop_children(pids);
      throw Interrupted(stop_signal());
    }
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw IoError(std::string("waitpid: ") + std::strerror(errno));
    }
    for (size_t i = 0; i < live.size(); ++i) {
      if (live[i]->pid != pid) continue;
      Chunk& c = *live[i];
      live.erase(live.begin() + static_cast<long>(i));
      --running, ++done;
      const std::string b = base(c);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (failure.empty()) {
          const std::string text = slurp(b + ".err");
          failure = tool_ + ": the simulator failed on a chunk (" + exe_ + "): " + text;
          if (WIFEXITED(status) && WEXITSTATUS(status) == 2) refused = child_detail(text, b + ".json");
        }
        if (next < chunks.size()) done += chunks.size() - next, next = chunks.size();
      } else if (failure.empty()) {
        scan_trials(slurp(b + ".jsonl"), c.count, trials, out, c.first * trials, tool_);
      }
      for (const char* ext : {".json", ".jsonl", ".err"}) ::unlink((b + ext).c_str());
      break;
    }
  }
  if (stop_requested()) throw Interrupted(stop_signal());  // a child stopped by the same signal
  if (!refused.empty()) throw SimulatorRefused(failure, refused);
  if (!failure.empty()) throw std::runtime_error(failure);
  trials_ += jobs.size() * trials;
  processes_ += chunks.size();
  return out;
}

}  // namespace nvmesim
