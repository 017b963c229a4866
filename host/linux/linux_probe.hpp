#pragma once
// The Linux NVMe PCI probe, replayed against a controller model over BAR0 (DESIGN section 5;
// order of operations: shared/reference/linux-readiness.md sections 1 and 3). One SC_THREAD per
// controller; it waits for start(), runs one probe, reports, and waits for the next trial.
#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/recorder.hpp"
#include "core/rng.hpp"
#include "host/host_memory.hpp"
#include "host/host_params.hpp"
#include "models/controller_params.hpp"
#include "models/nvme_regs.hpp"

namespace nvmesim {

/// The phases the Linux probe records (`phases` in the timeline), in the order the per-phase
/// summaries list them: the boot's probe, the shutdown, `nvme reset`, the next boot's probe.
namespace linux_phase {
inline constexpr PhaseId kPreProbe{0, "pre_probe"}, kDisable{1, "disable"}, kEnable{2, "enable"},
    kAdmin{3, "admin"}, kNamespace{4, "namespace"}, kShutdown{5, "shutdown"}, kResetTeardown{6, "reset_teardown"},
    kResetDisable{7, "reset_disable"}, kResetEnable{8, "reset_enable"}, kResetAdmin{9, "reset_admin"},
    kResetNamespace{10, "reset_namespace"}, kRebootPreProbe{11, "reboot_pre_probe"},
    kRebootDisable{12, "reboot_disable"}, kRebootEnable{13, "reboot_enable"}, kRebootAdmin{14, "reboot_admin"},
    kRebootNamespace{15, "reboot_namespace"};
}  // namespace linux_phase

/// What the probing host thread is doing, as the integer of linux_probe::state_sig (--vcd).
enum class HostState : uint8_t {
  idle = 0,            ///< before the first trial
  init_to_probe = 1,   ///< driver init until the async probe of this function starts
  pci_enable = 2,      ///< CSTS all-ones check, CAP and VS reads
  disable_wait = 3,    ///< CC.EN=0 written, polling CSTS.RDY=0
  sleep = 4,           ///< sleeping between two CSTS reads (in either wait)
  admin_queue = 5,     ///< AQA/ASQ/ACQ writes
  enable_wait = 6,     ///< CC.EN=1 written, polling CSTS.RDY=1
  admin_commands = 7,  ///< Identify, Set Features, Create I/O CQ/SQ
  done = 8,            ///< queues line printed
  failed = 9,          ///< probe failed (-ENODEV, -EINTR)
};

/// Thrown when a trial exceeds a safety limit (HostParams::max_polls_per_wait,
/// HostParams::max_events_per_trial, kMaxTrialPs).
class SimulationLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the host does to one controller next (DESIGN section 7, `workload`).
enum class HostAction : uint8_t {
  probe,     ///< the boot's probe (nvme_init -> queues line)
  shutdown,  ///< nvme_shutdown at power-off / reboot: delete I/O queues, CC.SHN, wait for SHST
  reset,     ///< `nvme reset`: delete I/O queues, disable, then the probe's configure path again
  reboot_probe,  ///< the probe of the next boot, after a shutdown and a platform reset
};

/// What one action on one controller did in one trial. Times are ps from driver init.
struct ProbeOutcome {
  ProbeStatus status = ProbeStatus::ok;
  int64_t start_ps = 0;      ///< when the action began
  int64_t end_ps = 0;        ///< the queues line, the end of the shutdown, or the failure
  int64_t namespace_ps = -1; ///< first namespace usable (probe actions that reached the queues line)
  std::string error;         ///< set when the trial hit a safety limit (SimulationLimitError)
};

/// Everything one probe needs for one trial. Pointers must outlive the trial.
struct ProbeSetup {
  const HostParams* host = nullptr;
  const ControllerParams* ctrl = nullptr;
  const TickClock* clock = nullptr;
  Recorder* recorder = nullptr;
  uint64_t seed = 0;
  uint64_t trial = 0;
  /// dev_warn_once state of the "bad crto" warning: one flag per boot, shared by all controllers.
  bool* crto_warned = nullptr;
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

