#include "models/pcie_link.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/sim_time.hpp"

namespace nvmesim {

namespace {
constexpr uint32_t kFramingBytes = 8;

int64_t now_ps() { return sim_now_ps(); }
sc_core::sc_time ps_time(int64_t ps) { return sim_delay(ps, "the PCIe link"); }
}  // namespace

TlpRate::TlpRate(int generation, int width) {
  // Picoseconds per byte on one lane, times 1024 to keep 128b/130b exact:
  // gen1 2.5 GT/s and gen2 5 GT/s with 8b/10b (10 bits a byte); gen3 8, gen4 16, gen5 32 GT/s with
  // 128b/130b (8 * 130 / 128 bits a byte).
  static const int64_t per_byte_ps_x1024[] = {4000 * 1024, 2000 * 1024, 1040000, 520000, 260000};
  if (generation < 1 || generation > 5)
    throw std::invalid_argument("PCIe generation must be 1 to 5");
  if (width < 1 || width > 32) throw std::invalid_argument("PCIe link width must be 1 to 32 lanes");
  per_byte_ps_x1024_ = per_byte_ps_x1024[generation - 1];
  den_ = 1024 * static_cast<int64_t>(width);
  // Links are x1, x2, x4, x8, x16 or x32 in practice: a shift then replaces the division by
  // den_, which every TLP needs (issue 15 items 3 and 4). Other widths divide.
  // Every trial builds its link's rate (begin_trial): no loop here.
  den_shift_ = (den_ & (den_ - 1)) == 0 ? __builtin_ctzll(static_cast<unsigned long long>(den_)) : -1;
}

int64_t TlpRate::serialisation_ps(uint32_t bytes) const {
  const int64_t total = static_cast<int64_t>(bytes + kFramingBytes) * per_byte_ps_x1024_;
  if (den_shift_ >= 0) return (total + den_ - 1) >> den_shift_;  // total >= 0: the same ceiling
  return (total + den_ - 1) / den_;
}

int64_t tlp_serialisation_ps(int generation, int width, uint32_t bytes) {
  return TlpRate(generation, width).serialisation_ps(bytes);
}

pcie_link::pcie_link(sc_core::sc_module_name name)
    : sc_module(name),
      down_target("down_target"),
      down_initiator("down_initiator"),
      up_target("up_target"),
      up_initiator("up_initiator") {
  down_target.register_b_transport(this, &pcie_link::b_transport_down);
  up_target.register_b_transport(this, &pcie_link::b_transport_up);
}

void pcie_link::begin_trial(const LinkParams* params, const Stream& one_way_stream,
                            const Stream& write_stall_stream) {
  params_ = params;
  rate_ = TlpRate(params->generation, params->width);
  one_way_stream_ = one_way_stream;
  write_stall_stream_ = write_stall_stream;
  const int64_t t = now_ps();
  down_ = Direction{t, t};
  up_ = Direction{t, t};
}

int64_t pcie_link::send(Direction& dir, int64_t issue_ps, uint32_t bytes) {
  const int64_t start = std::max(issue_ps, dir.tx_free_ps);
  const int64_t ser = rate_.serialisation_ps(bytes);
  dir.tx_free_ps = add_ps(start, ser);
  const int64_t arrival =
      std::max(add_ps(dir.tx_free_ps, params_->one_way.sample_ps(one_way_stream_)), dir.last_arrival_ps);
  dir.last_arrival_ps = arrival;
  return arrival;
}

void pcie_link::forward(Direction& out, Direction& back, tlm::tlm_generic_payload& trans,
                        sc_core::sc_time& delay, bool downstream) {
  const int64_t now = now_ps();
  const int64_t issue = add_ps(now, static_cast<int64_t>(delay.value()));
  const uint32_t len = trans.get_data_length();
  const bool is_read = trans.is_read();
  const int64_t arrival = send(out, issue, kMemRequestHeaderBytes + (is_read ? 0 : len));
  const int64_t sent = out.tx_free_ps;  // the request has left the transmitter
  sc_core::sc_time d = ps_time(arrival - now);
  (downstream ? down_initiator : up_initiator)->b_transport(trans, d);
  if (is_read) {
    // The completion (with data) travels back; it may not pass posted writes going the same way.
    // The target may have waited inside b_transport (a read sampled after a queued write's
    // effect): its delay counts from the time it returned.
    const int64_t back_now = now_ps();
    const int64_t done = add_ps(back_now, static_cast<int64_t>(d.value()));
    delay = ps_time(send(back, done, kCompletionHeaderBytes + len) - back_now);
  } else {
    // Posted: the initiator goes on once the TLP has left its transmitter (plus, in a VM with an
    // emulated device, the trap to the VMM that every MMIO write costs). Targets never wait on a
    // write, so `now` is still the time of the call.
    const int64_t stall = downstream ? params_->write_stall.sample_ps(write_stall_stream_) : 0;
    delay = ps_time(add_ps(sent, stall) - now);
  }
}

void pcie_link::b_transport_down(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  forward(down_, up_, trans, delay, true);
}

void pcie_link::b_transport_up(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  forward(up_, down_, trans, delay, false);
}

}  // namespace nvmesim
