#pragma once
// The PCIe link between the host's root port and one controller (DESIGN section 4).
// Loosely-timed TLM-2.0: b_transport calls carry an annotated delay, and the link adds TLP
// serialisation (from generation and width) and a one-way latency per direction. Transactions in
// one direction leave in order and arrive in order: a read never overtakes an earlier posted write
// (PCIe ordering rules, Base Specification 6.0 section 2.4.1, rule "A2").
#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/rng.hpp"
#include "models/controller_params.hpp"

namespace nvmesim {

/// Serialisation time in picoseconds of a TLP of `bytes` bytes (header, payload and 8 bytes of
/// framing, sequence number and LCRC) on a link of PCIe generation 1..5 and `width` lanes.
/// Throws std::invalid_argument for a generation outside 1..5 or a width outside 1..32.
int64_t tlp_serialisation_ps(int generation, int width, uint32_t bytes);

/// The serialisation rate of one link (generation and width), checked once: what
/// tlp_serialisation_ps computes, without the checks and the table look-up per TLP.
class TlpRate {
 public:
  TlpRate() = default;
  /// Throws std::invalid_argument as tlp_serialisation_ps does.
  TlpRate(int generation, int width);
  /// Serialisation time in ps of a TLP of `bytes` bytes (header and payload; framing added).
  int64_t serialisation_ps(uint32_t bytes) const;

 private:
  int64_t per_byte_ps_x1024_ = 0;  // ps per byte on one lane, times 1024
  int64_t den_ = 1024;             // 1024 x lanes
  int den_shift_ = 10;             // log2(den_) when the lanes are a power of two, else -1 (divide)
};

/// Header bytes of a memory request TLP (4 DW, 64-bit address) and of a completion (3 DW).
inline constexpr uint32_t kMemRequestHeaderBytes = 16;
inline constexpr uint32_t kCompletionHeaderBytes = 12;

class pcie_link : public sc_core::sc_module {
 public:
  /// Downstream: from the host (root port) to the controller's BAR0.
  tlm_utils::simple_target_socket<pcie_link> down_target;
  tlm_utils::simple_initiator_socket<pcie_link> down_initiator;
  /// Upstream: the controller's DMA (queue entries, data, MSI-X) to host memory.
  tlm_utils::simple_target_socket<pcie_link> up_target;
  tlm_utils::simple_initiator_socket<pcie_link> up_initiator;

  explicit pcie_link(sc_core::sc_module_name name);

  /// Prepares the link for a trial: parameters, the trial's random stream for one-way latencies
  /// (`<ctrl>/link_one_way`), the stream of write stalls (`<ctrl>/link_write_stall`), and empty
  /// queues. `params` must outlive the trial.
  void begin_trial(const LinkParams* params, const Stream& one_way_stream, const Stream& write_stall_stream);

 private:
  struct Direction {
    int64_t tx_free_ps = 0;       // when the transmitter can start the next TLP (absolute)
    int64_t last_arrival_ps = 0;  // arrival of the latest TLP (absolute), for in-order delivery
  };
  // Sends one TLP of `bytes` bytes issued at absolute time `issue_ps`; returns its arrival time.
  int64_t send(Direction& dir, int64_t issue_ps, uint32_t bytes);
  void b_transport_down(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void b_transport_up(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void forward(Direction& out, Direction& back, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay,
               bool downstream);

  const LinkParams* params_ = nullptr;
  TlpRate rate_;
  Stream one_way_stream_, write_stall_stream_;
  Direction down_, up_;
};

}  // namespace nvmesim
