#include "models/nvme_controller.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace nvmesim {

namespace {
int64_t now_ps() { return static_cast<int64_t>(sc_core::sc_time_stamp().value()); }
sc_core::sc_time ps_time(int64_t ps) { return sc_core::sc_time::from_value(static_cast<uint64_t>(ps)); }

const char* opcode_name(uint8_t op) {
  switch (op) {
    case regs::opcode::kIdentify: return "identify";
    case regs::opcode::kSetFeatures: return "set_features";
    case regs::opcode::kCreateIoCq: return "create_io_cq";
    case regs::opcode::kCreateIoSq: return "create_io_sq";
    case regs::opcode::kDeleteIoCq: return "delete_io_cq";
    case regs::opcode::kDeleteIoSq: return "delete_io_sq";
    case regs::opcode::kAsyncEventRequest: return "async_event_request";
    default: return "admin";
  }
}

using regs::le32;
using regs::le64;
using regs::put_le32;

// Issues one DMA transaction at annotated delay `delay` through `socket`; returns the delay after.
// `t` is the controller's one payload, reused: constructing a tlm_generic_payload allocates its
// extension array, and DMAs never nest (host memory never calls back into the controller).
sc_core::sc_time dma_transfer(tlm_utils::simple_initiator_socket<nvme_controller>& socket,
                              tlm::tlm_generic_payload& t, tlm::tlm_command cmd, uint64_t addr,
                              uint8_t* data, uint32_t len, sc_core::sc_time delay) {
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_byte_enable_ptr(nullptr);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(t, delay);
  return delay;
}
}  // namespace

const char* to_string(ControllerState s) {
  switch (s) {
    case ControllerState::disabled: return "disabled";
    case ControllerState::enabling: return "enabling";
    case ControllerState::ready: return "ready";
    case ControllerState::resetting: return "resetting";
    case ControllerState::shutdown_processing: return "shutdown_processing";
    case ControllerState::shutdown_complete: return "shutdown_complete";
    case ControllerState::fatal: return "fatal";
    case ControllerState::removed: return "removed";
  }
  return "?";
}

nvme_controller::nvme_controller(sc_core::sc_module_name name, int index)
    : sc_module(name), bar0("bar0"), dma("dma"), index_(index) {
  bar0.register_b_transport(this, &nvme_controller::b_transport);
  const std::string n = "nvme" + std::to_string(index);
  h_enable_ = fnv1a64(n + "/enable_latency");
  h_disable_ = fnv1a64(n + "/disable_latency");
  h_shutdown_ = fnv1a64(n + "/shutdown_latency");
  h_identify_ = fnv1a64(n + "/admin/identify");
  h_set_features_ = fnv1a64(n + "/admin/set_features");
  h_create_queue_ = fnv1a64(n + "/admin/create_queue");
  h_abrupt_ = fnv1a64(n + "/abrupt_shutdown_latency");
  h_media_ = fnv1a64(n + "/media_latency");
  h_cfs_ = fnv1a64(n + "/faults/cfs_on_enable");
  h_delete_queue_ = fnv1a64(n + "/admin/delete_queue");
  SC_METHOD(on_media_ready);
  sensitive << media_ev_;
  dont_initialize();
  SC_METHOD(complete_command);
  sensitive << admin_done_;
  dont_initialize();
  SC_METHOD(on_transition);
  sensitive << transition_ev_;
  dont_initialize();
  SC_METHOD(apply_published);
  sensitive << publish_ev_;
  dont_initialize();
}

void nvme_controller::trace_signals(sc_core::sc_trace_file* tf, const std::string& prefix) {
  tracing_ = true;
  sc_core::sc_trace(tf, cc_en_sig, prefix + ".CC_EN");
  sc_core::sc_trace(tf, rdy_sig, prefix + ".CSTS_RDY");
  sc_core::sc_trace(tf, cfs_sig, prefix + ".CSTS_CFS");
  sc_core::sc_trace(tf, shst_sig, prefix + ".CSTS_SHST");
}

