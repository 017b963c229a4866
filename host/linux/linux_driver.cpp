#include "host/linux/linux_driver.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "host/linux/kernel_profile.hpp"

namespace nvmesim {

namespace {
// The dev_warn_once site of the bad-CRTO warning (BootState keys it by this address).
constexpr char kBadCrtoWarning[] = "linux: bad crto";
}  // namespace

std::unique_ptr<HostDriver> make_linux_driver(nvme_host& host) { return std::make_unique<linux_driver>(host); }

linux_driver::linux_driver(nvme_host& host)
    : HostDriver(host), prefix_("nvme " + host.dev() + ": "), h_init_(fnv1a64("host/init_to_probe/" + host.dev())) {}

const std::vector<PhaseId>& linux_driver::phases() const {
  using namespace linux_phase;
  static const std::vector<PhaseId> kAll{kPreProbe,      kDisable,       kEnable,         kAdmin,
                                         kNamespace,     kShutdown,      kResetTeardown,  kResetDisable,
                                         kResetEnable,   kResetAdmin,    kResetNamespace, kRebootPreProbe,
                                         kRebootDisable, kRebootEnable,  kRebootAdmin,    kRebootNamespace};
  return kAll;
}

PlatformPolicy linux_driver::platform_policy(const HostParams& host) const {
  PlatformPolicy p;
  p.attach = PlatformPolicy::Order::parallel;  // async probe: boot waits for every function
  p.shutdown = host.async_shutdown ? PlatformPolicy::Order::parallel : PlatformPolicy::Order::serial_reverse;
  p.reset = true;
  p.timer_hz = host.timers.hz;
  return p;
}

void linux_driver::begin_trial(const DriverContext& context) {
  init_stream_ = Stream(context.seed, context.trial, h_init_);
  granted_queues_ = 0;
  model_quirk_ = false;
  tagset_ = false;
  host().set_log_prefix(prefix_);
}

void linux_driver::run(HostAction action) {
  using namespace linux_phase;
  static const PhaseNames kBoot{&kPreProbe, &kDisable, &kEnable, &kAdmin, &kNamespace};
  static const PhaseNames kReboot{&kRebootPreProbe, &kRebootDisable, &kRebootEnable, &kRebootAdmin, &kRebootNamespace};
  resetting_ = action == HostAction::reset;
  switch (action) {
    case HostAction::probe: probe(kBoot); break;
    case HostAction::shutdown: shutdown(); break;
    case HostAction::reset: reset(); break;
    case HostAction::reboot_probe:
      model_quirk_ = false;  // a new boot learns its quirks again
      tagset_ = false;       // ... and allocates its I/O tag set again: its probe is a first probe
      probe(kReboot);
      break;
  }
}

void linux_driver::message(const std::string& text) { host().message(text); }

void linux_driver::fail(ProbeStatus status, int errno_value) {
  // Up to 6.1 the probe runs in the reset work, whose error path logs "Removing after probe
  // failure" for a probe and an `nvme reset` alike. From 6.2 the probe returns its error to the
  // driver core (not modelled: the core's own "probe ... failed with error" line), and only the
  // reset work, which a reset still runs, logs "Disabling device after reset failure".
  if (host().detailed()) {
    if (host().params().profile.probe_failure_message)
      message("Removing after probe failure status: " + std::to_string(-errno_value));
    else if (resetting_)
      message("Disabling device after reset failure: " + std::to_string(-errno_value));
  }
  host().finish(status);
}

void linux_driver::fail_wait(int rc) {
  const regs::Csts csts = regs::Csts::decode(last_csts_);
  fail(rc == -ENODEV && csts.cfs && last_csts_ != regs::kAllOnes32 ? ProbeStatus::fatal : ProbeStatus::enodev, -rc);
}

void linux_driver::read_cap() {
  // CAP is read as two 32-bit reads (lo_hi_readq).
  const uint64_t lo = host().read32(regs::kCap, "CAP");
  const uint64_t hi = host().read32(regs::kCap + 4, "CAP+4");
  cap_raw_ = lo | hi << 32;
  cap_ = regs::Cap::decode(cap_raw_);
  host().set_doorbell_stride(cap_.dstrd);
}

void linux_driver::probe(const PhaseNames& names) {
  host().reset_admin_queue(hostmem::kAdminQueueDepth);
  if (names.pre_probe) ctrl_config_ = 0;  // a new boot; a reset keeps the driver's CC value
  crime_set_ = false;
  last_csts_ = 0;
  if (names.pre_probe) pre_probe(names);
  host().set_state(HostState::pci_enable);
  if (!pci_enable() || !disable_at_probe(names)) return;
  configure_admin_queue();
  if (!enable(names) || !admin_setup(names)) return;
  check_namespace(names);
}

void linux_driver::pre_probe(const PhaseNames& names) {
  // nvme_init to the probe of this function (async probe scheduling).
  const size_t ph = host().open_phase(*names.pre_probe);
  host().pass_time(host().params().init_to_probe.sample_ps(init_stream_));
  host().close_phase(ph);
  if (host().detailed()) message("pci function " + host().context().fn->address);
}

bool linux_driver::pci_enable() {
  // nvme_pci_enable: CSTS read all ones means the function is gone.
  if (host().read32(regs::kCsts, "CSTS") == regs::kAllOnes32) {
    fail(ProbeStatus::enodev, ENODEV);
    return false;
  }
  read_cap();
  // nvme_pci_configure_admin_queue (4.8: reads CAP again first): NVMe 1.1+ with NSSRS: clear a
  // latched NSSRO.
  if (host().params().profile.admin_queue_reads_cap) read_cap();
  const regs::Vs vs = regs::Vs::decode(host().read32(regs::kVs, "VS"));
  if ((vs.mjr > 1 || (vs.mjr == 1 && vs.mnr >= 1)) && cap_.nssrs) {
    const uint32_t csts = host().read32(regs::kCsts, "CSTS");
    if (csts & regs::Csts::kNssro) host().write32(regs::kCsts, regs::Csts::kNssro, "CSTS");
  }
  return true;
}

bool linux_driver::disable_at_probe(const PhaseNames& names) {
  // Disable: CC.EN=0 (and SHN cleared), [quirk delay], wait for RDY=0 with the CAP.TO deadline.
  const size_t ph = host().open_phase(*names.disable);
  host().set_state(HostState::disable_wait);
  int rc = disable(ph);
  if (rc != 0 && host().params().profile.flr_retry && function_level_reset() == 0) {
    // 6.17+: the controller reset did not complete; after a function-level reset, one more try.
    // Without the FLR capability, or when the function does not come back, the wait's error stands.
    rc = disable(ph);
    if (rc == 0 && host().detailed()) message("controller reset completed after pcie flr");
  }
  host().close_phase(ph);
  if (rc != 0) fail_wait(rc);
  return rc == 0;
}

void linux_driver::configure_admin_queue() {
  // Admin queue registers: AQA, then ASQ and ACQ as two 32-bit writes each (lo_hi_writeq).
  host().set_state(HostState::admin_queue);
  const HostParams::BadConfig& bad = host().params().bad_config;
  if (bad.skip_admin_queue) return;
  const uint32_t depth = bad.aqa_zero ? 0 : hostmem::kAdminQueueDepth - 1;
  const uint64_t skew = bad.asq_misaligned ? 0x100 : 0;
  host().write32(regs::kAqa, regs::Aqa{static_cast<uint16_t>(depth), static_cast<uint16_t>(depth)}.encode(), "AQA");
  host().write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq + skew), "ASQ");
  host().write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
  host().write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq + skew), "ACQ");
  host().write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");
}

