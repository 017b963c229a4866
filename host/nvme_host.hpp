#pragma once
// The host side of one PCI function (DESIGN section 5): the BAR0 initiator socket, the host
// memory the function's DMA reaches, one SC_THREAD that runs the actions of the HostDriver the
// platform gave it, and the plumbing every driver shares: BAR0 and configuration-space access,
// sleeps through the timer model, the admin queue (submit, wait for the completion by MSI-X or
// by polling, with a timeout), messages, phases, the outcome and the safety limits.
#include <cstdint>
#include <optional>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/recorder.hpp"
#include "core/rng.hpp"
#include "host/driver.hpp"
#include "host/host_memory.hpp"
#include "host/timers/sleep_policy.hpp"
#include "models/nvme_regs.hpp"
#include "models/pcie_transport.hpp"

namespace nvmesim {

/// How a driver learns that an admin command completed.
enum class CompletionWait : uint8_t {
  msix,  ///< sleep until the MSI-X interrupt, then read the CQ (Linux)
  poll,  ///< poll the CQE's phase tag in host memory without sleeping (U-Boot): sees the CQE on its arrival
};

/// One admin command's completion queue entry as the host read it (NVMe 2.0 section 4.2.4).
struct Completion {
  uint32_t dw0 = 0;     ///< DW0, command specific (Set Features Number of Queues: the queues granted)
  uint16_t status = 0;  ///< the Status Field, DW3 bits 31:17 (SC 7:0, SCT 10:8, CRD, M, DNR); 0: success
  uint16_t head = 0;    ///< the CQ slot it was read from (before the head moved on)
  bool phase = true;    ///< the phase tag it carried
  /// Found at the wait's deadline without its MSI-X (the interrupt was lost): Linux's timeout
  /// handler polls the CQ then and completes the command ("completion polled").
  bool polled = false;
  bool ok() const { return status == 0; }
};

class nvme_host : public sc_core::sc_module {
 public:
  /// To BAR0 through the link.
  tlm_utils::simple_initiator_socket<nvme_host> bar;
  /// The host memory this function's DMA reaches.
  host_memory memory;
  /// The thread's HostState as an integer, written when it changes (for sc_trace / --vcd).
  sc_core::sc_signal<sc_dt::sc_uint<4>> state_sig{"host_state"};

  SC_HAS_PROCESS(nvme_host);
  /// `index` is the N of nvmeN.
  nvme_host(sc_core::sc_module_name name, int index);

  // ---- the platform's side ------------------------------------------------------------------
  /// Temporal decoupling (TLM-2.0 loosely timed, IEEE 1666-2011 section 12.1): when on (the
  /// default), MMIO accesses, sleeps and pass_time() only advance the thread's local time offset,
  /// carried to the target as each access's annotated delay; the thread syncs (waits its offset)
  /// only before it looks at host memory for a completion, at the end of an action, before a
  /// once-per-boot check, and before each access while the target reports timed work of its own
  /// (TimedWork). Exact, because the controller and the link evaluate their state at each
  /// access's annotated time. Off: every access waits its delay (what a recorded waveform, --vcd,
  /// needs, since signals change at SystemC time, and a detailed trial, whose event list is cut
  /// in the order events are recorded). Set between trials, when the thread has synced.
  void set_decoupled(bool on) { decoupled_ = on; }
  /// What the target behind the BAR says about its own timed work (nullptr: none).
  void set_target_work(const TimedWork* work) { target_work_ = work; }
  /// A new trial starts now (trial time 0 is the current simulation time) with `driver` on this
  /// function; calls driver.begin_trial(context). `context`'s pointers outlive the trial. With
  /// `new_origin` false (a later stage of a boot chain) trial time 0 stays where it was, so the
  /// stage's times and events continue the trial's.
  void begin_trial(HostDriver& driver, const DriverContext& context, bool new_origin = true);
  /// Starts `action` of the current trial now (same time origin and streams).
  void start(HostAction action);
  bool done() const { return done_; }
  const sc_core::sc_event& done_event() const { return done_ev_; }
  const DriverOutcome& outcome() const { return outcome_; }

