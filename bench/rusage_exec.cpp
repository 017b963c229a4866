// rusage_exec: runs a command and writes its CPU time, wall time and peak RSS to a file, for
// bench/run.py. Why not os.wait4 in Python: Linux carries the peak RSS of the process image that
// calls exec into the new program's ru_maxrss, and a child forked from Python starts as a copy of
// the Python process (tens of MiB after reading outputs), which would hide nvmesim's own 10 MiB.
// Forked from this small program instead, the child's ru_maxrss is its own.
//
// Usage: rusage_exec OUT_FILE COMMAND [ARGS...]
// Writes "user_us system_us wall_us maxrss_kib\n" to OUT_FILE (user and system CPU of COMMAND and
// of the children it waited for, from wait4; wall from CLOCK_MONOTONIC; ru_maxrss in KiB) and
// exits with COMMAND's status (128 + signal when killed; 127 when it cannot be started).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: rusage_exec OUT_FILE COMMAND [ARGS...]\n");
    return 2;
  }
  timespec t0{}, t1{};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("rusage_exec: fork");
    return 127;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    std::perror("rusage_exec: exec");
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (wait4(pid, &status, 0, &ru) != pid) {
    std::perror("rusage_exec: wait4");
    return 127;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const long long wall_us = (t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000;
  std::FILE* f = std::fopen(argv[1], "w");
  if (f == nullptr || std::fprintf(f, "%lld %lld %lld %ld\n",
                                   ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec,
                                   ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec, wall_us,
                                   ru.ru_maxrss) < 0 || std::fclose(f) != 0) {
    std::perror("rusage_exec: writing the result");
    return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
}
