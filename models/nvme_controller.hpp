#pragma once
// The NVMe controller model (DESIGN section 4): BAR0 registers and the PCI function's
// configuration space behind a TLM-2.0 target socket, the enable/disable/shutdown state machine
// with latencies drawn per trial, and the admin queue (SQE fetch by DMA, per-opcode processing,
// CQE post, MSI-X), all on the controller clock.
//
// Cycle-accurate at the register interface, not a pipeline model of the controller's firmware:
// every controller-side change happens on a rising edge of the controller clock, computed as the
// first edge at or after its due time, without a clock process. Loosely timed (TLM-2.0 LT with
// temporal decoupling): b_transport handles an access when it is called and stamps it with its
// annotated times. A write takes effect write_cycles after its arrival edge and is applied with
// that time; a read is sampled once every earlier write has taken effect (the later of its
// arrival edge and the last write's effect edge), so no read sees a write early; the signals
// change at the effect time (publish()). A state transition costs one SystemC event (so that the
// timeline and traces show it when it happens, even if nobody reads CSTS then); an admin
// completion costs one more. A controller that takes 128 s to become ready costs what the host's
// polls cost, not 64 billion clock cycles.
//
// Write effects are not deferred through a payload event queue: applying them at their effect
// time changes the order in which the PCIe link model reserves its transmitters (a posted write
// would no longer wait behind the completion of a DMA that its previous write started), and so
// the outputs. Branch house-regs-peq holds that variant.
//
// The registers are data: the tables in nvme_controller_regs.cpp (offset, width, access, reset
// value, the resets that restore each register, hooks), applied by RegisterFile.
#include <array>
#include <cstdint>
#include <deque>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/recorder.hpp"
#include "core/rng.hpp"
#include "models/controller_params.hpp"
#include "models/nvme_regs.hpp"
#include "models/pcie_transport.hpp"
#include "models/register_file.hpp"

namespace nvmesim {

/// The controller's state machine (DESIGN section 4). CSTS is a function of the state.
enum class ControllerState : uint8_t {
  disabled,             ///< EN=0, RDY=0
  enabling,             ///< EN=1, RDY=0 until the enable latency has passed
  ready,                ///< EN=1, RDY=1
  resetting,            ///< EN=0, RDY=1 until the disable latency has passed
  shutdown_processing,  ///< SHN written, SHST=01
  shutdown_complete,    ///< SHST=10
  fatal,                ///< CFS=1
  removed,              ///< the function is gone (surprise removal): reads all ones, writes dropped
};
const char* to_string(ControllerState s);

class nvme_controller : public sc_core::sc_module, public TimedWork {
 public:
  /// BAR0 (memory requests: 4-byte accesses, 8-byte ones to CAP, ASQ and ACQ) and the
  /// configuration space (payloads with a pcie_config_extension: 1, 2 or 4 bytes). A wrong
  /// access is answered with TLM_BURST_ERROR_RESPONSE (length, streaming width),
  /// TLM_ADDRESS_ERROR_RESPONSE (misaligned, beyond the space) or TLM_BYTE_ENABLE_ERROR_RESPONSE
  /// (byte enables other than all bytes), and has no effect.
  tlm_utils::simple_target_socket<nvme_controller> bar0;
  /// Bus master: SQE fetch, CQE and data writes, MSI-X writes, to host memory. A response other
  /// than TLM_OK_RESPONSE is an error the controller reports (a warning; CFS for queue entries).
  tlm_utils::simple_initiator_socket<nvme_controller> dma;

  SC_HAS_PROCESS(nvme_controller);
  /// True while an admin command is in flight, the media is yet to come ready (an AER may
  /// complete) or a surprise removal is scheduled: work of its own SC_METHODs, which a
  /// decoupled host must let happen before its next access (TimedWork).
  bool timed_work_pending() const override;
  /// `index` is the N of nvmeN; its streams are named "nvmeN/...".
  nvme_controller(sc_core::sc_module_name name, int index);

  /// Starts trial `trial` of a run with scenario seed `seed`: a platform reset (power-on), then
  /// the handoff state of `params`. Trial time 0 is now. `params` and `recorder` must outlive the
  /// trial.
  void begin_trial(const ControllerParams* params, uint64_t seed, uint64_t trial, Recorder* recorder);