  // ---- the driver's side --------------------------------------------------------------------
  int index() const { return index_; }
  /// "nvme0": the N of nvmeN.
  const std::string& dev() const { return dev_; }
  const DriverContext& context() const { return ctx_; }
  const HostParams& params() const { return *ctx_.host; }
  Recorder& recorder() const { return *ctx_.recorder; }
  /// True when this trial keeps its full event list: check before building a message.
  bool detailed() const { return ctx_.recorder->detailed(); }
  /// Picoseconds since the trial's start, in the thread's local time (see set_decoupled).
  int64_t now_rel() const;
  void set_state(HostState s);

  /// A 32-bit BAR0 read; all ones when the link cannot complete it (a PCIe master abort).
  uint32_t read32(uint32_t offset, const char* reg);
  /// A posted 32-bit BAR0 write; the thread goes on once the TLP has left (its local time).
  void write32(uint32_t offset, uint32_t value, const char* reg);
  /// One configuration-space access of `len` (2 or 4) bytes at `offset` of this function, recorded
  /// as an mmio_read/mmio_write event (`detail` when given). The one place that knows how
  /// configuration space is addressed. Returns false when the function did not answer.
  bool config_access(tlm::tlm_command cmd, uint32_t offset, uint8_t* data, uint32_t len, const char* reg,
                     uint32_t value, const char* detail = nullptr);
  /// A 16-bit configuration read; 0xFFFF when the function does not answer.
  uint16_t read_config16(uint32_t offset, const char* reg);

  /// One sleep under `policy` through the timer model (host/timers; the release's timer rules and
  /// the scheduler wakeup latency when the policy schedules). Returns its length in ps.
  int64_t sleep(const SleepPolicy& policy);
  /// Lets `ps` pass without a host operation (e.g. the driver-core scheduling before a probe).
  void pass_time(int64_t ps);
  /// Brings SystemC time up to the thread's local time (waits the local offset, if any).
  void sync();
  /// BootState::first_in_boot in time order across functions: syncs first, so that of two
  /// functions the one that reaches the site earlier in simulated time is first, and of those
  /// reaching it at the same time the lowest index (N delta cycles for nvmeN: O(N) per call).
  bool first_in_boot(const char* what);

  /// Empties the admin queues for a new controller enable: SQ tail, CQ head, command ids, phase
  /// tag, and the host memory; `depth` entries per queue (at most hostmem::kAdminQueueDepth).
  void reset_admin_queue(uint32_t depth);
  /// CAP as two 32-bit reads, the low dword then the high one (U-Boot's, FreeBSD's and EDK2's
  /// drivers: "CAP" and "CAP+4" in the events), decoded; sets the doorbell stride from it.
  regs::Cap read_cap();
  /// CAP.DSTRD, for the doorbell addresses (set it whenever CAP is read).
  void set_doorbell_stride(uint8_t dstrd) { dstrd_ = dstrd; }
  /// Builds the SQE in host memory and rings the SQ tail doorbell; returns the command id.
  uint16_t submit(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid = 0);
  /// Consumes CQEs in order until the one for `cid` and returns it; nullopt when it has not come
  /// `timeout_ps` after the call (the caller reports and fails). The caller checks its status,
  /// as its real counterpart does.
  std::optional<Completion> wait_cqe(uint16_t cid, CompletionWait how, int64_t timeout_ps);
  /// submit, then wait_cqe.
  std::optional<Completion> admin_cqe(CompletionWait how, int64_t timeout_ps, uint8_t opcode, uint32_t cdw10,
                                      uint32_t cdw11, uint64_t prp1, uint32_t nsid = 0);
  /// wait_cqe's DW0 alone, whatever the status (the Linux driver's Delete I/O queue commands).
  std::optional<uint32_t> wait_completion(uint16_t cid, CompletionWait how, int64_t timeout_ps);
  /// submit, then wait_completion.
  std::optional<uint32_t> admin_command(CompletionWait how, int64_t timeout_ps, uint8_t opcode, uint32_t cdw10,
                                        uint32_t cdw11, uint64_t prp1, uint32_t nsid = 0);
  /// The id of one outstanding command that completes on its own time (an Asynchronous Event
  /// Request; 0xFFFF: none). Its CQE, when consumed while waiting for another command, sets
  /// async_completed() and clears the id.
  void set_async_cid(uint16_t cid) { async_cid_ = cid; }
  uint16_t async_cid() const { return async_cid_; }
  bool async_completed() const { return async_completed_; }
  void clear_async_completed() { async_completed_ = false; }