bool linux_driver::enable(const PhaseNames& names) {
  // nvme_enable_ctrl: the release's CC write sequence, timeout rule, then wait for RDY=1.
  const size_t ph = host().open_phase(*names.enable);
  host().set_state(HostState::enable_wait);
  if (host().params().profile.enable_reads_cap) read_cap();  // 5.4+: CAP again, before MPSMIN and TO
  const int bad_mps = host().params().bad_config.mps;
  const unsigned mps = bad_mps >= 0 ? static_cast<unsigned>(bad_mps) : 0;  // NVME_CTRL_PAGE_SHIFT 12
  if (cap_.mpsmin > mps) {
    if (host().detailed())
      message("Minimum device page size " + std::to_string(1u << (12 + cap_.mpsmin)) + " too large for host (" +
              std::to_string(1u << (12 + mps)) + ")");
    host().close_phase(ph);
    fail(ProbeStatus::enodev, ENODEV);
    return false;
  }
  // 5.19 - 6.5 (en0_readback) read CRTO before the first CC write (section 6); the later sequences
  // after their CAP re-read. With the mainline CRIME rule CC.CRIME reads back as written (it is
  // only set with CAP.CRIMS), so CRIMT/CRWMT follows CAP.CRIMS either way.
  const regs::Cc cc = enable_config(mps);
  const bool crto_first = host().params().profile.cc_sequence == CcSequence::en0_readback;
  crime_set_ = cc.crime;
  uint64_t timeout = crto_first ? enable_timeout(cap_.to) : 0;
  const uint64_t cap_to = write_enable_sequence(cc);
  if (!crto_first) timeout = enable_timeout(cap_to);
  ctrl_config_ |= 1u;  // EN
  host().write32(regs::kCc, ctrl_config_, "CC");
  const int rc = wait_ready(timeout, false, regs::Csts::kRdy, regs::Csts::kRdy, "initialisation", ph);
  host().close_phase(ph);
  if (rc != 0) fail_wait(rc);
  return rc == 0;
}

