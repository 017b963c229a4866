#pragma once
// The Linux NVMe PCI probe, replayed against a controller model over BAR0 (DESIGN section 5;
// order of operations: shared/reference/linux-readiness.md sections 1 and 3). One SC_THREAD per
// controller; it waits for start(), runs one probe, reports, and waits for the next trial.
#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "host/host_memory.hpp"
#include "host/host_params.hpp"
#include "models/controller_params.hpp"
#include "models/recorder.hpp"
#include "models/rng.hpp"

namespace nvmesim {

/// How a controller's probe ended (`status` in the timeline).
enum class ProbeStatus : uint8_t {
  ok,      ///< reached the queues line
  enodev,  ///< -ENODEV: not ready by the deadline, or CSTS read all ones
  eintr,   ///< -EINTR: a fatal signal during a wait
  fatal,   ///< CSTS.CFS set
};
const char* to_string(ProbeStatus s);

/// Thrown when a trial exceeds a safety limit (HostParams::max_polls_per_wait,
/// HostParams::max_events_per_trial, kMaxTrialPs).
class SimulationLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What one controller's probe did in one trial. Times are ps from driver init.
struct ProbeOutcome {
  ProbeStatus status = ProbeStatus::ok;
  int64_t end_ps = 0;  ///< the queues line, or the failure
  std::string error;   ///< set when the trial hit a safety limit (SimulationLimitError)
};

/// Everything one probe needs for one trial. Pointers must outlive the trial.
struct ProbeSetup {
  const HostParams* host = nullptr;
  const ControllerParams* ctrl = nullptr;
  const TickClock* clock = nullptr;
  Recorder* recorder = nullptr;
  uint64_t seed = 0;
  uint64_t trial = 0;
};

class linux_probe : public sc_core::sc_module {
 public:
  /// To BAR0 through the link.
  tlm_utils::simple_initiator_socket<linux_probe> bar;
  /// The host memory this controller's DMA reaches.
  host_memory memory;

  SC_HAS_PROCESS(linux_probe);
  /// `index` is the N of nvmeN.
  linux_probe(sc_core::sc_module_name name, int index);

  /// Starts a probe now (trial time 0 is the current simulation time).
  void start(const ProbeSetup& setup);
  bool done() const { return done_; }
  const sc_core::sc_event& done_event() const { return done_ev_; }
  const ProbeOutcome& outcome() const { return outcome_; }

 private:
  void run();  // SC_THREAD
  void probe();
  // MMIO through the link; the thread waits for the read's round trip or the write's posting.
  uint32_t read32(uint32_t offset, const char* reg);
  void write32(uint32_t offset, uint32_t value, const char* reg);
  void mmio(tlm::tlm_command cmd, uint32_t offset, uint8_t* data, const char* reg, uint32_t value);
  // One nvme_wait_ready loop (linux-readiness.md section 1). Returns 0, -ENODEV or -EINTR.
  int wait_ready(uint64_t timeout_500ms, bool want_ready, const char* op, size_t phase_index);
  void sleep_once(const SleepPolicy& policy);
  // One synchronous admin command; returns CQE DW0.
  uint32_t admin_command(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1);
  void message(const std::string& text);
  int64_t now_rel() const;
  // Safety limits: counts one operation against max_events_per_trial and checks the trial's
  // simulated time against kMaxTrialPs; throws SimulationLimitError.
  void check_limits();
  void fail(ProbeStatus status, int errno_value);

  const int index_;
  const std::string dev_;  // "nvme0"
  uint64_t h_init_, h_wakeup_, h_irq_;
  ProbeSetup s_;
  Stream init_stream_, wakeup_stream_, irq_stream_;
  int64_t t0_ps_ = 0;
  bool done_ = true;
  ProbeOutcome outcome_;
  sc_core::sc_event start_ev_, done_ev_;
  uint16_t sq_tail_ = 0, cq_head_ = 0, next_cid_ = 0;
  bool cq_phase_ = true;
  uint32_t ctrl_config_ = 0;
  tlm::tlm_generic_payload trans_;
};

}  // namespace nvmesim