void nvme_controller::publish(int64_t t_ps) {
  if (!tracing_) return;
  const int64_t now = now_ps();
  if (t_ps < now) t_ps = now;
  auto it = published_.end();
  while (it != published_.begin() && std::prev(it)->t_ps > t_ps) --it;
  published_.insert(it, Published{t_ps, cc_, csts_value()});
  publish_ev_.notify(ps_time(published_.front().t_ps - now));
}

void nvme_controller::apply_published() {
  const int64_t now = now_ps();
  bool any = false;
  Published last{};
  while (!published_.empty() && published_.front().t_ps <= now) {
    last = published_.front();
    published_.pop_front();
    any = true;
  }
  if (any) {
    const regs::Csts c = regs::Csts::decode(last.csts);
    cc_en_sig.write(regs::Cc::decode(last.cc).en);
    rdy_sig.write(c.rdy);
    cfs_sig.write(c.cfs);
    shst_sig.write(static_cast<unsigned>(c.shst));
  }
  if (!published_.empty()) publish_ev_.notify(ps_time(published_.front().t_ps - now));
}

void nvme_controller::begin_trial(const ControllerParams* params, uint64_t seed, uint64_t trial,
                                  Recorder* recorder) {
  p_ = params;
  rec_ = recorder;
  t0_ps_ = now_ps();
  s_enable_ = Stream(seed, trial, h_enable_);
  s_disable_ = Stream(seed, trial, h_disable_);
  s_shutdown_ = Stream(seed, trial, h_shutdown_);
  s_identify_ = Stream(seed, trial, h_identify_);
  s_set_features_ = Stream(seed, trial, h_set_features_);
  s_create_queue_ = Stream(seed, trial, h_create_queue_);
  s_abrupt_ = Stream(seed, trial, h_abrupt_);
  s_media_ = Stream(seed, trial, h_media_);
  s_cfs_ = Stream(seed, trial, h_cfs_);
  s_delete_queue_ = Stream(seed, trial, h_delete_queue_);
  last_write_effect_ps_ = t0_ps_;
  reset_to_handoff();
}

void nvme_controller::platform_reset() {
  last_write_effect_ps_ = std::max(last_write_effect_ps_, now_ps());
  reset_to_handoff();
  if (rec_->detailed()) {
    Event e;
    e.t_ps = rel(now_ps());
    e.ctrl = index_;
    e.src = EventSource::device;
    e.kind = EventKind::state;
    e.detail = std::string("platform reset: ") + to_string(state_);
    rec_->add(std::move(e));
  }
}

void nvme_controller::reset_to_handoff() {
  pending_ = Pending{};
  transition_ev_.cancel();
  admin_done_.cancel();
  media_ev_.cancel();
  busy_ = false;
  aer_outstanding_ = false;
  sq_tail_ = sq_head_ = cq_tail_ = 0;
  cq_phase_ = true;
  aqa_ = 0;
  asq_ = acq_ = 0;
  intms_ = 0;
  aq_written_ = 0;
  media_ready_ps_ = now_ps();
  io_queues_requested_ = 0;
  if (p_->handoff == Handoff::enabled) {
    // Firmware left it running with its own admin queue (we model the values, not the memory).
    state_ = ControllerState::ready;
    cc_ = regs::Cc{true, 0, 0, 0, regs::Shn::none, 6, 4, false}.encode();
    aqa_ = regs::Aqa{31, 31}.encode();
    asq_ = 0x10000;
    acq_ = 0x20000;
    aq_written_ = 7;
  } else {
    state_ = ControllerState::disabled;
    cc_ = 0;
  }
  published_.clear();
  publish(t0_ps_);
}

int64_t nvme_controller::edge_at_or_after(int64_t t_ps) const {
  const int64_t p = p_->clock_period_ps;
  const int64_t d = t_ps - t0_ps_;
  if (d <= 0) return t0_ps_;
  return t0_ps_ + ((d + p - 1) / p) * p;
}

