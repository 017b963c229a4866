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
  /// The host CPU's read of the bytes at bus address `addr` (within kSize).
  const uint8_t* view(uint64_t addr) const { return bytes_.data() + addr; }
  /// The host CPU's write of `len` bytes at bus address `addr` (addr + len <= kSize): the bytes to
  /// fill in, remembered for the next clear().
  uint8_t* write_at(uint64_t addr, uint32_t len) {
    mark(addr, len);
    return bytes_.data() + addr;
  }
  /// Zeroes what was written (by DMA or through write_at) since the last clear, for a new probe:
  /// the queues and the Identify buffer start zeroed, and a probe that fails before the admin
  /// queue clears nothing. Only the written range is cleared, not the 12 KiB of queues and
  /// buffer (issue 15 item 3: host memory cleared only where written).
  void clear() {
    if (dirty_hi_ > dirty_lo_) std::fill(bytes_.begin() + static_cast<std::ptrdiff_t>(dirty_lo_),
                                         bytes_.begin() + static_cast<std::ptrdiff_t>(dirty_hi_), uint8_t{0});
    dirty_lo_ = hostmem::kSize;
    dirty_hi_ = 0;
  }
  /// Absolute time (ps) the last MSI-X message arrived.
  int64_t last_irq_ps() const { return last_irq_ps_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  std::array<uint8_t, hostmem::kSize> bytes_{};
  int64_t last_irq_ps_ = 0;
  void mark(uint64_t addr, uint32_t len) {
    dirty_lo_ = std::min(dirty_lo_, addr);
    dirty_hi_ = std::max(dirty_hi_, addr + len);
  }
  // The bytes written (by DMA or through write_at) since the last clear(): [dirty_lo_, dirty_hi_).
  uint64_t dirty_lo_ = hostmem::kSize;
  uint64_t dirty_hi_ = 0;
};

}  // namespace nvmesim
