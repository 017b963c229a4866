#pragma once
// Everything the scenario says about one NVMe controller (DESIGN section 7, `controllers[]`),
// in typed form. Pure C++.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/distribution.hpp"
#include "core/names.hpp"
#include "models/nvme_regs.hpp"

namespace nvmesim {

/// The state firmware leaves the controller in when the OS driver takes over.
enum class Handoff {
  disabled,  ///< CC.EN=0, CSTS.RDY=0 (after a module unload, or firmware that disables it)
  enabled,   ///< CC.EN=1, CSTS.RDY=1 (UEFI / SeaBIOS booted from it)
};
/// controllers[].handoff's spellings.
inline constexpr EnumName<Handoff> kHandoffNames[] = {{Handoff::disabled, "disabled"}, {Handoff::enabled, "enabled"}};

/// Per-opcode processing latency: SQE fetched to CQE ready to post.
struct AdminLatencies {
  Distribution identify = Distribution::fixed(0);
  Distribution set_features = Distribution::fixed(0);
  Distribution create_queue = Distribution::fixed(0);  ///< Create I/O CQ and Create I/O SQ
};

/// A window of trial time (ps from driver init) during which every read of the function returns
/// all ones and writes are dropped: surprise removal (`for_ps` < 0: from `from_ps` on) or a
/// window (e.g. the device drops off the bus during its own reset).
struct AllOnesWindow {
  bool active = false;
  int64_t from_ps = 0;
  int64_t for_ps = -1;  ///< -1: for ever (surprise removal)
  bool contains(int64_t t_ps) const {
    return active && t_ps >= from_ps && (for_ps < 0 || t_ps < from_ps + for_ps);
  }
};

/// Device faults (DESIGN section 7 `faults`; nvme-registers.md "Rules the controller model follows").
struct ControllerFaults {
  bool never_ready = false;        ///< CC.EN 0->1 never sets CSTS.RDY
  double cfs_on_enable = 0.0;      ///< probability (0..1) that an enable ends in CSTS.CFS instead of RDY
  AllOnesWindow all_ones;          ///< reads return FFFFFFFFh (CSTS, CAP, everything) in this window
  bool ignore_enable_before_admin_queue = false;  ///< EN 0->1 ignored until AQA, ASQ and ACQ were written
  bool stuck_ready = false;        ///< CC.EN 1->0 never clears RDY until a function-level reset
  /// Every Identify (any CNS) completes with this CQE Status Field (DW3 bits 31:17 without the
  /// phase tag: SC in bits 7:0, SCT in 10:8, CRD 12:11, M 13, DNR 14; NVMe 2.0 Figure 101) and
  /// transfers no data; 0: Identify succeeds. 0x0006 is Generic Command Status / Internal Error.
  uint16_t identify_status = 0;
};

/// One controller's configuration. Latencies in picoseconds; field ranges are checked by the
/// scenario loader.
struct ControllerParams {
  std::string label;                       ///< the scenario's `name` for this entry
  std::string pci_id = "1d0f:8061";        ///< vendor:device
  std::string pci_address = "0000:00:04.0";///< printed in `pci function ...`
  /// The function has the Function Level Reset capability (PCIe Device Capabilities FLR). Without
  /// it Linux 6.17+ cannot reset the function after a failed disable wait and the probe fails
  /// (linux-readiness.md section 6).
  bool flr = true;
  int64_t clock_period_ps = 2000;          ///< controller clock (500 MHz)
  uint32_t read_cycles = 16;               ///< cycles from a register read's arrival to its completion
  uint32_t write_cycles = 4;               ///< cycles from a register write's arrival to its effect
  regs::Cap cap{};                         ///< CAP as the device reports it
  regs::Vs vs{};                           ///< VS
  regs::Crto crto{};                       ///< CRTO (NVMe 2.0)
  Handoff handoff = Handoff::disabled;
  Distribution enable_latency = Distribution::fixed(0);   ///< CC.EN 0->1 to CSTS.RDY=1
  Distribution disable_latency = Distribution::fixed(0);  ///< CC.EN 1->0 to CSTS.RDY=0
  Distribution shutdown_latency = Distribution::fixed(0); ///< CC.SHN=01 (normal) write to SHST=complete
  Distribution abrupt_shutdown_latency = Distribution::fixed(0); ///< CC.SHN=10 (abrupt) write to SHST=complete
  /// EN 0->1 to the media (namespaces) being ready. With CC.CRIME=0 RDY waits for it too (ready
  /// with media); with CC.CRIME=1 RDY follows enable_latency alone and namespaces report NRDY=0
  /// until this has passed (ready independent of media, NVMe 2.0).
  Distribution media_latency = Distribution::fixed(0);
  AdminLatencies admin;
  uint32_t io_queues = 2;                  ///< I/O queue pairs the device grants (Set Features)
  std::string model = "nvmesim controller";///< Identify Controller MN
  int64_t rtd3e_us = 0;                    ///< Identify Controller RTD3E, microseconds
  /// Identify Controller NN (bytes 519:516 of the Identify Controller data structure, NVMe base
  /// specification: the largest namespace ID the controller supports; nvme-registers.md has no row), 0..2^32-1. 0 (the default) keeps the model's earlier Identify data:
  /// hosts that walk namespaces 1..NN (SeaBIOS, FreeBSD, U-Boot, EDK2, OpenBSD, SPDK) find none;
  /// QEMU's emulated controller reports 1.
  uint32_t nn = 0;
  ControllerFaults faults;

  /// The PCI Vendor ID (Identify VID, config register 00h bits 15:0) from pci_id's first four hex
  /// digits; the Device ID (bits 31:16) from its last four. No allocation: the controller reads
  /// them at every config-space ID read and Identify Controller. Throws std::invalid_argument unless pci_id is
  /// "vvvv:dddd" in hex (the scenario loader only passes that form).
  uint16_t vendor_id() const { return pci_id_hex16(0); }
  uint16_t device_id() const { return pci_id_hex16(5); }

 private:
  uint16_t pci_id_hex16(size_t pos) const {
    if (pci_id.size() != 9 || pci_id[4] != ':')
      throw std::invalid_argument("pci_id \"" + pci_id + "\" is not \"vvvv:dddd\" in hex");
    unsigned v = 0;
    for (size_t i = pos; i < pos + 4; ++i) {
      const char c = pci_id[i];
      const unsigned d = c >= '0' && c <= '9' ? static_cast<unsigned>(c - '0')
                         : c >= 'a' && c <= 'f' ? static_cast<unsigned>(c - 'a' + 10)
                         : c >= 'A' && c <= 'F' ? static_cast<unsigned>(c - 'A' + 10)
                                                : 16u;
      if (d == 16u) throw std::invalid_argument("pci_id \"" + pci_id + "\" is not \"vvvv:dddd\" in hex");
      v = v * 16 + d;
    }
    return static_cast<uint16_t>(v);
  }
};

/// The PCIe link between the root port and one controller.
struct LinkParams {
  int generation = 3;                      ///< 1..5 (2.5, 5, 8, 16, 32 GT/s per lane)
  int width = 4;                           ///< lanes: 1, 2, 4, 8, 16
  Distribution one_way = Distribution::fixed(450'000);  ///< per-direction latency of a TLP
  /// How long a posted write holds the initiator beyond leaving its transmitter: 0 on bare metal;
  /// in a VM with an emulated device every MMIO write traps to the VMM (link.preset "vm-emulated").
  Distribution write_stall = Distribution::fixed(0);
};

}  // namespace nvmesim