  /// CC.EN, CSTS.RDY, CSTS.CFS and CSTS.SHST as signals (for sc_trace / --vcd). Each changes at
  /// the simulated time the register does (a write's effect, a transition's clock edge); one
  /// method writes them all.
  sc_core::sc_signal<bool> cc_en_sig{"CC_EN"}, rdy_sig{"CSTS_RDY"}, cfs_sig{"CSTS_CFS"};
  sc_core::sc_signal<sc_dt::sc_uint<2>> shst_sig{"CSTS_SHST"};
  /// Adds the four signals to `tf` as PREFIX.CC_EN, PREFIX.CSTS_RDY, ... (before sc_start) and
  /// turns their updates on (without a trace file they cost nothing).
  void trace_signals(sc_core::sc_trace_file* tf, const std::string& prefix);
  /// A platform reset (reboot): the controller returns to the state firmware leaves it in
  /// (`handoff`), now; writes still in flight are lost. Random streams continue; the trial's
  /// time origin stays.
  void platform_reset();
  /// Leaves the controller out of the trial that starts now (the variant has fewer controllers;
  /// engine/system.cpp). The timed work still pending from an earlier trial (a state transition,
  /// a command's completion, the media, a surprise removal, the waveform's register values) is
  /// dropped, so that nothing of that trial happens, or is recorded, during this one (attack of
  /// stop 28: an enable still under way when a 2-controller trial ended put "state ready" for
  /// nvme1 into the next 1-controller trial's trace). The next trial that uses it calls
  /// begin_trial.
  void leave_out();

  using Spec = RegisterSpec<nvme_controller>;
  /// The BAR0 register table as declared (`n` receives its length): for docs and tests.
  static const Spec* bar0_table(size_t& n);
  /// The configuration-space register table as declared.
  static const Spec* config_table(size_t& n);

 private:
  // Rows of the BAR0 table (nvme_controller_regs.cpp), in table order.
  enum Bar0Row : uint8_t { kCapRow, kVsRow, kIntmsRow, kIntmcRow, kCcRow, kCstsRow, kNssrRow, kAqaRow,
                           kAsqRow, kAcqRow, kCrtoRow, kDoorbellRow, kBar0Rows };
  // Rows of the configuration-space table.
  enum ConfigRow : uint8_t { kIdRow, kCommandRow, kClassRow, kCapPtrRow, kPcieCapRow, kDevCapRow, kDevCtlRow,
                             kConfigRows };
  // The random draws of a trial, one stream each ("nvmeN/<name>", kDraws in nvme_controller.cpp).
  enum class Draw : uint8_t { enable, disable, shutdown, identify, set_features, create_queue, abrupt_shutdown,
                              media, cfs_on_enable, delete_queue, count };
  struct Pending {
    bool active = false;
    ControllerState to = ControllerState::disabled;
    int64_t due_ps = 0;
  };
  // A decoded write, applied at its effect time.
  struct PendingWrite {
    bool config = false;
    RegisterFile<nvme_controller>::Hit hit;
    uint64_t offset = 0;
    uint32_t len = 0;
    uint64_t data = 0;
  };