  /// Text put in front of every message ("nvme nvme0: " for Linux).
  void set_log_prefix(std::string prefix) { log_prefix_ = std::move(prefix); }
  /// A message event (a log line) now, when the trial is detailed.
  void message(const std::string& text);
  /// Opens a phase the driver declared (HostDriver::phases; std::logic_error otherwise) now.
  size_t open_phase(const PhaseId& id);
  void close_phase(size_t phase) { recorder().phase(phase).end_ps = now_rel(); }
  Phase& phase(size_t index) { return recorder().phase(index); }
  /// The action's outcome: `status`, ended now.
  void finish(ProbeStatus status);
  /// The first namespace is usable now.
  void namespace_ready() { outcome_.namespace_ps = now_rel(); }
  /// Safety limits: counts one operation against max_events_per_trial and checks the trial's
  /// simulated time against kMaxTrialPs; throws SimulationLimitError.
  void check_limits();

 private:
  void run();  // SC_THREAD
  // Sends trans_ (prepared by prepare()) to BAR0, waits for its delay and records the access.
  void transport_and_record(int64_t start_ps, const char* reg, uint32_t value, const char* detail);
  void prepare(tlm::tlm_command cmd, uint64_t address, uint8_t* data, uint32_t len);
  // Makes timeout_ev_ fire at absolute time at_ps or earlier (never adds a timed-queue entry
  // while a notification at or before at_ps is pending).
  void arm_timeout(int64_t at_ps);
  // Lets `ps` of the thread's time pass: into the local offset, or (coupled) a wait.
  void advance(int64_t ps);
  // Absolute local time (ps): SystemC time plus the local offset.
  int64_t now_local() const;

  const int index_;
  const std::string dev_;  // "nvme0"
  const uint64_t h_wakeup_, h_irq_;
  HostDriver* driver_ = nullptr;
  DriverContext ctx_;
  Stream wakeup_stream_, irq_stream_;
  int64_t t0_ps_ = 0;
  bool decoupled_ = true;
  int64_t offset_ps_ = 0;  // local time ahead of SystemC time (decoupled only)
  const TimedWork* target_work_ = nullptr;
  bool outstanding_ = false;  // a command submitted since the last reset_admin_queue (or trial start)
  bool done_ = true;
  HostAction action_ = HostAction::probe;
  DriverOutcome outcome_;
  sc_core::sc_event start_ev_, done_ev_;
  // The admin-command timeout: one event per host, re-armed per command. A timed notification
  // that is cancelled (or superseded) stays in SystemC's timed queue until its time; one per
  // command (60 s) would keep tens of thousands of dead entries in the heap. An earlier pending
  // notification wins over a later notify(), so arming never adds an entry while one is pending;
  // a wake-up from a stale (earlier) arming is recognised and the wait goes on.
  sc_core::sc_event timeout_ev_;
  int64_t timeout_at_ps_ = -1;  // absolute time of timeout_ev_'s pending notification, -1 none
  sc_core::sc_event_or_list irq_or_timeout_, cq_or_timeout_;
  HostState awake_state_ = HostState::idle;
  uint32_t depth_ = hostmem::kAdminQueueDepth;
  uint16_t sq_tail_ = 0, cq_head_ = 0, next_cid_ = 0;
  bool cq_phase_ = true;
  uint16_t last_cid_ = 0xFFFF;  // the last command submitted, for messages
  uint8_t last_opcode_ = 0;
  uint8_t dstrd_ = 0;
  uint16_t async_cid_ = 0xFFFF;
  bool async_completed_ = false;
  std::string log_prefix_;
  tlm::tlm_generic_payload trans_;
};

}  // namespace nvmesim