void nvme_controller::enter(ControllerState s, int64_t t_ps) {
  state_ = s;
  publish(t_ps);
  if (rec_->detailed()) {
    Event e;
    e.t_ps = rel(t_ps);
    e.ctrl = index_;
    e.src = EventSource::device;
    e.kind = EventKind::state;
    e.detail = to_string(s);
    e.has_value = true;
    e.value = csts_value();
    e.reg = "CSTS";
    rec_->add(std::move(e));
  }
  if (s == ControllerState::disabled) {
    // A controller reset deletes the I/O queues and resets the admin queue; AQA/ASQ/ACQ keep
    // their values (NVMe Base 2.x section 3.7.2).
    admin_done_.cancel();
    media_ev_.cancel();
    busy_ = false;
    aer_outstanding_ = false;
    sq_tail_ = sq_head_ = cq_tail_ = 0;
    cq_phase_ = true;
  }
}

void nvme_controller::schedule(ControllerState to, int64_t due_ps) {
  pending_ = Pending{true, to, edge_at_or_after(due_ps)};
  transition_ev_.cancel();
  transition_ev_.notify(ps_time(pending_.due_ps - now_ps()));
}

void nvme_controller::on_transition() { advance(now_ps()); }

void nvme_controller::advance(int64_t t_ps) {
  if (pending_.active && t_ps >= pending_.due_ps) {
    pending_.active = false;
    enter(pending_.to, pending_.due_ps);
  }
}

ControllerState nvme_controller::state_at(int64_t t_ps) {
  advance(t_ps);
  return state_;
}

uint32_t nvme_controller::csts_value() const {
  regs::Csts c;
  switch (state_) {
    case ControllerState::disabled:
    case ControllerState::enabling:
      break;
    case ControllerState::ready:
    case ControllerState::resetting:
      c.rdy = true;
      break;
    case ControllerState::shutdown_processing:
      c.rdy = true;
      c.shst = regs::Shst::processing;
      break;
    case ControllerState::shutdown_complete:
      c.rdy = true;
      c.shst = regs::Shst::complete;
      break;
    case ControllerState::fatal:
      c.cfs = true;
      break;
    case ControllerState::removed:
      return regs::kAllOnes32;
  }
  return c.encode();
}

void nvme_controller::warn(int64_t t_ps, std::string text) {
  Event e;
  e.t_ps = rel(t_ps);
  e.ctrl = index_;
  e.src = EventSource::device;
  e.kind = EventKind::warning;
  e.detail = std::move(text);
  rec_->add(std::move(e));
}

uint64_t nvme_controller::read_register(uint32_t offset, uint32_t len) {
  if (state_ == ControllerState::removed) return ~0ull;
  uint64_t v = 0;
  switch (offset) {
    case regs::kCap: v = p_->cap.encode(); break;
    case regs::kCap + 4: v = p_->cap.encode() >> 32; break;
    case regs::kVs: v = p_->vs.encode(); break;
    case regs::kIntms:
    case regs::kIntmc: v = intms_; break;
    case regs::kCc: v = cc_; break;
    case regs::kCsts: v = csts_value(); break;
    case regs::kAqa: v = aqa_; break;
    case regs::kAsq: v = asq_; break;
    case regs::kAsq + 4: v = asq_ >> 32; break;
    case regs::kAcq: v = acq_; break;
    case regs::kAcq + 4: v = acq_ >> 32; break;
    case regs::kCrto: v = p_->crto.encode(); break;
    default: v = 0; break;  // reserved and write-only registers read as zero
  }
  return len >= 8 ? v : (v & 0xFFFFFFFFull);
}

