#pragma once
// What travels on the socket between a host and a PCIe function besides BAR0 memory requests:
// the configuration-request marker. The host and the device both include this header, as both
// sides of a link know the TLP types (DESIGN section 1: the host sees the socket and nvme_regs.hpp).
//
// A configuration request (Type 0 Configuration Read/Write, PCI Express Base 6.0 section 2.2.7)
// is a tlm_generic_payload carrying a pcie_config_extension; its address is the register offset
// in the function's configuration space (0 .. regs::pcicfg::kSpaceBytes - 1), its data length 1,
// 2 or 4 bytes inside one dword. A payload without the extension is a memory request to BAR0.
// The extension is owned by the initiator and must be cleared from a reused payload after the
// access (the payload is not memory-managed: TLM-2.0 section 14.5).
#include <tlm>

namespace nvmesim {

/// Marks a payload as a configuration request to the function behind the socket.
class pcie_config_extension : public tlm::tlm_extension<pcie_config_extension> {
 public:
  tlm::tlm_extension_base* clone() const override { return new pcie_config_extension(*this); }
  void copy_from(const tlm::tlm_extension_base&) override {}
};

/// A target's timed work that its evaluation at each access's annotated time does not cover (an
/// admin command in flight, media coming ready, a scheduled surprise removal: work done by its
/// own SystemC processes). While it has any, a temporally decoupled initiator syncs before each
/// access, so that the work happens first, as in the coupled model.
class TimedWork {
 public:
  virtual ~TimedWork() = default;
  /// True while such work is pending (or due now).
  virtual bool timed_work_pending() const = 0;
};

/// True when `t` is a configuration request.
inline bool is_config_request(const tlm::tlm_generic_payload& t) {
  return t.get_extension<pcie_config_extension>() != nullptr;
}

}  // namespace nvmesim
