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
  /// The host CPU's read of the bytes at bus address `addr` (within kSize), valid up to the end of
  /// addr's 4 KiB page (a CQE, the Identify data) and until the next clear(), which does not zero
  /// the bytes behind a view taken before it.
  const uint8_t* view(uint64_t addr) const {
    settle(addr, 1);
    return bytes_.data() + addr;
  }
  /// The host CPU's write of `len` bytes at bus address `addr` (addr + len <= kSize): the bytes to
  /// fill in (an SQE), zeroed, and remembered for the next clear().
  uint8_t* write_at(uint64_t addr, uint32_t len) {
    overwrite(addr, len);
    std::fill_n(bytes_.data() + addr, len, uint8_t{0});
    return bytes_.data() + addr;
  }
  /// Zeroes what was written (by DMA or through write_at) since the last clear, for a new probe:
  /// the queues and the Identify buffer start zeroed, and a probe that fails before the admin
  /// queue clears nothing. The zeroing is lazy and only where written, page by page (the admin
  /// SQ, the admin CQ and the Identify buffer each have a 4 KiB page): a page's stale bytes are
  /// zeroed when it is next read, or skipped when a write covers all of them (the Identify DMA of
  /// 4 KiB). Issue 15 items 3 and 4: clearing the 12 KiB from the first SQE to the end of the
  /// Identify data was, at 1024 controllers, the largest share of a trial's cache misses.
  void clear() {
    for (Page& p : pages_) {
      p.stale_lo = std::min(p.stale_lo, p.dirty_lo);
      p.stale_hi = std::max(p.stale_hi, p.dirty_hi);
      p.dirty_lo = hostmem::kSize;
      p.dirty_hi = 0;
    }
  }
  /// Absolute time (ps) the last MSI-X message arrived.
  int64_t last_irq_ps() const { return last_irq_ps_; }
  /// Absolute time (ps) a DMA last wrote admin CQ entry `slot` (below kAdminCqEntries), -1 never:
  /// a host that waits for MSI-X sees the entry only once an interrupt came after it.
  int64_t cqe_written_ps(uint32_t slot) const { return cqe_written_ps_[slot]; }
  static constexpr uint32_t kAdminCqEntries = 64;  ///< the admin CQ's 64 entries of 16 bytes

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  // Every byte that is not zero lies in a page's [dirty_lo, dirty_hi) (written since the last
  // clear) or [stale_lo, stale_hi) (written before it: logically zero, not yet zeroed). Both are
  // bus addresses inside the page; a range is empty when lo >= hi.
  static constexpr uint64_t kPageBytes = 0x1000;
  static_assert(hostmem::kAdminSq % kPageBytes == 0 && hostmem::kAdminCq % kPageBytes == 0 &&
                    hostmem::kIdentify % kPageBytes == 0 && hostmem::kSize % kPageBytes == 0,
                "the admin SQ, the admin CQ and the Identify buffer each start a page of their own");
  struct Page {
    uint64_t dirty_lo = hostmem::kSize, dirty_hi = 0;
    uint64_t stale_lo = hostmem::kSize, stale_hi = 0;
  };
  mutable std::array<uint8_t, hostmem::kSize> bytes_{};
  mutable std::array<Page, hostmem::kSize / kPageBytes> pages_{};
  int64_t last_irq_ps_ = 0;
  std::array<int64_t, kAdminCqEntries> cqe_written_ps_ = make_unwritten();
  static std::array<int64_t, kAdminCqEntries> make_unwritten() {
    std::array<int64_t, kAdminCqEntries> a{};
    a.fill(-1);
    return a;
  }
  /// Calls f(page, lo, hi) for each page piece [lo, hi) of [addr, addr + len) (within kSize).
  template <class F>
  static void pieces(uint64_t addr, uint64_t len, F&& f) {
    const uint64_t end = addr + len;
    while (addr < end) {
      const uint64_t stop = std::min(end, (addr / kPageBytes + 1) * kPageBytes);
      f(addr / kPageBytes, addr, stop);
      addr = stop;
    }
  }
  void zero_stale(Page& p) const {
    if (p.stale_hi > p.stale_lo) std::fill(bytes_.begin() + static_cast<std::ptrdiff_t>(p.stale_lo),
                                           bytes_.begin() + static_cast<std::ptrdiff_t>(p.stale_hi), uint8_t{0});
    p.stale_lo = hostmem::kSize;
    p.stale_hi = 0;
  }
  /// Before a read of [addr, addr + len): its pages' stale bytes are zeroed.
  void settle(uint64_t addr, uint64_t len) const {
    pieces(addr, len, [this](uint64_t page, uint64_t, uint64_t) { zero_stale(pages_[page]); });
  }
  /// Before a write of every byte of [addr, addr + len): stale bytes it does not cover are zeroed
  /// (those it covers it replaces), and the range is remembered for the next clear().
  void overwrite(uint64_t addr, uint64_t len) {
    pieces(addr, len, [this](uint64_t page, uint64_t lo, uint64_t hi) {
      Page& p = pages_[page];
      if (lo <= p.stale_lo && hi >= p.stale_hi) {
        p.stale_lo = hostmem::kSize;
        p.stale_hi = 0;
      } else {
        zero_stale(p);
      }
      p.dirty_lo = std::min(p.dirty_lo, lo);
      p.dirty_hi = std::max(p.dirty_hi, hi);
    });
  }
};

}  // namespace nvmesim