void nvme_controller::enable(const regs::Cc& cc, int64_t t_ps) {
  enter(ControllerState::enabling, t_ps);
  // Draws happen at every enable, whatever the outcome, so that pairing across variants holds.
  const int64_t latency = p_->enable_latency.sample_ps(s_enable_);
  const int64_t media = p_->media_latency.sample_ps(s_media_);
  const double cfs_u = s_cfs_.next_uniform();
  // The controller checks its configuration when enabled (nvme-registers.md): MPS within
  // MPSMIN..MPSMAX, page-aligned ASQ/ACQ, non-zero queue sizes. A bad one ends in CFS.
  std::string bad;
  const regs::Aqa aqa = regs::Aqa::decode(aqa_);
  if (cc.mps < p_->cap.mpsmin || cc.mps > p_->cap.mpsmax) bad = "CC.MPS outside CAP.MPSMIN..MPSMAX";
  else if (!regs::queue_base_aligned(asq_) || !regs::queue_base_aligned(acq_)) bad = "ASQ/ACQ not 4 KiB aligned";
  else if (aqa.asqs == 0 || aqa.acqs == 0) bad = "AQA queue size zero";
  if (!bad.empty()) {
    warn(t_ps, "enabled with a bad configuration (" + bad + "): controller fatal status");
    schedule(ControllerState::fatal, t_ps + latency);
    return;
  }
  if (cfs_u < p_->faults.cfs_on_enable) {
    schedule(ControllerState::fatal, t_ps + latency);
    return;
  }
  media_ready_ps_ = edge_at_or_after(t_ps + media);
  if (p_->faults.never_ready) return;
  if (cc.crime) {
    // Ready independent of media: RDY after the controller's own bring-up; namespaces later.
    schedule(ControllerState::ready, t_ps + latency);
    if (media_ready_ps_ > t_ps) media_ev_.notify(ps_time(media_ready_ps_ - now_ps()));
  } else {
    // Ready with media: RDY means the namespaces are ready too.
    schedule(ControllerState::ready, t_ps + std::max(latency, media));
  }
}

void nvme_controller::write_cc(uint32_t value, int64_t t_ps) {
  // CC.CRIME is writable only when CAP.CRIMS is set; otherwise it reads back 0.
  if (!p_->cap.crims) value &= ~regs::Cc{false, 0, 0, 0, regs::Shn::none, 0, 0, true}.encode();
  const regs::Cc old = regs::Cc::decode(cc_);
  const regs::Cc nw = regs::Cc::decode(value);
  cc_ = value;
  publish(t_ps);
  if (!old.en && nw.en) {
    if (state_ != ControllerState::disabled) {
      warn(t_ps, std::string("CC.EN 0->1 while CSTS.RDY=1 (undefined; ignored, state ") +
                     to_string(state_) + ")");
      return;
    }
    if (p_->faults.ignore_enable_before_admin_queue && aq_written_ != 7) {
      warn(t_ps, "CC.EN 0->1 before AQA, ASQ and ACQ were programmed (this device ignores the enable)");
      return;
    }
    enable(nw, t_ps);
  } else if (old.en && !nw.en) {
    const int64_t latency = p_->disable_latency.sample_ps(s_disable_);
    if (state_ == ControllerState::fatal) {
      // A controller reset clears CFS (the host's way out of a fatal status).
      pending_.active = false;
      enter(ControllerState::disabled, t_ps);
      return;
    }
    if (state_ == ControllerState::enabling || state_ == ControllerState::disabled) {
      warn(t_ps, "CC.EN 1->0 while CSTS.RDY=0 (undefined; the enable is abandoned)");
      pending_.active = false;
      enter(ControllerState::disabled, t_ps);
      return;
    }
    enter(ControllerState::resetting, t_ps);
    if (p_->faults.stuck_ready) return;  // RDY stays 1 until a function-level reset
    schedule(ControllerState::disabled, t_ps + latency);
  } else if (nw.en && old.shn == regs::Shn::none && nw.shn != regs::Shn::none &&
             state_ == ControllerState::ready) {
    enter(ControllerState::shutdown_processing, t_ps);
    const int64_t latency = nw.shn == regs::Shn::abrupt ? p_->abrupt_shutdown_latency.sample_ps(s_abrupt_)
                                                         : p_->shutdown_latency.sample_ps(s_shutdown_);
    schedule(ControllerState::shutdown_complete, t_ps + latency);
  } else if (nw.shn != regs::Shn::none && old.shn == regs::Shn::none && state_ != ControllerState::ready) {
    warn(t_ps, std::string("CC.SHN written while the controller is not ready (state ") + to_string(state_) +
                   "; ignored)");
  } else if (nw.en && (old.css != nw.css || old.mps != nw.mps || old.ams != nw.ams)) {
    warn(t_ps, "CC configuration changed while CC.EN=1 (undefined; ignored)");
  }
}