  /// Starts a trial's probe now (trial time 0 is the current simulation time).
  void start(const ProbeSetup& setup);
  /// Starts a later action of the same trial now (same time origin and streams).
  void start_action(HostAction action);
  bool done() const { return done_; }
  const sc_core::sc_event& done_event() const { return done_ev_; }
  const ProbeOutcome& outcome() const { return outcome_; }

  /// The thread's HostState as an integer, written when it changes (for sc_trace / --vcd).
  sc_core::sc_signal<sc_dt::sc_uint<4>> state_sig{"host_state"};

 private:
  struct PhaseNames {
    const PhaseId *pre_probe, *disable, *enable, *admin, *ns;  // pre_probe: nullptr when the path has none
  };
  void run();  // SC_THREAD
  // The probe from driver init (with pre_probe) or from nvme_pci_enable (reset's configure path).
  void probe(const PhaseNames& names);
  void shutdown();
  void reset();
  // nvme_disable_ctrl(shutdown=false): CC.EN=0, the quirk delay, wait RDY=0. Returns 0 or -errno.
  int disable(size_t phase);
  // Deletes the I/O queues created by the last probe (nvme_dev_disable).
  void delete_io_queues();
  // The 6.19 function-level reset: FLR, 100 ms, wait until the function answers. 0 or -errno.
  int function_level_reset();
  bool delay_quirk() const;
  void check_namespace(const PhaseNames& names);
  // MMIO through the link; the thread waits for the read's round trip or the write's posting.
  uint32_t read32(uint32_t offset, const char* reg);
  void write32(uint32_t offset, uint32_t value, const char* reg);
  // One BAR0 or configuration-space access of `len` bytes (2 or 4) at `address`, recorded as an
  // mmio_read/mmio_write event (value masked to `len`) when the trial is detailed. A response
  // other than TLM_OK_RESPONSE reads as all ones (a write is lost), and is recorded as a warning.
  void mmio(tlm::tlm_command cmd, uint64_t address, uint8_t* data, uint32_t len, const char* reg, uint32_t value,
            const char* detail = nullptr);
  // One configuration request (Type 0) of `len` bytes at configuration-space `offset`, through mmio().
  void config_access(tlm::tlm_command cmd, uint32_t offset, uint8_t* data, uint32_t len, const char* reg,
                     uint32_t value, const char* detail = nullptr);
  // One nvme_wait_ready loop (linux-readiness.md section 1). Returns 0, -ENODEV or -EINTR.
  // The deadline is jiffies + timeout: `seconds` gives timeout * HZ, else the release's form of
  // TO in 500 ms units. `mask`/`value` select the wanted CSTS state.
  int wait_ready(uint64_t timeout, bool seconds, uint32_t mask, uint32_t value, const char* op,
                 size_t phase_index);
  // The pre-6.2 shutdown loop (no all-ones check, its own message).
  int wait_shutdown_msleep_loop(uint64_t timeout_s, size_t phase_index);
  int64_t sleep_once(const SleepPolicy& policy);
  uint32_t read_config16(uint32_t offset);
  // One synchronous admin command; returns CQE DW0.
  uint32_t admin_command(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid = 0);
  uint16_t submit(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid);
  uint32_t wait_completion(uint16_t cid);
  void message(const std::string& text);
  int64_t now_rel() const;
  // Safety limits: counts one operation against max_events_per_trial and checks the trial's
  // simulated time against kMaxTrialPs; throws SimulationLimitError.
  void check_limits();
  void fail(ProbeStatus status, int errno_value);
  /// Thrown by wait_completion when an admin command gets no completion within the admin timeout
  /// (nvme_core.admin_timeout, 60 s): the driver disables the controller and the probe fails.
  struct AdminTimeout {};
  void set_state(HostState s);
  HostState awake_state_ = HostState::idle;

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
  HostAction action_ = HostAction::probe;
  regs::Cap cap_{};              // CAP as last read
  uint32_t granted_queues_ = 0;  // I/O queue pairs created by the last probe
  bool model_quirk_ = false;     // the model-string quirk matched at Identify (this boot)
  uint32_t shutdown_timeout_s_ = 5;
  bool crime_set_ = false;
  uint32_t last_csts_ = 0;       // CSTS of the last failed wait (CFS decides the status)
  bool aen_received_ = false;
  uint16_t aer_cid_ = 0xFFFF;
  tlm::tlm_generic_payload trans_;
};

}  // namespace nvmesim