regs::Cc linux_driver::enable_config(unsigned mps) const {
  regs::Cc cc;
  // 5.10+: all I/O command sets (6) when CAP.CSS bit 6 says the controller has them, else NVM (0).
  const bool io_sets = host().params().profile.css_from_cap && (cap_.css & regs::kCapCssIoCommandSets);
  cc.css = io_sets ? regs::kCcCssAllIoCommandSets : regs::kCcCssNvm;
  cc.mps = static_cast<uint8_t>(mps);
  cc.ams = 0;     // round robin
  cc.iosqes = 6;  // 64-byte SQEs
  cc.iocqes = 4;  // 16-byte CQEs
  switch (host().params().profile.crime) {
    case CrimeRule::never: cc.crime = false; break;
    case CrimeRule::if_crims: cc.crime = cap_.crims; break;
    case CrimeRule::if_crwms_and_crims: cc.crime = cap_.crwms && cap_.crims; break;
  }
  return cc;
}

uint64_t linux_driver::write_enable_sequence(regs::Cc cc) {
  // The release's CC writes before EN=1 (linux-readiness.md section 2); returns CAP.TO as last read.
  const CcSequence seq = host().params().profile.cc_sequence;
  if (seq == CcSequence::single_write) {
    cc.en = true;
    ctrl_config_ = cc.encode();
  } else {
    cc.en = false;
    ctrl_config_ = cc.encode();
    host().write32(regs::kCc, ctrl_config_, "CC");
    if (seq == CcSequence::en0_readback || seq == CcSequence::en0_readback_cap)
      ctrl_config_ = host().read32(regs::kCc, "CC");  // flushes the write; CRIME reads 0 unless supported
    if (seq == CcSequence::en0_readback_cap || seq == CcSequence::en0_cap) read_cap();
  }
  crime_set_ = regs::Cc::decode(ctrl_config_).crime;
  return cap_.to;
}

uint64_t linux_driver::enable_timeout(uint64_t timeout) {
  // The CRTO rules (5.19+): with CAP.CRWMS the CRTO field (CRIMT with CC.CRIME, else CRWMT) is
  // used instead of CAP.TO (5.19 - 6.5), or as max(CAP.TO, CRTO) (6.6+).
  const KernelProfile& prof = host().params().profile;
  if (prof.enable_timeout == EnableTimeout::cap_to || !cap_.crwms) return timeout;
  const uint32_t crto_raw = host().read32(regs::kCrto, "CRTO");
  const regs::Crto crto = regs::Crto::decode(crto_raw);
  const uint64_t ready = crime_set_ ? crto.crimt : crto.crwmt;
  if (prof.enable_timeout == EnableTimeout::crto_instead || ready >= timeout) return ready;
  // max rule: keep CAP.TO, and say once per boot that the device's CRTO is bogus (dev_warn_once).
  if (prof.crto_warning && host().first_in_boot(kBadCrtoWarning)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "bad crto:%x cap:%llx", crto_raw, static_cast<unsigned long long>(cap_raw_));
    message(buf);
  }
  return timeout;
}

