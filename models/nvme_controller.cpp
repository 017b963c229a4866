// The controller's transport (b_transport: decode and check, writes stamped with their effect
// edge, reads at their sample time) and its state machine. Registers and resets: nvme_controller_regs.cpp; the admin
// queue: nvme_controller_admin.cpp.
#include "models/nvme_controller.hpp"

#include <algorithm>
#include <iterator>

#include "models/pcie_transport.hpp"
#include "models/sim_time.hpp"

namespace nvmesim {

namespace {
int64_t now_ps() { return sim_now_ps(); }
sc_core::sc_time ps_time(int64_t ps) { return sim_delay(ps, "the controller"); }

/// The controller's random draws: one stream each, "nvmeN/<name>" (DESIGN section 6), and the
/// distribution it samples (nullptr: a uniform compared with a probability). In Draw order.
struct DrawSpec {
  const char* name;
  const Distribution* (*dist)(const ControllerParams&);
};
const DrawSpec kDraws[] = {
    {"enable_latency", [](const ControllerParams& p) { return &p.enable_latency; }},
    {"disable_latency", [](const ControllerParams& p) { return &p.disable_latency; }},
    {"shutdown_latency", [](const ControllerParams& p) { return &p.shutdown_latency; }},
    {"admin/identify", [](const ControllerParams& p) { return &p.admin.identify; }},
    {"admin/set_features", [](const ControllerParams& p) { return &p.admin.set_features; }},
    {"admin/create_queue", [](const ControllerParams& p) { return &p.admin.create_queue; }},
    {"abrupt_shutdown_latency", [](const ControllerParams& p) { return &p.abrupt_shutdown_latency; }},
    {"media_latency", [](const ControllerParams& p) { return &p.media_latency; }},
    {"faults/cfs_on_enable", nullptr},
    // Delete I/O SQ/CQ take the create_queue latency, from a stream of their own.
    {"admin/delete_queue", [](const ControllerParams& p) { return &p.admin.create_queue; }},
};

// The little-endian value of `len` (1..8) bytes at `p`.
uint64_t load_le(const uint8_t* p, uint32_t len) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < len && i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
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
    : sc_module(name),
      bar0("bar0"),
      dma("dma"),
      index_(index),
      bar0_regs_([] { size_t n = 0; const Spec* t = bar0_table(n); return RegisterFile<nvme_controller>(t, n, 4, 0); }()),
      config_regs_([] {
        size_t n = 0;
        const Spec* t = config_table(n);
        return RegisterFile<nvme_controller>(t, n, 1, regs::pcicfg::kSpaceBytes);
      }()) {
  static_assert(std::size(kDraws) == static_cast<size_t>(Draw::count), "one stream per Draw");
  bar0.register_b_transport(this, &nvme_controller::b_transport);
  const std::string n = "nvme" + std::to_string(index);
  for (size_t i = 0; i < draw_hash_.size(); ++i) draw_hash_[i] = fnv1a64(n + "/" + kDraws[i].name);
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
  SC_METHOD(on_removal);
  sensitive << removal_ev_;
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
  published_.insert(it, Published{t_ps, cc(), csts_value()});
  notify_in(publish_ev_, published_.front().t_ps - now, "the controller's traced register values");
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
  if (!published_.empty()) notify_in(publish_ev_, published_.front().t_ps - now, "the controller's traced register values");
}

void nvme_controller::begin_trial(const ControllerParams* params, uint64_t seed, uint64_t trial,
                                  Recorder* recorder) {
  p_ = params;
  rec_ = recorder;
  t0_ps_ = now_ps();
  for (size_t i = 0; i < streams_.size(); ++i) streams_[i] = Stream(seed, trial, draw_hash_[i]);
  last_write_effect_ps_ = t0_ps_;
  bar0_regs_.set_array_stride(4u << p_->cap.dstrd);
  state_ = ControllerState::disabled;  // not removed: a new trial powers the function on
  reset(ResetKind::platform, t0_ps_);
  removal_ev_.cancel();
  removal_due_ps_ = -1;
  const AllOnesWindow& gone_window = p_->faults.all_ones;
  if (gone_window.active && gone_window.for_ps < 0) {
    const int64_t after = std::max<int64_t>(0, gone_window.from_ps);
    notify_in(removal_ev_, after, "the surprise removal");
    removal_due_ps_ = add_ps(t0_ps_, after);
  }
}

void nvme_controller::platform_reset() {
  last_write_effect_ps_ = std::max(last_write_effect_ps_, now_ps());
  reset(ResetKind::platform, now_ps());
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

int64_t nvme_controller::draw_ps(Draw d) {
  const size_t i = static_cast<size_t>(d);
  return kDraws[i].dist(*p_)->sample_ps(streams_[i]);
}

// ---- transport ---------------------------------------------------------------------------------

bool nvme_controller::gone(int64_t t_ps) const {
  return state_ == ControllerState::removed || p_->faults.all_ones.contains(rel(t_ps));
}

tlm::tlm_response_status nvme_controller::check(tlm::tlm_generic_payload& trans, bool config,
                                                RegisterFile<nvme_controller>::Hit& hit) const {
  const uint32_t len = trans.get_data_length();
  if (trans.get_command() == tlm::TLM_IGNORE_COMMAND) return tlm::TLM_COMMAND_ERROR_RESPONSE;
  if (trans.get_streaming_width() != len) return tlm::TLM_BURST_ERROR_RESPONSE;  // no streaming into registers
  if (const unsigned char* be = trans.get_byte_enable_ptr()) {
    // Registers take whole accesses: byte enables are accepted only when they enable every byte.
    const unsigned be_len = trans.get_byte_enable_length();
    if (be_len == 0) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    for (uint32_t i = 0; i < len; ++i)
      if (be[i % be_len] != TLM_BYTE_ENABLED) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  }
  switch ((config ? config_regs_ : bar0_regs_).decode(trans.get_address(), len, hit)) {
    case Decoded::ok:
    case Decoded::reserved: return tlm::TLM_OK_RESPONSE;
    case Decoded::bad_width: return tlm::TLM_BURST_ERROR_RESPONSE;
    case Decoded::misaligned:
    case Decoded::out_of_range: return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  }
  return tlm::TLM_GENERIC_ERROR_RESPONSE;
}

void nvme_controller::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const bool config = is_config_request(trans);
  const int64_t now = now_ps();
  const int64_t edge = edge_at_or_after(add_ps(now, static_cast<int64_t>(delay.value())));
  RegisterFile<nvme_controller>::Hit hit;
  const tlm::tlm_response_status status = check(trans, config, hit);
  const uint32_t len = trans.get_data_length();
  uint8_t* data = trans.get_data_ptr();
  if (trans.is_read()) {
    // The controller handles TLPs in arrival order: a read is sampled once every earlier write
    // has taken effect.
    const int64_t sample = std::max(edge, last_write_effect_ps_);
    advance(sample);
    if (status == tlm::TLM_OK_RESPONSE) {
      // Surprise removal, or a window in which the function is off the bus: all ones.
      uint64_t v = ~0ull;
      if (!gone(sample)) v = hit.row ? (config ? config_regs_ : bar0_regs_).read(*this, hit, len, sample) : 0;
      for (uint32_t i = 0; i < len; ++i) data[i] = static_cast<uint8_t>(v >> (8 * i));
    }
    delay = ps_time(add_ps(sample, mul_ps(p_->read_cycles, p_->clock_period_ps)) - now);
  } else {
    const int64_t effect =
        add_ps(std::max(edge, last_write_effect_ps_), mul_ps(p_->write_cycles, p_->clock_period_ps));
    if (status == tlm::TLM_OK_RESPONSE) {
      // Posted: applied now, stamped with its effect edge (loosely timed: see the header).
      last_write_effect_ps_ = effect;
      apply(PendingWrite{config, hit, trans.get_address(), len, load_le(data, len)}, effect);
    }
    delay = ps_time(effect - now);
  }
  trans.set_response_status(status);
}

void nvme_controller::apply(const PendingWrite& w, int64_t t_ps) {
  advance(t_ps);
  if (gone(t_ps) || !w.hit.row) return;  // dropped (the function is off the bus), or reserved
  (w.config ? config_regs_ : bar0_regs_).write(*this, w.hit, w.offset, w.len, w.data, t_ps);
}

// ---- state machine -----------------------------------------------------------------------------

int64_t nvme_controller::edge_at_or_after(int64_t t_ps) const {
  const int64_t p = p_->clock_period_ps;
  const int64_t d = t_ps - t0_ps_;
  if (d <= 0) return t0_ps_;
  if (d > kSaturatedPs - p) return kSaturatedPs;  // past every schedulable time (sim_time.hpp)
  return add_ps(t0_ps_, ((d + p - 1) / p) * p);
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
    e.value = csts_read(t_ps);
    e.reg = "CSTS";
    rec_->add(std::move(e));
  }
}

void nvme_controller::schedule(ControllerState to, int64_t due_ps) {
  // Removed for good: no transition brings the function back (a command that completes at the
  // removal's instant, its SC_METHOD already triggered, would otherwise schedule `fatal`).
  if (state_ == ControllerState::removed) return;
  pending_ = Pending{true, to, edge_at_or_after(due_ps)};
  transition_ev_.cancel();
  notify_in(transition_ev_, pending_.due_ps - now_ps(), "the controller's state transition");
}

void nvme_controller::on_transition() { advance(now_ps()); }

void nvme_controller::advance(int64_t t_ps) {
  if (pending_.active && t_ps >= pending_.due_ps) {
    pending_.active = false;
    // RDY=0 after CC.EN 1->0: the controller reset is complete.
    if (pending_.to == ControllerState::disabled) reset(ResetKind::controller, pending_.due_ps);
    else enter(pending_.to, pending_.due_ps);
  }
}

bool nvme_controller::timed_work_pending() const {
  const int64_t now = now_ps();
  return busy_ || media_due_ps_ >= now || removal_due_ps_ >= now;
}

void nvme_controller::on_removal() {
  removal_due_ps_ = -1;
  // Surprise removal: the function is gone for good. Its state machine, admin queue and queued
  // writes stop; reads return all ones from now on (gone()). Nothing is recorded and the signals
  // keep their values: the host sees the removal only as all-ones reads.
  state_ = ControllerState::removed;
  pending_ = Pending{};
  transition_ev_.cancel();
  abort_work();
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

void nvme_controller::enable(const regs::Cc& cc, int64_t t_ps) {
  enter(ControllerState::enabling, t_ps);
  // Draws happen at every enable, whatever the outcome, so that pairing across variants holds.
  const int64_t latency = draw_ps(Draw::enable);
  const int64_t media = draw_ps(Draw::media);
  const double cfs_u = streams_[static_cast<size_t>(Draw::cfs_on_enable)].next_uniform();
  // The controller checks its configuration when enabled (nvme-registers.md): MPS within
  // MPSMIN..MPSMAX, CC.CSS in CAP.CSS, page-aligned ASQ/ACQ, non-zero queue sizes. A bad one
  // ends in CFS.
  std::string bad;
  const regs::Aqa aqa_fields = regs::Aqa::decode(aqa());
  if (cc.mps < p_->cap.mpsmin || cc.mps > p_->cap.mpsmax) bad = "CC.MPS outside CAP.MPSMIN..MPSMAX";
  else if (!regs::cc_css_supported(cc.css, p_->cap.css)) bad = "CC.CSS not supported by CAP.CSS";
  else if (!regs::queue_base_aligned(asq()) || !regs::queue_base_aligned(acq())) bad = "ASQ/ACQ not 4 KiB aligned";
  else if (aqa_fields.asqs == 0 || aqa_fields.acqs == 0) bad = "AQA queue size zero";
  if (!bad.empty()) {
    warn(t_ps, "enabled with a bad configuration (" + bad + "): controller fatal status");
    schedule(ControllerState::fatal, add_ps(t_ps, latency));
    return;
  }
  if (cfs_u < p_->faults.cfs_on_enable) {
    schedule(ControllerState::fatal, add_ps(t_ps, latency));
    return;
  }
  media_ready_ps_ = edge_at_or_after(add_ps(t_ps, media));
  if (p_->faults.never_ready) return;
  if (cc.crime) {
    // Ready independent of media: RDY after the controller's own bring-up; namespaces later.
    schedule(ControllerState::ready, add_ps(t_ps, latency));
    if (media_ready_ps_ > t_ps) {
      notify_in(media_ev_, media_ready_ps_ - now_ps(), "the controller's media ready");
      media_due_ps_ = media_ready_ps_;
    }
  } else {
    // Ready with media: RDY means the namespaces are ready too.
    schedule(ControllerState::ready, add_ps(t_ps, std::max(latency, media)));
  }
}

void nvme_controller::write_cc(uint32_t old_value, int64_t t_ps) {
  const regs::Cc old = regs::Cc::decode(old_value);
  const regs::Cc nw = regs::Cc::decode(cc());
  publish(t_ps);
  if (!old.en && nw.en) {
    if (state_ != ControllerState::disabled) {
      warn(t_ps, std::string("CC.EN 0->1 while CSTS.RDY=1 (undefined; ignored, state ") +
                     to_string(state_) + ")");
      return;
    }
    const bool queues_programmed =
        bar0_regs_.written(kAqaRow) && bar0_regs_.written(kAsqRow) && bar0_regs_.written(kAcqRow);
    if (p_->faults.ignore_enable_before_admin_queue && !queues_programmed) {
      warn(t_ps, "CC.EN 0->1 before AQA, ASQ and ACQ were programmed (this device ignores the enable)");
      return;
    }
    enable(nw, t_ps);
  } else if (old.en && !nw.en) {
    const int64_t latency = draw_ps(Draw::disable);
    if (state_ == ControllerState::fatal) {
      // A controller reset clears CFS (the host's way out of a fatal status).
      pending_.active = false;
      reset(ResetKind::controller, t_ps);
      return;
    }
    if (state_ == ControllerState::enabling || state_ == ControllerState::disabled) {
      warn(t_ps, "CC.EN 1->0 while CSTS.RDY=0 (undefined; the enable is abandoned)");
      pending_.active = false;
      reset(ResetKind::controller, t_ps);
      return;
    }
    enter(ControllerState::resetting, t_ps);
    if (p_->faults.stuck_ready) return;  // RDY stays 1 until a function-level reset
    schedule(ControllerState::disabled, add_ps(t_ps, latency));
  } else if (nw.en && old.shn == regs::Shn::none && nw.shn != regs::Shn::none &&
             state_ == ControllerState::ready) {
    enter(ControllerState::shutdown_processing, t_ps);
    const int64_t latency =
        nw.shn == regs::Shn::abrupt ? draw_ps(Draw::abrupt_shutdown) : draw_ps(Draw::shutdown);
    schedule(ControllerState::shutdown_complete, add_ps(t_ps, latency));
  } else if (nw.shn != regs::Shn::none && old.shn == regs::Shn::none && state_ != ControllerState::ready) {
    warn(t_ps, std::string("CC.SHN written while the controller is not ready (state ") + to_string(state_) +
                   "; ignored)");
  } else if (nw.en && (old.css != nw.css || old.mps != nw.mps || old.ams != nw.ams)) {
    warn(t_ps, "CC configuration changed while CC.EN=1 (undefined; ignored)");
  }
}

}  // namespace nvmesim
