#include "support.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <thread>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nvmesim::test {

namespace {

using Clock = std::chrono::steady_clock;

// The child: stdout to /dev/null, stderr to `err_fd`, then exec; 127 when exec fails.
[[noreturn]] void exec_child(const std::vector<std::string>& args, int err_fd) {
  const int null = ::open("/dev/null", O_WRONLY);
  ::dup2(null, 1);
  ::dup2(err_fd, 2);
  std::vector<char*> argv{const_cast<char*>("nvmesim")};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(NVMESIM_BINARY, argv.data());
  ::_exit(127);
}

// Reaps `pid` if it has ended (blocking when `block`); fills r.status and r.peak_rss_kib.
bool reap(pid_t pid, bool block, SpawnResult& r) {
  int st = 0;
  struct rusage ru {};
  if (::wait4(pid, &st, block ? 0 : WNOHANG, &ru) != pid) return false;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.term_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  r.peak_rss_kib = ru.ru_maxrss;
  return true;
}

// Waits up to `limit` for `pid` to end (polling every 10 ms).
bool reap_within(pid_t pid, std::chrono::milliseconds limit, SpawnResult& r) {
  const auto until = Clock::now() + limit;
  while (!reap(pid, false, r)) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The captured stderr: the whole of the (unlinked) file `fd`, which is then closed.
std::string read_all(int fd) {
  std::string text;
  char buf[4096];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return text;
}

}  // namespace

SpawnResult spawn_nvmesim(const std::vector<std::string>& args, const SpawnOptions& o) {
  // stderr goes to an unlinked file rather than a pipe: a run that prints much never blocks.
  char name[] = "/tmp/nvmesim-test-stderr-XXXXXX";
  const int err_fd = ::mkstemp(name);
  REQUIRE(err_fd >= 0);
  ::unlink(name);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) exec_child(args, err_fd);
  SpawnResult r;
  bool ended = false;
  if (o.ready) {
    const auto until = Clock::now() + o.ready_within;
    while (!(r.ready = o.ready()) && !(ended = reap(pid, false, r)) && Clock::now() < until)
      if (o.poll.count() > 0) std::this_thread::sleep_for(o.poll);
    if (r.ready) {
      std::this_thread::sleep_for(o.signal_after);
      for (const int sig : o.signals) ::kill(pid, sig);
    }
  } else {
    r.ready = true;
  }
  if (!ended) {
    // Not ready in time: stopped at once (not signalled as asked); else it has end_within.
    if (r.ready) ended = reap_within(pid, o.end_within, r);
    if (!ended) {
      ::kill(pid, SIGKILL);
      reap(pid, true, r);
      r.status = -1;
    }
  }
  r.ended = ended;
  r.err = read_all(err_fd);
  return r;
}

}  // namespace nvmesim::test