void nvme_controller::function_level_reset(int64_t t_ps) {
  // PCIe FLR: every register returns to its reset value; the controller is disabled and idle.
  pending_ = Pending{};
  transition_ev_.cancel();
  cc_ = 0;
  aqa_ = 0;
  asq_ = acq_ = 0;
  intms_ = 0;
  aq_written_ = 0;
  enter(ControllerState::disabled, t_ps);
}

void nvme_controller::config_access(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const int64_t now = now_ps();
  const int64_t edge = std::max(edge_at_or_after(now + static_cast<int64_t>(delay.value())), last_write_effect_ps_);
  const uint64_t offset = trans.get_address() - regs::pcicfg::kConfigSpaceBase;
  const uint32_t len = trans.get_data_length();
  uint8_t* data = trans.get_data_ptr();
  const bool gone = p_->faults.all_ones.contains(rel(edge));
  if (trans.is_read()) {
    uint32_t v = 0;
    if (gone) v = regs::kAllOnes32;
    else if (offset == regs::pcicfg::kVendorId)
      v = static_cast<uint32_t>(std::stoul(p_->pci_id.substr(0, 4), nullptr, 16) |
                                std::stoul(p_->pci_id.substr(5, 4), nullptr, 16) << 16);
    for (uint32_t i = 0; i < len && i < 4; ++i) data[i] = static_cast<uint8_t>(v >> (8 * i));
    delay = ps_time(edge + int64_t{p_->read_cycles} * p_->clock_period_ps - now);
  } else {
    const int64_t effect = edge + int64_t{p_->write_cycles} * p_->clock_period_ps;
    last_write_effect_ps_ = effect;
    advance(effect);
    const uint32_t v = le32(data) & (len >= 4 ? 0xFFFFFFFFu : 0xFFFFu);
    if (!gone && offset == regs::pcicfg::kDevCtl && (v & regs::pcicfg::kDevCtlInitiateFlr))
      function_level_reset(effect);
    delay = ps_time(effect - now);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

void nvme_controller::write_register(uint32_t offset, uint64_t value, int64_t t_ps) {
  if (state_ == ControllerState::removed || p_->faults.all_ones.contains(rel(t_ps))) return;  // dropped
  const uint32_t v32 = static_cast<uint32_t>(value);
  switch (offset) {
    case regs::kCc: write_cc(v32, t_ps); return;
    case regs::kIntms: intms_ |= v32; return;
    case regs::kIntmc: intms_ &= ~v32; return;
    case regs::kAqa: aqa_ = v32; aq_written_ |= 1; return;
    case regs::kAsq: asq_ = (asq_ & ~0xFFFFFFFFull) | v32; if (value >> 32) asq_ = value; aq_written_ |= 2; return;
    case regs::kAsq + 4: asq_ = (asq_ & 0xFFFFFFFFull) | (static_cast<uint64_t>(v32) << 32); return;
    case regs::kAcq: acq_ = (acq_ & ~0xFFFFFFFFull) | v32; if (value >> 32) acq_ = value; aq_written_ |= 4; return;
    case regs::kAcq + 4: acq_ = (acq_ & 0xFFFFFFFFull) | (static_cast<uint64_t>(v32) << 32); return;
    case regs::kCsts: return;  // NSSRO is RW1C; nothing else is writable
    default: break;
  }
  const uint32_t stride = 4u << p_->cap.dstrd;
  if (offset >= regs::kDoorbellBase) {
    const uint32_t n = (offset - regs::kDoorbellBase) / stride;
    if (n == 0) ring_sq_doorbell(v32, t_ps);  // admin SQ tail; CQ head doorbells need no action
  }
}

void nvme_controller::ring_sq_doorbell(uint32_t tail, int64_t t_ps) {
  if (state_ != ControllerState::ready) {
    warn(t_ps, "admin SQ doorbell written while the controller is not ready (ignored)");
    return;
  }
  const uint32_t size = regs::Aqa::decode(aqa_).asqs + 1u;
  sq_tail_ = tail % size;
  if (!busy_) start_next_command(t_ps);
}

void nvme_controller::start_next_command(int64_t t_ps) {
  while (sq_head_ != sq_tail_) {
    busy_ = true;
    cur_start_ps_ = t_ps;
    uint8_t sqe[regs::kSqeBytes];
    const int64_t now = now_ps();
    const sc_core::sc_time d = dma_transfer(dma, dma_trans_, tlm::TLM_READ_COMMAND, asq_ + uint64_t{sq_head_} * regs::kSqeBytes,
                                            sqe, regs::kSqeBytes, ps_time(t_ps - now));
    const int64_t fetched = now + static_cast<int64_t>(d.value());
    cur_opcode_ = sqe[0];
    cur_cid_ = static_cast<uint16_t>(sqe[2] | sqe[3] << 8);
    cur_prp1_ = le64(sqe + 24);
    cur_cns_ = sqe[40];
    cur_dw0_ = 0;
    int64_t latency = 0;
    switch (cur_opcode_) {
      case regs::opcode::kIdentify: latency = p_->admin.identify.sample_ps(s_identify_); break;
      case regs::opcode::kSetFeatures: {
        latency = p_->admin.set_features.sample_ps(s_set_features_);
        const uint32_t cdw10 = le32(sqe + 40), cdw11 = le32(sqe + 44);
        if ((cdw10 & 0xFF) == 0x07) {  // Number of Queues: NSQR 15:0, NCQR 31:16, 0's based
          io_queues_requested_ = (cdw11 & 0xFFFF) + 1;
          const uint32_t granted = std::max(1u, std::min(io_queues_requested_, p_->io_queues)) - 1;
          cur_dw0_ = granted | granted << 16;
        }
        break;
      }
      case regs::opcode::kCreateIoCq:
      case regs::opcode::kCreateIoSq: latency = p_->admin.create_queue.sample_ps(s_create_queue_); break;
      case regs::opcode::kDeleteIoCq:
      case regs::opcode::kDeleteIoSq: latency = p_->admin.create_queue.sample_ps(s_delete_queue_); break;
      case regs::opcode::kAsyncEventRequest:
        // Held until an event: completes when the media becomes ready (ready independent of media).
        aer_outstanding_ = true;
        aer_cid_ = cur_cid_;
        sq_head_ = (sq_head_ + 1) % (regs::Aqa::decode(aqa_).asqs + 1u);
        busy_ = false;
        t_ps = fetched;
        continue;
      default: break;
    }
    const int64_t done = edge_at_or_after(fetched + latency);
    admin_done_.notify(ps_time(done - now));
    return;
  }
}

void nvme_controller::post_cqe(uint16_t cid, uint32_t dw0, sc_core::sc_time d) {
  uint8_t cqe[regs::kCqeBytes] = {};
  put_le32(cqe + 0, dw0);
  put_le32(cqe + 8, sq_head_ | uint32_t{0} << 16);  // SQ head pointer, SQ id 0
  put_le32(cqe + 12, cid | (cq_phase_ ? 1u : 0u) << 16);  // CID, phase tag, status 0
  d = dma_transfer(dma, dma_trans_, tlm::TLM_WRITE_COMMAND, acq_ + uint64_t{cq_tail_} * regs::kCqeBytes, cqe,
                   regs::kCqeBytes, d);
  uint8_t msi[4] = {0, 0, 0, 0};  // vector 0
  dma_transfer(dma, dma_trans_, tlm::TLM_WRITE_COMMAND, regs::platform::kMsixAddress, msi, 4, d);
  const uint32_t size = regs::Aqa::decode(aqa_).acqs + 1u;
  if (++cq_tail_ == size) {
    cq_tail_ = 0;
    cq_phase_ = !cq_phase_;
  }
}

void nvme_controller::on_media_ready() {
  if (!aer_outstanding_ || state_ != ControllerState::ready) return;
  aer_outstanding_ = false;
  if (rec_->detailed()) {
    Event e;
    e.t_ps = rel(now_ps());
    e.ctrl = index_;
    e.src = EventSource::device;
    e.kind = EventKind::admin_cmd;
    e.reg = "async_event";
    e.has_value = true;
    e.value = aer_cid_;
    e.detail = "namespace attribute changed: media ready";
    rec_->add(std::move(e));
  }
  post_cqe(aer_cid_, regs::kAenNamespaceChanged, sc_core::SC_ZERO_TIME);
}

void nvme_controller::complete_command() {
  const int64_t now = now_ps();
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  if (cur_opcode_ == regs::opcode::kIdentify) {
    // Only the fields below are ever non-zero: reset the ones the previous command may have set.
    uint8_t* data = identify_buf_.data();
    std::fill_n(data, regs::identify::kRtd3eOffset + 4, uint8_t{0});
    data[regs::identify::kNstatOffset] = 0;
    if (cur_cns_ == regs::cns::kController) {
      // Identify Controller: VID at bytes 1:0, MN at bytes 63:24, RTD3E at bytes 91:88.
      const uint32_t vid = static_cast<uint32_t>(std::stoul(p_->pci_id.substr(0, 4), nullptr, 16));
      data[regs::identify::kVidOffset] = static_cast<uint8_t>(vid);
      data[regs::identify::kVidOffset + 1] = static_cast<uint8_t>(vid >> 8);
      std::memset(data + regs::identify::kMnOffset, ' ', regs::identify::kMnBytes);
      std::memcpy(data + regs::identify::kMnOffset, p_->model.data(),
                  std::min<size_t>(regs::identify::kMnBytes, p_->model.size()));
      put_le32(data + regs::identify::kRtd3eOffset, static_cast<uint32_t>(p_->rtd3e_us));
    } else if (cur_cns_ == regs::cns::kNamespaceCsIndep) {
      // NSTAT.NRDY: the namespace is ready once the media is.
      if (now >= media_ready_ps_) data[regs::identify::kNstatOffset] = regs::identify::kNstatNrdy;
    }
    d = dma_transfer(dma, dma_trans_, tlm::TLM_WRITE_COMMAND, cur_prp1_, data, static_cast<uint32_t>(identify_buf_.size()), d);
  }
  if (rec_->detailed()) {
    Event e;
    e.t_ps = rel(cur_start_ps_);
    e.dur_ps = now - cur_start_ps_;
    e.ctrl = index_;
    e.src = EventSource::device;
    e.kind = EventKind::admin_cmd;
    e.reg = opcode_name(cur_opcode_);
    e.has_value = true;
    e.value = cur_cid_;
    rec_->add(std::move(e));
  }
  sq_head_ = (sq_head_ + 1) % (regs::Aqa::decode(aqa_).asqs + 1u);
  post_cqe(cur_cid_, cur_dw0_, d);
  busy_ = false;
  start_next_command(now);
}

void nvme_controller::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (trans.get_address() >= regs::pcicfg::kConfigSpaceBase) return config_access(trans, delay);
  const int64_t now = now_ps();
  const int64_t arrival = now + static_cast<int64_t>(delay.value());
  const int64_t edge = edge_at_or_after(arrival);
  const uint32_t offset = static_cast<uint32_t>(trans.get_address());
  const uint32_t len = trans.get_data_length();
  uint8_t* data = trans.get_data_ptr();
  if (len != 4 && len != 8) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (trans.is_read()) {
    // The controller handles TLPs in arrival order: a read is sampled once every earlier write
    // has taken effect.
    const int64_t sample = std::max(edge, last_write_effect_ps_);
    advance(sample);
    // Surprise removal, or a window in which the function is off the bus: all ones.
    const uint64_t v = p_->faults.all_ones.contains(rel(sample)) ? ~0ull : read_register(offset, len);
    for (uint32_t i = 0; i < len; ++i) data[i] = static_cast<uint8_t>(v >> (8 * i));
    delay = ps_time(sample + int64_t{p_->read_cycles} * p_->clock_period_ps - now);
  } else {
    const int64_t effect = std::max(edge, last_write_effect_ps_) + int64_t{p_->write_cycles} * p_->clock_period_ps;
    last_write_effect_ps_ = effect;
    advance(effect);
    uint64_t v = le32(data);
    if (len == 8) v = le64(data);
    write_register(offset, v, effect);
    delay = ps_time(effect - now);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace nvmesim
