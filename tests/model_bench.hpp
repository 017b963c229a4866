#pragma once
// Stubs for the model tests (tests/test_model_timing.cpp), in the style of VCML's: a stub
// initiator (one SC_THREAD with blocking BAR0 accesses), a zero-time stub target (host memory or
// a device) that logs every transaction with its annotated arrival time, and a bench that wires
// host -> pcie_link -> nvme_controller BAR0 and the controller's DMA -> pcie_link -> host memory.
// Observations are collected during the simulation and checked after sc_start() returns.
#include <catch2/catch.hpp>

#include <array>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/recorder.hpp"
#include "core/rng.hpp"
#include "models/nvme_controller.hpp"
#include "models/nvme_regs.hpp"
#include "models/pcie_link.hpp"
#include "models/pcie_transport.hpp"

namespace nvmesim::modeltest {

inline int64_t now_ps() { return static_cast<int64_t>(sc_core::sc_time_stamp().value()); }
inline sc_core::sc_time ps_time(int64_t ps) { return sc_core::sc_time::from_value(static_cast<uint64_t>(ps)); }

inline constexpr int64_t kTrialSpacingPs = 100'000'001;  // trial k starts at k x this
inline constexpr int64_t kOneWayPs = 450'000;

// Observations made inside the simulation, checked in the test body after sc_start() returns
// (a Catch assertion must not throw through a SystemC thread).
struct Checks {
  struct Item {
    std::string what;
    int64_t got, want;
  };
  std::vector<Item> items;
  void eq(std::string what, int64_t got, int64_t want) { items.push_back({std::move(what), got, want}); }
  // `expected` observations must have been made: a script that stopped early fails.
  void verify(size_t expected) const {
    for (const Item& i : items) {
      INFO(i.what);
      CHECK(i.got == i.want);
    }
    REQUIRE(items.size() == expected);
  }
};

// A zero-time TLM target with 16 KiB of memory that logs every transaction with its annotated
// arrival time; a write to regs::platform::kMsixAddress notifies `msix` at its arrival. Stands in
// for host memory (behind the link's upstream side) or for a device (behind its downstream side).
class stub_target : public sc_core::sc_module {
 public:
  struct Access {
    bool write;
    uint64_t addr;
    uint32_t len;
    int64_t at_ps;  // absolute arrival time
  };
  tlm_utils::simple_target_socket<stub_target> socket;
  std::array<uint8_t, 0x4000> bytes{};
  std::vector<Access> log;
  sc_core::sc_event msix;

  explicit stub_target(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
    socket.register_b_transport(this, &stub_target::b_transport);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    const uint64_t addr = t.get_address();
    const uint32_t len = t.get_data_length();
    log.push_back({t.is_write(), addr, len, now_ps() + static_cast<int64_t>(delay.value())});
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    if (addr == regs::platform::kMsixAddress && t.is_write()) {
      msix.notify(delay);
      return;
    }
    if (addr + len > bytes.size()) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (t.is_write()) std::memcpy(bytes.data() + addr, t.get_data_ptr(), len);
    else std::memcpy(t.get_data_ptr(), bytes.data() + addr, len);
  }
};

// The stub initiator: one SC_THREAD running `script`, with blocking 32-bit accesses that return
// once the host would see them done (a read's completion, a posted write's departure).
class stub_host : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<stub_host> bar;
  std::function<void()> script;
  Checks* checks = nullptr;
  bool finished = false;

  SC_HAS_PROCESS(stub_host);
  explicit stub_host(sc_core::sc_module_name name) : sc_module(name), bar("bar") { SC_THREAD(run); }

  uint32_t read32(uint64_t addr) { return access(tlm::TLM_READ_COMMAND, addr, 0); }
  void write32(uint64_t addr, uint32_t value) { access(tlm::TLM_WRITE_COMMAND, addr, value); }
  /// One access of any shape, as a test of the target's checks needs it: `len` bytes (1..8) of
  /// `value`, a configuration request when `config`, byte enables `be[be_len]` (nullptr: none),
  /// streaming width `streaming` (0: `len`). Returns the response status and the value read; the
  /// caller checks the status.
  struct Raw {
    tlm::tlm_response_status status;
    uint64_t value;
  };
  Raw raw(tlm::tlm_command cmd, uint64_t addr, uint32_t len, uint64_t value = 0, bool config = false,
          const unsigned char* be = nullptr, unsigned be_len = 0, uint32_t streaming = 0) {
    uint8_t data[8];
    for (uint32_t i = 0; i < 8; ++i) data[i] = static_cast<uint8_t>(value >> (8 * i));
    trans_.set_command(cmd);
    trans_.set_address(addr);
    trans_.set_data_ptr(data);
    trans_.set_data_length(len);
    trans_.set_streaming_width(streaming ? streaming : len);
    trans_.set_byte_enable_ptr(const_cast<unsigned char*>(be));
    trans_.set_byte_enable_length(be_len);
    trans_.set_dmi_allowed(false);
    trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    pcie_config_extension ext;
    if (config) trans_.set_extension(&ext);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    bar->b_transport(trans_, delay);
    if (config) trans_.clear_extension(&ext);
    trans_.set_byte_enable_ptr(nullptr);
    trans_.set_byte_enable_length(0);
    sc_core::wait(delay);
    uint64_t v = 0;
    for (uint32_t i = 0; i < len && i < 8; ++i) v |= static_cast<uint64_t>(data[i]) << (8 * i);
    return Raw{trans_.get_response_status(), v};
  }
  void wait_until(int64_t abs_ps) {
    if (abs_ps < now_ps()) checks->eq("wait_until is not in the past", now_ps(), abs_ps);
    else sc_core::wait(ps_time(abs_ps - now_ps()));
  }