  // ---- transport (nvme_controller.cpp)
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  tlm::tlm_response_status check(tlm::tlm_generic_payload& trans, bool config,
                                 RegisterFile<nvme_controller>::Hit& hit) const;
  void apply(const PendingWrite& w, int64_t t_ps);
  bool gone(int64_t t_ps) const;
  // ---- state machine (nvme_controller.cpp)
  int64_t edge_at_or_after(int64_t t_ps) const;
  void advance(int64_t t_ps);
  void enter(ControllerState s, int64_t t_ps);
  void schedule(ControllerState to, int64_t due_ps);
  uint32_t csts_value() const;
  void write_cc(uint32_t old_value, int64_t t_ps);
  void enable(const regs::Cc& cc, int64_t t_ps);
  void on_transition();  // SC_METHOD on transition_ev_: applies a due transition
  void on_removal();     // SC_METHOD on removal_ev_: surprise removal
  void warn(int64_t t_ps, std::string text);
  int64_t rel(int64_t abs_ps) const { return abs_ps - t0_ps_; }
  int64_t draw_ps(Draw d);
  // ---- registers and resets (nvme_controller_regs.cpp)
  void reset(ResetKind kind, int64_t t_ps);
  void abort_work();
  void apply_handoff();
  uint64_t cap_value() const;
  uint64_t vs_value() const;
  uint64_t crto_value() const;
  uint64_t pci_id_value() const;
  uint64_t csts_read(int64_t t_ps) const;
  uint64_t zero_read(int64_t t_ps) const;
  void cc_write(const RegWrite& w);
  void nssr_write(const RegWrite& w);
  void doorbell_write(const RegWrite& w);
  void devctl_write(const RegWrite& w);
  uint32_t aqa() const { return static_cast<uint32_t>(bar0_regs_.value(kAqaRow)); }
  uint64_t asq() const { return bar0_regs_.value(kAsqRow); }
  uint64_t acq() const { return bar0_regs_.value(kAcqRow); }
  uint32_t cc() const { return static_cast<uint32_t>(bar0_regs_.value(kCcRow)); }
  // ---- admin queue (nvme_controller_admin.cpp)
  void ring_sq_doorbell(uint32_t tail, int64_t t_ps);
  void start_next_command(int64_t t_ps);
  void complete_command();  // SC_METHOD on admin_done_
  // Writes the CQE (then MSI-X) at annotated `delay`; false when the CQE write failed (CFS follows).
  bool post_cqe(uint16_t cid, uint32_t dw0, uint16_t status, sc_core::sc_time delay);
  void on_media_ready();    // SC_METHOD on media_ev_: completes an outstanding AER
  // One DMA through `dma` at annotated `delay` (advanced to its completion); false, with a
  // warning, when the response is not TLM_OK_RESPONSE.
  bool dma_transfer(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint32_t len, sc_core::sc_time& delay,
                    const char* what);
  // Register values for the signals, applied at their time by apply_published (SC_METHOD).
  struct Published {
    int64_t t_ps;
    uint32_t cc, csts;
  };
  void publish(int64_t t_ps);
  void apply_published();
  std::deque<Published> published_;
  bool tracing_ = false;
  sc_core::sc_event publish_ev_;

  const int index_;
  const ControllerParams* p_ = nullptr;
  Recorder* rec_ = nullptr;
  int64_t t0_ps_ = 0;
  int64_t last_write_effect_ps_ = 0;  // reads are sampled after earlier writes took effect
  std::array<uint64_t, static_cast<size_t>(Draw::count)> draw_hash_{};  // fnv1a64("nvmeN/<name>")
  std::array<Stream, static_cast<size_t>(Draw::count)> streams_{};

  // Registers and state.
  RegisterFile<nvme_controller> bar0_regs_;
  RegisterFile<nvme_controller> config_regs_;
  ControllerState state_ = ControllerState::disabled;
  Pending pending_;
  sc_core::sc_event transition_ev_;  // one event per state transition, none per clock cycle
  sc_core::sc_event removal_ev_;     // the surprise removal (faults.all_ones without an end)
  int64_t media_ready_ps_ = 0;       // absolute time the namespaces are ready (after the last enable)
  bool aer_outstanding_ = false;     // an Asynchronous Event Request waits for an event
  uint16_t aer_cid_ = 0;
  sc_core::sc_event media_ev_;
  int64_t media_due_ps_ = -1;    // absolute time media_ev_ is notified for, -1 none
  int64_t removal_due_ps_ = -1;  // absolute time removal_ev_ is notified for, -1 none

  // Admin queue.
  uint32_t sq_tail_ = 0, sq_head_ = 0, cq_tail_ = 0;
  bool cq_phase_ = true;
  bool busy_ = false;
  uint8_t cur_opcode_ = 0;
  uint16_t cur_cid_ = 0;
  uint32_t cur_dw0_ = 0;
  uint64_t cur_prp1_ = 0;
  uint8_t cur_cns_ = 0;
  tlm::tlm_generic_payload dma_trans_;  // reused by every DMA (see dma_transfer())
  int64_t cur_start_ps_ = 0;
  sc_core::sc_event admin_done_;
  uint32_t io_queues_requested_ = 0;
};

}  // namespace nvmesim
