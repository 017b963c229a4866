// The controller's registers as data: the BAR0 table (NVMe Base 2.x section 3.1.4, summary in
// docs/nvme-registers.md) and the PCI function's configuration-space table (PCI
// Express Base 6.0 chapter 7), their hooks, and the one reset routine, run per reset kind, that
// restores what the tables say each kind restores.
#include <iterator>
#include <string>

#include "models/nvme_controller.hpp"
#include "models/sim_time.hpp"

namespace nvmesim {

namespace {
int64_t now_ps() { return sim_now_ps(); }
constexpr uint64_t kAll = ~0ull;
/// Doorbells: an SQ tail and a CQ head doorbell for each of the 65536 queue identifiers.
constexpr uint32_t kDoorbells = 2 * 65536;
}  // namespace

const nvme_controller::Spec* nvme_controller::bar0_table(size_t& n) {
  using C = nvme_controller;
  using regs::Csts;
  // A controller reset (CC.EN 1->0) restores every register but AQA, ASQ and ACQ (section 3.7.2)
  // and CC, whose write it is; NSSRO survives every reset but a platform (power) reset.
  static const Spec kRows[] = {
      // name      offset               bytes access        bits                    reset  restored by                    storage     reset value       read           write              count
      {"CAP",      regs::kCap,           8, Access::ro,   kAll,                    0, reset_by::all,                kCapRow,    &C::cap_value,    nullptr,       nullptr,           1},
      {"VS",       regs::kVs,            4, Access::ro,   kAll,                    0, reset_by::all,                kVsRow,     &C::vs_value,     nullptr,       nullptr,           1},
      {"INTMS",    regs::kIntms,         4, Access::rw1s, kAll,                    0, reset_by::all,                kIntmsRow,  nullptr,          nullptr,       nullptr,           1},
      {"INTMC",    regs::kIntmc,         4, Access::rw1c, kAll,                    0, reset_by::all,                kIntmsRow,  nullptr,          nullptr,       nullptr,           1},
      {"CC",       regs::kCc,            4, Access::rw,   kAll,                    0, reset_by::all_but_controller, kCcRow,     nullptr,          nullptr,       &C::cc_write,      1},
      {"CSTS",     regs::kCsts,          4, Access::rw1c, Csts::kNssro,            0, reset_by::platform,           kCstsRow,   nullptr,          &C::csts_read, nullptr,           1},
      {"NSSR",     regs::kNssr,          4, Access::rw,   kAll,                    0, reset_by::all,                kNssrRow,   nullptr,          &C::zero_read, &C::nssr_write,    1},
      {"AQA",      regs::kAqa,           4, Access::rw,   regs::Aqa::kDefinedBits, 0, reset_by::all_but_controller, kAqaRow,    nullptr,          nullptr,       nullptr,           1},
      {"ASQ",      regs::kAsq,           8, Access::rw,   kAll,                    0, reset_by::all_but_controller, kAsqRow,    nullptr,          nullptr,       nullptr,           1},
      {"ACQ",      regs::kAcq,           8, Access::rw,   kAll,                    0, reset_by::all_but_controller, kAcqRow,    nullptr,          nullptr,       nullptr,           1},
      {"CRTO",     regs::kCrto,          4, Access::ro,   kAll,                    0, reset_by::all,                kCrtoRow,   &C::crto_value,   nullptr,       nullptr,           1},
      {"doorbell", regs::kDoorbellBase,  4, Access::wo,   kAll,                    0, reset_by::all,                kDoorbellRow, nullptr,        nullptr,       &C::doorbell_write, kDoorbells},
  };
  static_assert(std::size(kRows) == kBar0Rows, "one row per Bar0Row, in its order");
  n = std::size(kRows);
  return kRows;
}

const nvme_controller::Spec* nvme_controller::config_table(size_t& n) {
  using C = nvme_controller;
  namespace cfg = regs::pcicfg;
  // A controller reset never touches the PCI function; FLR, NSSR and platform resets restore it.
  constexpr ResetSet kFn = reset_by::all_but_controller;
  static const Spec kRows[] = {
      // name            offset              bytes access      bits    reset                                   restored storage      reset value          read     write              count
      {"ID",             cfg::kVendorId,      4, Access::ro, kAll,   0,                                        kFn, kIdRow,       &C::pci_id_value,    nullptr, nullptr,           1},
      {"COMMAND/STATUS", cfg::kCommand,       4, Access::rw, 0x0406, 0x0006 | uint64_t{cfg::kStatusCapList} << 16, kFn, kCommandRow, nullptr,         nullptr, nullptr,           1},
      {"CLASS/REVISION", cfg::kClassRevision, 4, Access::ro, kAll,   uint64_t{cfg::kClassNvme} << 8,           kFn, kClassRow,    nullptr,             nullptr, nullptr,           1},
      {"CAP_POINTER",    cfg::kCapPointer,    4, Access::ro, kAll,   cfg::kPcieCap,                            kFn, kCapPtrRow,   nullptr,             nullptr, nullptr,           1},
      {"PCIE_CAP",       cfg::kPcieCap,       4, Access::ro, kAll,   cfg::kCapIdPcie | 0x0002u << 16,          kFn, kPcieCapRow,  nullptr,             nullptr, nullptr,           1},
      {"DEVCAP",         cfg::kDevCap,        4, Access::ro, kAll,   cfg::kDevCapFlr,                          kFn, kDevCapRow,   nullptr,             nullptr, nullptr,           1},
      {"DEVCTL/DEVSTA",  cfg::kDevCtl,        4, Access::rw, 0x7FFF, 0x2810,                                   kFn, kDevCtlRow,   nullptr,             nullptr, &C::devctl_write,  1},
  };
  static_assert(std::size(kRows) == kConfigRows, "one row per ConfigRow, in its order");
  n = std::size(kRows);
  return kRows;
}

// ---- reset values and read hooks ---------------------------------------------------------------

uint64_t nvme_controller::cap_value() const { return p_->cap.encode(); }
uint64_t nvme_controller::vs_value() const { return p_->vs.encode(); }
uint64_t nvme_controller::crto_value() const { return p_->crto.encode(); }
uint64_t nvme_controller::pci_id_value() const {
  // Vendor ID 15:0, Device ID 31:16, from "vendor:device" (checked by the scenario loader).
  return uint64_t{p_->vendor_id()} | uint64_t{p_->device_id()} << 16;
}
uint64_t nvme_controller::csts_read(int64_t) const {
  // RDY, CFS and SHST follow the state; NSSRO is the stored bit.
  return csts_value() | (bar0_regs_.value(kCstsRow) & regs::Csts::kNssro);
}
uint64_t nvme_controller::zero_read(int64_t) const { return 0; }

// ---- write hooks -------------------------------------------------------------------------------

void nvme_controller::cc_write(const RegWrite& w) {
  // CC.CRIME is writable only when CAP.CRIMS is set; otherwise it reads back 0.
  if (!p_->cap.crims) bar0_regs_.set_value(kCcRow, cc() & ~regs::Cc::mask().crime().value());
  write_cc(static_cast<uint32_t>(w.old_value), w.t_ps);
}

void nvme_controller::nssr_write(const RegWrite& w) {
  // NSSR.NSSRC: writing "NVMe" (4E564D65h) starts an NVM subsystem reset; any other value has
  // no effect; reads return 0. Without CAP.NSSRS the register is reserved.
  if (!p_->cap.nssrs || (w.lanes & 0xFFFFFFFFu) != 0xFFFFFFFFu || static_cast<uint32_t>(w.bits) != regs::kNssrReset)
    return;
  reset(ResetKind::subsystem, w.t_ps);
}

void nvme_controller::doorbell_write(const RegWrite& w) {
  // Doorbell 2y is SQ y's tail, 2y + 1 CQ y's head. Only the admin SQ tail starts work; the model
  // never runs out of CQ slots, so head doorbells need no action.
  if (w.index == 0) ring_sq_doorbell(static_cast<uint32_t>(w.bits), w.t_ps);
}

void nvme_controller::devctl_write(const RegWrite& w) {
  // Device Control bit 15, Initiate Function Level Reset: reads 0; writing 1 resets the function
  // (it advertises the capability in Device Capabilities bit 28).
  if (w.bits & w.lanes & regs::pcicfg::kDevCtlInitiateFlr) reset(ResetKind::function_level, w.t_ps);
}

// ---- resets ------------------------------------------------------------------------------------

void nvme_controller::abort_work() {
  // Every reset deletes the I/O queues, resets the admin queue and abandons outstanding commands.
  admin_done_.cancel();
  media_ev_.cancel();
  media_due_ps_ = -1;
  busy_ = false;
  aer_outstanding_ = false;
  sq_tail_ = sq_head_ = cq_tail_ = 0;
  cq_phase_ = true;
  io_queues_requested_ = 0;
}

void nvme_controller::leave_out() {
  abort_work();
  pending_ = Pending{};
  transition_ev_.cancel();
  removal_ev_.cancel();
  removal_due_ps_ = -1;
  published_.clear();
  publish_ev_.cancel();
}

void nvme_controller::reset(ResetKind kind, int64_t t_ps) {
  bar0_regs_.reset(*this, kind);
  config_regs_.reset(*this, kind);
  abort_work();
  switch (kind) {
    case ResetKind::controller:
      // Reached when RDY clears after CC.EN 1->0 (or at once from CFS or an abandoned enable).
      enter(ControllerState::disabled, t_ps);
      return;
    case ResetKind::function_level:
    case ResetKind::subsystem:
      pending_ = Pending{};
      transition_ev_.cancel();
      // An NVM subsystem reset sets CSTS.NSSRO (the controller comes back from it: the link's
      // retraining and the function's absence meanwhile are not modelled).
      if (kind == ResetKind::subsystem) bar0_regs_.set_value(kCstsRow, regs::Csts::kNssro);
      enter(ControllerState::disabled, t_ps);
      return;
    case ResetKind::platform:
      // Power-on or a reboot's conventional reset: writes still in flight are lost; firmware then
      // hands the controller over (no state event: the trial, or the reset's own event, starts here).
      pending_ = Pending{};
      transition_ev_.cancel();
      media_ready_ps_ = now_ps();
      apply_handoff();
      published_.clear();
      publish(t0_ps_);
      return;
  }
}

void nvme_controller::apply_handoff() {
  const AllOnesWindow& w = p_->faults.all_ones;
  if (state_ == ControllerState::removed || (w.active && w.for_ps < 0 && rel(now_ps()) >= w.from_ps)) {
    state_ = ControllerState::removed;  // a reset does not bring back a removed function
    return;
  }
  if (p_->handoff == Handoff::enabled) {
    // Firmware left it running with its own admin queue (we model the values, not the memory).
    state_ = ControllerState::ready;
    bar0_regs_.set_value(kCcRow, regs::Cc{}.with_en().with_iosqes(6).with_iocqes(4).encode());
    bar0_regs_.set_value(kAqaRow, regs::Aqa{31, 31}.encode());
    bar0_regs_.set_value(kAsqRow, 0x10000);
    bar0_regs_.set_value(kAcqRow, 0x20000);
    for (size_t row : {kCcRow, kAqaRow, kAsqRow, kAcqRow}) bar0_regs_.set_written(row, true);
  } else {
    state_ = ControllerState::disabled;
  }
}

}  // namespace nvmesim
