#pragma once
// Clean stops on SIGINT and SIGTERM (DESIGN section 9: outputs are never left half-written).
//
// Usage, for any long-running command (run, sweep):
//   StopSignals guard;                    // installs the handlers; restores the old ones on exit
//   while (work && !stop_requested()) ...  // check between units of work (trials, points)
//   if (stop_requested()) throw Interrupted(stop_signal());
// The CLI turns Interrupted into exit status 128 + signal (130 for SIGINT, 143 for SIGTERM) after
// the stack has unwound, so every uncommitted AtomicFile has removed its temporary file.
// A second signal while the first is being handled removes the registered temporary files at
// once and ends the process with the default action of that signal.
#include <csignal>
#include <stdexcept>
#include <string>

namespace nvmesim {

/// Thrown by a command that stopped early because of a signal; carries the signal number.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal_number);
  int signal_number() const { return signal_; }
  /// 128 + signal, the shell's convention (130 for SIGINT, 143 for SIGTERM).
  int exit_status() const { return 128 + signal_; }

 private:
  int signal_;
};

/// RAII: while alive, SIGINT and SIGTERM only set a flag (async-signal-safe). Not reentrant:
/// create one per command. The destructor restores the previous dispositions.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

/// True once SIGINT or SIGTERM arrived under a StopSignals guard.
bool stop_requested();
/// The signal that asked to stop (SIGINT or SIGTERM), or 0.
int stop_signal();
/// Sets the flag as if `signal_number` had arrived (for tests).
void request_stop(int signal_number);
/// Clears the flag (for tests; a new StopSignals guard also clears it).
void clear_stop();

/// Temporary files that a second, fatal signal must remove (AtomicFile registers its temporary).
/// Returns a slot, or -1 when all slots are taken (then the file is only removed on unwinding).
int register_temp_file(const std::string& path);
void unregister_temp_file(int slot);

}  // namespace nvmesim
