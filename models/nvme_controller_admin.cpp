// The controller's admin queue: SQE fetch by DMA on an SQ tail doorbell, per-opcode processing
// (a latency drawn per command), the Identify data and CQE written back, then MSI-X. Every DMA's
// TLM response is checked: a queue entry the host memory rejects is a controller fatal status.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>

#include "models/nvme_controller.hpp"
#include "models/sim_time.hpp"

namespace nvmesim {

namespace {
/// The Identify data a controller DMAs, built here just before the DMA. One page for every
/// controller, not 4 KiB each: at 1024 controllers a page of each was 4 MiB of cold memory touched
/// per trial (issue 15 item 4). No two controllers use it at once: it is filled and DMA'd inside
/// complete_command, an SC_METHOD, so the DMA target cannot wait() (SystemC refuses a wait in a
/// method) and no other process runs before the DMA returns; a target must copy the data in
/// b_transport, not keep the pointer (host_memory and the tests' stubs copy).
std::array<uint8_t, 4096>& identify_page() {
  static std::array<uint8_t, 4096> page{};
  return page;
}

int64_t now_ps() { return sim_now_ps(); }
sc_core::sc_time ps_time(int64_t ps) { return sim_delay(ps, "the controller's admin queue"); }

/// CQE status field (DW3 31:17): Generic Command Status (SCT 0), Data Transfer Error (SC 04h).
constexpr uint16_t kStatusDataTransferError = 0x04;

using regs::le32;
using regs::le64;
using regs::put_le32;
}  // namespace

bool nvme_controller::dma_transfer(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint32_t len,
                                   sc_core::sc_time& delay, const char* what) {
  // The controller's one payload, reused: constructing a tlm_generic_payload allocates its
  // extension array, and DMAs never nest (host memory never calls back into the controller).
  // Off the bus (faults.all_ones, or removed) when the request would leave: the function's own
  // requests reach the host no more than the host's reach it. The DMA fails as a rejected one does.
  if (const int64_t issue_ps = add_ps(now_ps(), static_cast<int64_t>(delay.value())); gone(issue_ps)) {
    warn(issue_ps, std::string("DMA ") + what + ": not sent, the function is off the bus (faults.all_ones)");
    return false;
  }
  tlm::tlm_generic_payload& t = dma_trans_;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_byte_enable_ptr(nullptr);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  dma->b_transport(t, delay);
  if (t.is_response_ok()) return true;
  char where[32];
  std::snprintf(where, sizeof where, " at 0x%llx: ", static_cast<unsigned long long>(addr));
  warn(add_ps(now_ps(), static_cast<int64_t>(delay.value())), std::string("DMA ") + what + where + t.get_response_string());
  return false;
}

void nvme_controller::ring_sq_doorbell(uint32_t tail, int64_t t_ps) {
  if (state_ != ControllerState::ready) {
    warn(t_ps, "admin SQ doorbell written while the controller is not ready (ignored)");
    return;
  }
  const uint32_t size = regs::Aqa::decode(aqa()).asqs + 1u;
  sq_tail_ = tail % size;
  if (!busy_) start_next_command(t_ps);
}

void nvme_controller::start_next_command(int64_t t_ps) {
  while (sq_head_ != sq_tail_) {
    busy_ = true;
    cur_start_ps_ = t_ps;
    uint8_t sqe[regs::kSqeBytes];
    const int64_t now = now_ps();
    sc_core::sc_time d = ps_time(t_ps - now);
    if (!dma_transfer(tlm::TLM_READ_COMMAND, asq() + uint64_t{sq_head_} * regs::kSqeBytes, sqe, regs::kSqeBytes, d,
                      "SQE fetch (controller fatal status)")) {
      busy_ = false;
      schedule(ControllerState::fatal, add_ps(now, static_cast<int64_t>(d.value())));
      return;
    }
    const int64_t fetched = add_ps(now, static_cast<int64_t>(d.value()));
    cur_opcode_ = sqe[0];
    cur_cid_ = static_cast<uint16_t>(sqe[2] | sqe[3] << 8);
    cur_prp1_ = le64(sqe + 24);
    cur_cns_ = sqe[40];
    cur_dw0_ = 0;
    int64_t latency = 0;
    switch (cur_opcode_) {
      case regs::opcode::kIdentify: latency = draw_ps(Draw::identify); break;
      case regs::opcode::kSetFeatures: {
        latency = draw_ps(Draw::set_features);
        const uint32_t cdw10 = le32(sqe + 40), cdw11 = le32(sqe + 44);
        if ((cdw10 & 0xFF) == 0x07) {  // Number of Queues: NSQR 15:0, NCQR 31:16, 0's based
          io_queues_requested_ = (cdw11 & 0xFFFF) + 1;
          const uint32_t granted = std::max(1u, std::min(io_queues_requested_, p_->io_queues)) - 1;
          cur_dw0_ = granted | granted << 16;
        }
        break;
      }
      case regs::opcode::kCreateIoCq:
      case regs::opcode::kCreateIoSq: latency = draw_ps(Draw::create_queue); break;
      case regs::opcode::kDeleteIoCq:
      case regs::opcode::kDeleteIoSq: latency = draw_ps(Draw::delete_queue); break;
      case regs::opcode::kAsyncEventRequest:
        // Held until an event: completes when the media becomes ready (ready independent of media).
        aer_outstanding_ = true;
        aer_cid_ = cur_cid_;
        sq_head_ = (sq_head_ + 1) % (regs::Aqa::decode(aqa()).asqs + 1u);
        busy_ = false;
        t_ps = fetched;
        continue;
      default: break;
    }
    const int64_t done = edge_at_or_after(add_ps(fetched, latency));
    notify_in(admin_done_, done - now, "the admin command's completion");
    return;
  }
}

bool nvme_controller::post_cqe(uint16_t cid, uint32_t dw0, uint16_t status, sc_core::sc_time d) {
  uint8_t cqe[regs::kCqeBytes] = {};
  put_le32(cqe + 0, dw0);
  put_le32(cqe + 8, sq_head_ | uint32_t{0} << 16);  // SQ head pointer, SQ id 0
  put_le32(cqe + 12, cid | (cq_phase_ ? 1u : 0u) << 16 | uint32_t{status} << 17);  // CID, phase tag, status
  if (!dma_transfer(tlm::TLM_WRITE_COMMAND, acq() + uint64_t{cq_tail_} * regs::kCqeBytes, cqe, regs::kCqeBytes, d,
                    "CQE post (controller fatal status, no interrupt)")) {
    schedule(ControllerState::fatal, add_ps(now_ps(), static_cast<int64_t>(d.value())));
    return false;
  }
  uint8_t msi[4] = {0, 0, 0, 0};  // vector 0
  dma_transfer(tlm::TLM_WRITE_COMMAND, regs::platform::kMsixAddress, msi, 4, d, "MSI-X message (interrupt lost)");
  const uint32_t size = regs::Aqa::decode(aqa()).acqs + 1u;
  if (++cq_tail_ == size) {
    cq_tail_ = 0;
    cq_phase_ = !cq_phase_;
  }
  return true;
}

void nvme_controller::on_media_ready() {
  media_due_ps_ = -1;
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
  post_cqe(aer_cid_, regs::kAenNamespaceChanged, 0, sc_core::SC_ZERO_TIME);
}

void nvme_controller::complete_command() {
  // Removed at this very instant (removal_ev_ and admin_done_ fired together, and on_removal's
  // cancel came too late for this process): the command is abandoned with the function.
  if (state_ == ControllerState::removed) return;
  const int64_t now = now_ps();
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  uint16_t status = 0;
  if (cur_opcode_ == regs::opcode::kIdentify) {
    // Only the fields below are ever non-zero: reset the ones the previous command may have set.
    uint8_t* data = identify_page().data();
    std::fill_n(data, regs::identify::kRtd3eOffset + 4, uint8_t{0});
    data[regs::identify::kNstatOffset] = 0;
    put_le32(data + regs::identify::kNnOffset, 0);
    if (cur_cns_ == regs::cns::kController) {
      // Identify Controller: VID at bytes 1:0, MN at bytes 63:24, RTD3E at bytes 91:88, NN at 519:516.
      const uint32_t vid = p_->vendor_id();
      data[regs::identify::kVidOffset] = static_cast<uint8_t>(vid);
      data[regs::identify::kVidOffset + 1] = static_cast<uint8_t>(vid >> 8);
      std::memset(data + regs::identify::kMnOffset, ' ', regs::identify::kMnBytes);
      std::memcpy(data + regs::identify::kMnOffset, p_->model.data(),
                  std::min<size_t>(regs::identify::kMnBytes, p_->model.size()));
      put_le32(data + regs::identify::kRtd3eOffset, static_cast<uint32_t>(p_->rtd3e_us));
      put_le32(data + regs::identify::kNnOffset, p_->nn);  // controllers[].identify.nn
    } else if (cur_cns_ == regs::cns::kNamespaceCsIndep) {
      // NSTAT.NRDY: the namespace is ready once the media is.
      if (now >= media_ready_ps_) data[regs::identify::kNstatOffset] = regs::identify::kNstatNrdy;
    }
    if (p_->faults.identify_status != 0)
      status = p_->faults.identify_status;  // faults.identify_status: the command fails, no data moves
    else if (!dma_transfer(tlm::TLM_WRITE_COMMAND, cur_prp1_, data, static_cast<uint32_t>(identify_page().size()), d,
                           "Identify data (the command completes with Data Transfer Error)"))
      status = kStatusDataTransferError;
  }
  if (rec_->detailed()) {
    Event e;
    e.t_ps = rel(cur_start_ps_);
    e.dur_ps = now - cur_start_ps_;
    e.ctrl = index_;
    e.src = EventSource::device;
    e.kind = EventKind::admin_cmd;
    e.reg = regs::opcode_name(cur_opcode_);
    e.has_value = true;
    e.value = cur_cid_;
    rec_->add(std::move(e));
  }
  sq_head_ = (sq_head_ + 1) % (regs::Aqa::decode(aqa()).asqs + 1u);
  busy_ = false;
  if (post_cqe(cur_cid_, cur_dw0_, status, d)) start_next_command(now);  // a failed post stops the queue
}

}  // namespace nvmesim