 private:
  void run() {
    if (script) script();
    finished = true;
  }
  uint32_t access(tlm::tlm_command cmd, uint64_t addr, uint32_t value) {
    uint8_t data[4];
    regs::put_le32(data, value);
    trans_.set_command(cmd);
    trans_.set_address(addr);
    trans_.set_data_ptr(data);
    trans_.set_data_length(4);
    trans_.set_streaming_width(4);
    trans_.set_byte_enable_ptr(nullptr);
    trans_.set_dmi_allowed(false);
    trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    bar->b_transport(trans_, delay);
    sc_core::wait(delay);
    if (trans_.get_response_status() != tlm::TLM_OK_RESPONSE)
      checks->eq("TLM response of the access to " + std::to_string(addr), trans_.get_response_status(),
                 tlm::TLM_OK_RESPONSE);
    return regs::le32(data);
  }
  tlm::tlm_generic_payload trans_;
};

inline void init_kernel() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
}

// The four clock x width combinations every controller test runs, in this order.
struct Config {
  const char* name;
  int64_t period_ps;
  int width;
};
inline constexpr Config kConfigs[4] = {
    {"500 MHz x4", 2000, 4}, {"500 MHz x1", 2000, 1}, {"3333 ps x4", 3333, 4}, {"3333 ps x1", 3333, 1}};

// host -> link -> controller BAR0; controller DMA -> link -> host memory.
struct Bench {
  stub_host host{"host"};
  pcie_link link{"link"};
  nvme_controller ctrl{"nvme0", 0};
  stub_target mem{"mem"};
  Recorder rec;
  ControllerParams cp;
  LinkParams lp;
  Checks checks;
  int64_t t0 = 0;
  std::string tag;  // "<config> trial k: " for the messages

  Bench() {
    host.bar.bind(link.down_target);
    link.down_initiator.bind(ctrl.bar0);
    ctrl.dma.bind(link.up_target);
    link.up_initiator.bind(mem.socket);
    host.checks = &checks;
  }
  // Starts trial k with config `c` (Gen3, 450 ns one way, 16 read / 4 write cycles).
  void begin(int k, const Config& c, int64_t enable_latency_ps) {
    host.wait_until(k * kTrialSpacingPs);
    cp = ControllerParams{};
    cp.clock_period_ps = c.period_ps;
    cp.read_cycles = 16;
    cp.write_cycles = 4;
    cp.enable_latency = Distribution::fixed(enable_latency_ps);
    cp.admin.set_features = Distribution::fixed(5'000'000);
    lp = LinkParams{};
    lp.generation = 3;
    lp.width = c.width;
    lp.one_way = Distribution::fixed(kOneWayPs);
    rec.begin_trial(true);
    mem.log.clear();
    link.begin_trial(&lp, Stream(1, static_cast<uint64_t>(k), "test/link_one_way"),
                     Stream(1, static_cast<uint64_t>(k), "test/link_write_stall"));
    ctrl.begin_trial(&cp, 1, static_cast<uint64_t>(k), &rec);
    t0 = now_ps();
    tag = std::string(c.name) + " trial " + std::to_string(k) + ": ";
  }
  int64_t rel() const { return now_ps() - t0; }
  void expect_now(const std::string& what, int64_t want_rel_ps) { checks.eq(tag + what, rel(), want_rel_ps); }
  // AQA 32/32 entries, ASQ 0x1000, ACQ 0x2000: a configuration the enable accepts.
  void program_admin_queue() {
    host.write32(regs::kAqa, regs::Aqa{31, 31}.encode());
    host.write32(regs::kAsq, 0x1000);
    host.write32(regs::kAcq, 0x2000);
  }
  // The time of the single device state event `name` in the recorder (-1 when absent).
  void expect_state(const char* name, int64_t want_rel_ps) {
    int n = 0;
    int64_t t = -1;
    for (const Event& e : rec.events())
      if (e.kind == EventKind::state && e.detail == name) ++n, t = e.t_ps;
    checks.eq(tag + "state events '" + name + "'", n, 1);
    checks.eq(tag + "state '" + name + "' at", t, want_rel_ps);
  }
};

// CC.EN=1 with IOSQES 6 and IOCQES 4 (0x460001), what Linux writes.
inline constexpr uint32_t kCcEnable = regs::Cc{}.with_en().with_iosqes(6).with_iocqes(4).encode();
static_assert(kCcEnable == 0x460001, "CC.EN | IOSQES 6 << 16 | IOCQES 4 << 20");
}  // namespace nvmesim::modeltest
