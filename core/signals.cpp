#include "core/signals.hpp"

#include <cstring>
#include <unistd.h>

namespace nvmesim {

namespace {

volatile std::sig_atomic_t g_signal = 0;

// Temporary files to unlink from the handler on a second signal. A slot is usable when its flag
// is 1; the path is written before the flag is set and the flag cleared before the path changes.
constexpr int kSlots = 16;
constexpr size_t kPathMax = 4096;
char g_paths[kSlots][kPathMax];
volatile std::sig_atomic_t g_used[kSlots];

extern "C" void on_stop_signal(int sig) {
  if (g_signal != 0) {
    // Second signal: the user insists. Remove the partial outputs and die of the signal.
    for (int i = 0; i < kSlots; ++i)
      if (g_used[i]) ::unlink(g_paths[i]);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

}  // namespace

Interrupted::Interrupted(int signal_number)
    : std::runtime_error(std::string("interrupted by ") + signal_name(signal_number) +
                         "; complete outputs were kept, partial ones removed"),
      signal_(signal_number) {}

StopSignals::StopSignals() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  // SA_RESTART: a write to stdout or a pipe in progress completes instead of failing with EINTR;
  // the flag is checked between units of work anyway.
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

bool stop_requested() { return g_signal != 0; }
int stop_signal() { return static_cast<int>(g_signal); }
void request_stop(int signal_number) { g_signal = signal_number; }
void clear_stop() { g_signal = 0; }

int register_temp_file(const std::string& path) {
  if (path.size() + 1 > kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i]) continue;
    std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
    g_used[i] = 1;
    return i;
  }
  return -1;
}

void unregister_temp_file(int slot) {
  if (slot >= 0 && slot < kSlots) g_used[slot] = 0;
}

}  // namespace nvmesim
