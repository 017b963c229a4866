#pragma once
// Host DRAM as the controller's DMA sees it, for one controller: the admin SQ, the admin CQ, the
// Identify buffer, and the MSI-X doorbell (a write there raises the interrupt).
#include <algorithm>
#include <array>
#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace nvmesim {

/// Fixed layout of the per-controller host memory the probe uses (bus addresses).
namespace hostmem {
inline constexpr uint64_t kAdminSq = 0x1000;   ///< 64 entries of 64 bytes
inline constexpr uint64_t kAdminCq = 0x2000;   ///< 64 entries of 16 bytes
inline constexpr uint64_t kIdentify = 0x3000;  ///< 4 KiB Identify Controller buffer
inline constexpr uint64_t kSize = 0x4000;
inline constexpr uint32_t kAdminQueueDepth = 32;  ///< NVME_AQ_DEPTH in Linux
}  // namespace hostmem

class host_memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<host_memory> target;
  /// Notified (with the write's annotated delay) when an MSI-X message arrives.
  sc_core::sc_event irq;
  /// Notified (with the write's annotated delay) when a DMA write into the admin CQ arrives while
  /// watch_cq_writes is set: what a host polling the CQE's phase tag sees (one CQE in flight at a
  /// time). Off unless a host polls: an extra timed notification could reorder processes that
  /// wake at the same time, and so change the outputs of hosts that wait for the MSI-X.
  sc_core::sc_event cq_write;
  bool watch_cq_writes = false;

  explicit host_memory(sc_core::sc_module_name name);
  /// Direct access for the probe (host CPU side); counts as a possible write.
  uint8_t* at(uint64_t addr) {
    dirty_ = true;
    return bytes_.data() + addr;
  }
  /// Zeroes the queues and the Identify buffer for a new probe, when anything may have been
  /// written since the last clear (a probe that fails before the admin queue touches nothing). The
  /// first 4 KiB below the admin SQ are never addressed, so they are left alone.
  void clear() {
    if (dirty_) std::fill(bytes_.begin() + hostmem::kAdminSq, bytes_.end(), uint8_t{0});
    dirty_ = false;
  }
  /// Absolute time (ps) the last MSI-X message arrived.
  int64_t last_irq_ps() const { return last_irq_ps_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  std::array<uint8_t, hostmem::kSize> bytes_{};
  int64_t last_irq_ps_ = 0;
  bool dirty_ = false;  // written (by DMA or through at()) since the last clear()
};

}  // namespace nvmesim
