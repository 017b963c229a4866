#pragma once
// The NVMe controller model (DESIGN section 4): BAR0 registers behind a TLM-2.0 target socket,
// the enable/disable/shutdown state machine with latencies drawn per trial, and the admin queue
// (SQE fetch by DMA, per-opcode processing, CQE post, MSI-X), all on the controller clock.
//
// Cycle accuracy without a clock process: every controller-side change happens on a rising edge,
// computed as the first edge at or after its due time. The state is evaluated lazily at the
// (annotated) time of each access, so a controller that takes 128 s to become ready costs what
// the host's polls cost, not 64 billion clock cycles. A state transition costs one SystemC event
// (so that the timeline and traces show it when it happens, even if nobody reads CSTS then);
// an admin completion costs one more.
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
  removed,              ///< the function is gone: every read returns all ones
};
const char* to_string(ControllerState s);

class nvme_controller : public sc_core::sc_module {
 public:
  /// BAR0: 32- and 64-bit register reads and writes, doorbells.
  tlm_utils::simple_target_socket<nvme_controller> bar0;
  /// Bus master: SQE fetch, CQE and data writes, MSI-X writes, to host memory.
  tlm_utils::simple_initiator_socket<nvme_controller> dma;

  SC_HAS_PROCESS(nvme_controller);
  /// `index` is the N of nvmeN; its streams are named "nvmeN/...".
  nvme_controller(sc_core::sc_module_name name, int index);

  /// Resets the controller to the handoff state of `params` for trial `trial` of a run with
  /// scenario seed `seed`. Trial time 0 is now. `params` and `recorder` must outlive the trial.
  void begin_trial(const ControllerParams* params, uint64_t seed, uint64_t trial, Recorder* recorder);

  /// The state as of absolute time `t_ps` (for tests and tracing).
  ControllerState state_at(int64_t t_ps);

  /// CC.EN, CSTS.RDY, CSTS.CFS and CSTS.SHST as signals (for sc_trace / --vcd). Each changes at
  /// the simulated time the register does (a write's effect, a transition's clock edge), also
  /// when the change was evaluated lazily earlier; one method writes them all.
  sc_core::sc_signal<bool> cc_en_sig{"CC_EN"}, rdy_sig{"CSTS_RDY"}, cfs_sig{"CSTS_CFS"};
  sc_core::sc_signal<sc_dt::sc_uint<2>> shst_sig{"CSTS_SHST"};
  /// Adds the four signals to `tf` as PREFIX.CC_EN, PREFIX.CSTS_RDY, ... (before sc_start) and
  /// turns their updates on (without a trace file they cost nothing).
  void trace_signals(sc_core::sc_trace_file* tf, const std::string& prefix);
  /// A platform reset (reboot): the controller returns to the state firmware leaves it in
  /// (`handoff`), now. Random streams continue; the trial's time origin stays.
  void platform_reset();

 private:
  struct Pending {
    bool active = false;
    ControllerState to = ControllerState::disabled;
    int64_t due_ps = 0;
  };
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  int64_t edge_at_or_after(int64_t t_ps) const;
  void advance(int64_t t_ps);
  void enter(ControllerState s, int64_t t_ps);
  void schedule(ControllerState to, int64_t due_ps);
  uint32_t csts_value() const;
  uint64_t read_register(uint32_t offset, uint32_t len);
  void write_register(uint32_t offset, uint64_t value, int64_t t_ps);
  void write_cc(uint32_t value, int64_t t_ps);
  void enable(const regs::Cc& cc, int64_t t_ps);
  void config_access(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void function_level_reset(int64_t t_ps);
  void reset_to_handoff();
  void post_cqe(uint16_t cid, uint32_t dw0, sc_core::sc_time delay);
  void on_media_ready();    // SC_METHOD on media_ev_: completes an outstanding AER
  void ring_sq_doorbell(uint32_t tail, int64_t t_ps);
  void start_next_command(int64_t t_ps);
  void complete_command();  // SC_METHOD on admin_done_
  void on_transition();     // SC_METHOD on transition_ev_: applies a due transition
  void warn(int64_t t_ps, std::string text);
  int64_t rel(int64_t abs_ps) const { return abs_ps - t0_ps_; }
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
  uint64_t h_enable_, h_disable_, h_shutdown_, h_identify_, h_set_features_, h_create_queue_;
  uint64_t h_abrupt_, h_media_, h_cfs_, h_delete_queue_;
  Stream s_enable_, s_disable_, s_shutdown_, s_identify_, s_set_features_, s_create_queue_;
  Stream s_abrupt_, s_media_, s_cfs_, s_delete_queue_;

  // Registers and state.
  ControllerState state_ = ControllerState::disabled;
  Pending pending_;
  uint32_t cc_ = 0;
  uint32_t aqa_ = 0;
  uint64_t asq_ = 0, acq_ = 0;
  uint32_t intms_ = 0;
  uint8_t aq_written_ = 0;            // bits: 1 AQA, 2 ASQ, 4 ACQ written since the last reset to defaults
  int64_t media_ready_ps_ = 0;        // absolute time the namespaces are ready (after the last enable)
  bool aer_outstanding_ = false;      // an Asynchronous Event Request waits for an event
  uint16_t aer_cid_ = 0;
  sc_core::sc_event media_ev_;

  // Admin queue.
  uint32_t sq_tail_ = 0, sq_head_ = 0, cq_tail_ = 0;
  bool cq_phase_ = true;
  bool busy_ = false;
  uint8_t cur_opcode_ = 0;
  uint16_t cur_cid_ = 0;
  uint32_t cur_dw0_ = 0;
  uint64_t cur_prp1_ = 0;
  uint8_t cur_cns_ = 0;
  tlm::tlm_generic_payload dma_trans_;  // reused by every DMA (see dma_transfer)
  std::array<uint8_t, 4096> identify_buf_{};  // reused: zeroed per command without a 4 KiB stack array
  int64_t cur_start_ps_ = 0;
  sc_core::sc_event admin_done_;
  sc_core::sc_event transition_ev_;  // one event per state transition, none per clock cycle
  uint32_t io_queues_requested_ = 0;
};

}  // namespace nvmesim