bool linux_driver::admin_setup(const PhaseNames& names) {
  // Admin phase: Identify Controller, Set Features (Number of Queues), Create I/O CQ and SQ.
  // On an admin timeout the phase stays open (the kernel disables the controller mid-phase).
  const size_t ph = host().open_phase(*names.admin);
  host().set_state(HostState::admin_commands);
  if (!identify_controller(ph)) return false;
  const uint32_t want = host().params().cpus;
  uint32_t granted_dw0 = 0;
  if (!admin(regs::opcode::kSetFeatures, 0x07 /* Number of Queues */,
             ((want - 1) & 0xFFFF) | ((want - 1) & 0xFFFF) << 16, 0, 0, &granted_dw0))
    return false;
  const uint32_t granted = std::min(want, std::min(granted_dw0 & 0xFFFF, granted_dw0 >> 16) + 1);
  for (uint32_t qid = 1; qid <= granted; ++qid) {
    const uint32_t qsize = std::min<uint32_t>(1023, cap_.mqes);  // 0's based
    // Create I/O CQ: QID and size; physically contiguous, interrupts enabled on vector qid.
    if (!admin(regs::opcode::kCreateIoCq, qid | qsize << 16, 0x3 | qid << 16, 0x100000 * qid)) return false;
    // Create I/O SQ: QID and size, bound to CQ qid.
    if (!admin(regs::opcode::kCreateIoSq, qid | qsize << 16, 0x1 | qid << 16, 0x200000 * qid)) return false;
    granted_queues_ = qid;
  }
  tagset_ = true;  // nvme_dev_add: the I/O tag set, kept across resets until the next boot
  if (host().params().profile.queues_line && host().detailed())
    message(std::to_string(granted) + "/0/0 default/read/poll queues");
  host().close_phase(ph);
  host().finish(ProbeStatus::ok);
  return true;
}

bool linux_driver::identify_controller(size_t phase) {
  uint16_t status = 0;
  if (!admin(regs::opcode::kIdentify, regs::cns::kController, 0, hostmem::kIdentify, 0, nullptr, &status)) return false;
  if (status != 0) {
    message("Identify Controller failed (" + std::to_string(status) + ")");
    host().close_phase(phase);
    fail(ProbeStatus::eio, EIO);
    return false;
  }
  read_identify_controller();
  return true;
}

void linux_driver::read_identify_controller() {
  // What the driver keeps from Identify Controller: the model (core quirks) and RTD3E.
  const HostParams& h = host().params();
  const uint8_t* id = host().memory.view(hostmem::kIdentify);
  std::string model(reinterpret_cast<const char*>(id + regs::identify::kMnOffset), regs::identify::kMnBytes);
  while (!model.empty() && (model.back() == ' ' || model.back() == '\0')) model.pop_back();
  const unsigned vid = id[regs::identify::kVidOffset] | id[regs::identify::kVidOffset + 1] << 8;
  if (vid == kDelayQuirkModelVendor && model == kDelayQuirkModel) model_quirk_ = true;
  const uint32_t rtd3e_us = regs::le32(id + regs::identify::kRtd3eOffset);
  shutdown_timeout_s_ = h.shutdown_timeout_s;
  if (rtd3e_us && h.profile.rtd3e_shutdown_timeout) {  // 4.14+; 4.8 - 4.13 keep the module parameter
    const uint32_t whole_s = rtd3e_us / 1000000;
    shutdown_timeout_s_ = std::min<uint32_t>(std::max(whole_s, h.shutdown_timeout_s), 60);
    if (shutdown_timeout_s_ != h.shutdown_timeout_s && host().detailed())
      message((h.profile.d3_latency_message ? "D3 entry latency set to " : "Shutdown timeout set to ") +
              std::to_string(shutdown_timeout_s_) + " seconds");
  }
}

}  // namespace nvmesim
