// The controller's registers as data (issue 12 item 3), pinned like tests/test_model_timing.cpp:
// each TEST_CASE elaborates the controller behind a pcie_link with the stub host and the stub host
// memory of tests/model_bench.hpp and compares sc_time_stamp() and register values with values
// worked out by hand. Every case runs on the 500 MHz x4 configuration, trial 0 starting at 0.
//
// The arithmetic (see tests/test_model_timing.cpp for the derivation): PCIe Gen3 x4 serialises
// a TLP of B bytes (header + payload + 8 bytes of framing) in ceil(B x 1015.625 / 4) ps:
//   read request 16 B header: 24 B -> 6094      4-byte write 16 + 4: 28 B -> 7110
//   8-byte write 16 + 8: 32 B -> 8125           2-byte write 16 + 2: 26 B -> ceil(6601.56) = 6602
//   completion with 4 B 12 + 4: 24 B -> 6094    with 8 B 12 + 8: 28 B -> 7110
//   completion with 2 B 12 + 2: 22 B -> ceil(5585.94) = 5586   with an SQE 12 + 64: 84 B -> 21329
// then 450000 ps one way. Clock P = 2000 ps, reads 16 cycles (32000 ps), writes 4 cycles (8000
// ps); edge(t) is the first multiple of 2000 at or after t. A write takes effect at
// max(edge(arrival), the previous write's effect) + 8000; a read is sampled at max(edge(arrival),
// the last write's effect).
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "model_bench.hpp"
#include "models/nvme_regs.hpp"

using namespace nvmesim;
using namespace nvmesim::modeltest;

namespace {
using Cmd = tlm::tlm_command;
constexpr Cmd kRead = tlm::TLM_READ_COMMAND;
constexpr Cmd kWrite = tlm::TLM_WRITE_COMMAND;

// The device state events of the trial as (detail, time) pairs, in the order recorded.
std::vector<std::pair<std::string, int64_t>> states(const Recorder& rec) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const Event& e : rec.events())
    if (e.kind == EventKind::state) out.emplace_back(e.detail, e.t_ps);
  return out;
}

// Programs AQA 32/32, ASQ `asq`, ACQ 0x2000 (writes issued at 0, 7110, 14220) and writes CC.EN=1
// at 21330, returning at 28440. Effects: AQA arrives 457110 -> 458000 + 8000 = 466000; ASQ
// 464220 -> 466000 -> 474000; ACQ 471330 -> 472000, after 474000 -> 482000; CC 478440 -> 480000,
// after 482000 -> 490000 ("enabling"; with enable latency 0 "ready" at edge(490000) = 490000).
void enable(Bench& b, uint32_t asq) {
  b.host.write32(regs::kAqa, regs::Aqa{31, 31}.encode());
  b.host.write32(regs::kAsq, asq);
  b.host.write32(regs::kAcq, 0x2000);
  b.host.write32(regs::kCc, kCcEnable);
  b.expect_now("CC.EN=1 write returns", 28'440);
}
}  // namespace

TEST_CASE("model registers: a 64-bit ASQ/ACQ write whose high dword is 0 clears the old high dword",
          "[model][systemc]") {
  // ASQ: an 8-byte write of 1_00001000h at 0 (returns 8125, arrives 458125, effect edge 460000 +
  // 8000 = 468000), then one of 2000h at 8125 (returns 16250, arrives 466250 -> 468000, after
  // 468000 -> 476000). An 8-byte read at 16250 arrives 16250 + 6094 + 450000 = 472344 -> edge
  // 474000, sampled after the last write at 476000, completes 476000 + 32000 + 7110 + 450000 =
  // 965110 with 2000h: the second write replaced all 64 bits. Its high dword (ASQ+4) reads 0.
  // ACQ: written as two dwords (ACQ+4 = 1, ACQ = 3000h: 1_00003000h), then as 8 bytes 4000h.
  init_kernel();
  Bench b;
  b.host.script = [&] {
    b.begin(0, kConfigs[0], 0);
    b.host.raw(kWrite, regs::kAsq, 8, 0x1'0000'1000ull);
    b.expect_now("8-byte ASQ write returns", 8'125);
    b.host.raw(kWrite, regs::kAsq, 8, 0x2000);
    b.expect_now("second 8-byte ASQ write returns", 16'250);
    const auto asq = b.host.raw(kRead, regs::kAsq, 8);
    b.expect_now("8-byte ASQ read completes", 965'110);
    b.checks.eq("ASQ read status", asq.status, tlm::TLM_OK_RESPONSE);
    b.checks.eq("ASQ after the 8-byte write of 2000h", static_cast<int64_t>(asq.value), 0x2000);
    b.checks.eq("ASQ+4 after the 8-byte write of 2000h", b.host.read32(regs::kAsq + 4), 0);
    b.host.write32(regs::kAcq + 4, 1);
    b.host.write32(regs::kAcq, 0x3000);
    b.checks.eq("ACQ written as two dwords", static_cast<int64_t>(b.host.raw(kRead, regs::kAcq, 8).value),
                static_cast<int64_t>(0x1'0000'3000ull));
    b.host.raw(kWrite, regs::kAcq, 8, 0x4000);
    b.checks.eq("ACQ after the 8-byte write of 4000h", static_cast<int64_t>(b.host.raw(kRead, regs::kAcq, 8).value),
                0x4000);
    b.checks.eq("ACQ+4 after the 8-byte write of 4000h", b.host.read32(regs::kAcq + 4), 0);
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(9);
}

TEST_CASE("model registers: wrong byte enables - widths - alignment - commands get the TLM error response "
          "and have no effect",
          "[model][systemc]") {
  // A CC.EN=1 write at 0 with byte 1 disabled: TLM_BYTE_ENABLE_ERROR_RESPONSE; the posted TLP
  // still leaves (returns at 7110) but nothing changes. A 2-byte CSTS read at 7110: request
  // leaves at 7110 + 6094 = 13204, arrives 463204 -> edge 464000, answered 464000 + 32000 =
  // 496000 with TLM_BURST_ERROR_RESPONSE (the completion, 2 bytes, costs 5586): 496000 + 5586 +
  // 450000 = 951586.
  init_kernel();
  Bench b;
  b.host.script = [&] {
    b.begin(0, kConfigs[0], 0);
    const unsigned char be[4] = {0xFF, 0x00, 0xFF, 0xFF};
    b.checks.eq("CC write with a byte disabled",
                b.host.raw(kWrite, regs::kCc, 4, kCcEnable, false, be, 4).status, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    b.expect_now("the rejected posted write returns", 7'110);
    b.checks.eq("2-byte CSTS read", b.host.raw(kRead, regs::kCsts, 2).status, tlm::TLM_BURST_ERROR_RESPONSE);
    b.expect_now("the rejected read completes", 951'586);
    b.checks.eq("misaligned 4-byte read at 1Eh", b.host.raw(kRead, 0x1E, 4).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    b.checks.eq("8-byte read at 18h reaching into CSTS", b.host.raw(kRead, 0x18, 8).status,
                tlm::TLM_BURST_ERROR_RESPONSE);
    b.checks.eq("4-byte read with streaming width 2", b.host.raw(kRead, regs::kCsts, 4, 0, false, nullptr, 0, 2).status,
                tlm::TLM_BURST_ERROR_RESPONSE);
    b.checks.eq("TLM_IGNORE_COMMAND", b.host.raw(tlm::TLM_IGNORE_COMMAND, regs::kCc, 4).status,
                tlm::TLM_COMMAND_ERROR_RESPONSE);
    const unsigned char all[1] = {0xFF};
    b.checks.eq("byte enables all set (length 1, repeated)", b.host.raw(kRead, regs::kVs, 4, 0, false, all, 1).status,
                tlm::TLM_OK_RESPONSE);
    b.checks.eq("CC after the rejected write", b.host.read32(regs::kCc), 0);
    b.checks.eq("state events after the rejected write", static_cast<int64_t>(states(b.rec).size()), 0);
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(11);
}

TEST_CASE("model registers: configuration requests carry the extension - BAR0 has no config window",
          "[model][systemc]") {
  // A 4-byte configuration read of offset 0 at 0 costs what a CSTS read does (946094, see
  // test_model_timing.cpp) and returns Device ID 8061h | Vendor ID 1D0Fh (pci_id "1d0f:8061").
  // A memory read at 1 << 40 (where configuration space used to sit) is beyond BAR0.
  init_kernel();
  Bench b;
  b.host.script = [&] {
    b.begin(0, kConfigs[0], 0);
    const auto id = b.host.raw(kRead, regs::pcicfg::kVendorId, 4, 0, true);
    b.expect_now("configuration read completes", 946'094);
    b.checks.eq("config read status", id.status, tlm::TLM_OK_RESPONSE);
    b.checks.eq("Device ID | Vendor ID", static_cast<int64_t>(id.value), 0x8061'1D0F);
    b.checks.eq("Device ID (2 bytes at 02h)",
                static_cast<int64_t>(b.host.raw(kRead, regs::pcicfg::kDeviceId, 2, 0, true).value), 0x8061);
    b.checks.eq("Capabilities Pointer (1 byte at 34h)",
                static_cast<int64_t>(b.host.raw(kRead, regs::pcicfg::kCapPointer, 1, 0, true).value), 0x70);
    b.checks.eq("Class Code (3 bytes at 09h)",
                static_cast<int64_t>(b.host.raw(kRead, regs::pcicfg::kClassRevision, 4, 0, true).value >> 8),
                0x010802);
    b.checks.eq("Device Capabilities: FLR capable",
                static_cast<int64_t>(b.host.raw(kRead, regs::pcicfg::kDevCap, 4, 0, true).value >> 28 & 1), 1);
    b.checks.eq("memory read at 1 << 40", b.host.raw(kRead, 1ull << 40, 4).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    b.checks.eq("config read beyond 4 KiB", b.host.raw(kRead, 0x1000, 4, 0, true).status,
                tlm::TLM_ADDRESS_ERROR_RESPONSE);
    b.checks.eq("memory read of 0 is CAP, not the IDs",
                static_cast<int64_t>(b.host.raw(kRead, regs::kCap, 4).value),
                static_cast<int64_t>(b.cp.cap.encode() & 0xFFFFFFFFu));
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(10);
}

TEST_CASE("model registers: a controller reset keeps AQA/ASQ/ACQ - an FLR restores every register",
          "[model][systemc]") {
  // Enabled by enable() ("enabling" and "ready" at 490000). CC = 0 at 1000000: returns 1007110,
  // arrives 1457110 -> edge 1458000 -> effect 1466000 ("resetting"; disable latency 0: RDY=0 and
  // the controller reset, "disabled", at 1466000). AQA and ASQ still read 1F001Fh and 1000h.
  // CC.EN=1 again at 5000000: effect 5466000 ("enabling", "ready"). Device Control = 8000h
  // (Initiate FLR, 2 bytes) at 6000000: returns 6006602, arrives 6456602 -> edge 6458000 ->
  // effect 6466000 ("disabled"). Then CC, AQA, ASQ read 0 and Device Control its reset value
  // 2810h (bit 15 reads 0).
  init_kernel();
  Bench b;
  b.host.script = [&] {
    b.begin(0, kConfigs[0], 0);
    enable(b, 0x1000);
    b.host.wait_until(1'000'000);
    b.host.write32(regs::kCc, 0);
    b.host.wait_until(2'000'000);
    b.checks.eq("AQA after a controller reset", b.host.read32(regs::kAqa), 0x1F001F);
    b.checks.eq("ASQ after a controller reset", b.host.read32(regs::kAsq), 0x1000);
    b.host.wait_until(5'000'000);
    b.host.write32(regs::kCc, kCcEnable);
    b.host.wait_until(6'000'000);
    b.checks.eq("Initiate FLR write", b.host.raw(kWrite, regs::pcicfg::kDevCtl, 2, 0x8000, true).status,
                tlm::TLM_OK_RESPONSE);
    b.expect_now("the 2-byte configuration write returns", 6'006'602);
    b.host.wait_until(7'000'000);
    b.checks.eq("CSTS after the FLR", b.host.read32(regs::kCsts), 0);
    b.checks.eq("CC after the FLR", b.host.read32(regs::kCc), 0);
    b.checks.eq("AQA after the FLR", b.host.read32(regs::kAqa), 0);
    b.checks.eq("ASQ after the FLR", b.host.read32(regs::kAsq), 0);
    b.checks.eq("Device Control after the FLR",
                static_cast<int64_t>(b.host.raw(kRead, regs::pcicfg::kDevCtl, 2, 0, true).value), 0x2810);
    const std::vector<std::pair<std::string, int64_t>> want = {
        {"enabling", 490'000},   {"ready", 490'000},     {"resetting", 1'466'000}, {"disabled", 1'466'000},
        {"enabling", 5'466'000}, {"ready", 5'466'000},   {"disabled", 6'466'000}};
    const auto got = states(b.rec);
    b.checks.eq("state events", static_cast<int64_t>(got.size()), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
      b.checks.eq("state event " + std::to_string(i) + " is " + want[i].first, got[i].first == want[i].first, 1);
      b.checks.eq("state event " + std::to_string(i) + " at", got[i].second, want[i].second);
    }
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(11 + 14);
}

TEST_CASE("model registers: surprise removal enters the removed state - the enable never completes",
          "[model][systemc]") {
  // faults.all_ones from 700000 for ever, enable latency 5000000: CC.EN=1 takes effect at 490000
  // ("enabling"), RDY would be due at 5490000, but the function is removed at 700000: no "ready"
  // event follows, CSTS and the Vendor ID read all ones, and a platform reset does not bring it
  // back. The next trial powers the function on again.
  init_kernel();
  Bench b;
  b.host.script = [&] {
    b.begin(0, kConfigs[0], 5'000'000);
    b.cp.faults.all_ones = AllOnesWindow{true, 700'000, -1};
    b.ctrl.begin_trial(&b.cp, 1, 0, &b.rec);  // again, with the fault (time 0 is still 0)
    enable(b, 0x1000);
    b.host.wait_until(6'000'000);
    b.checks.eq("CSTS after the removal", b.host.read32(regs::kCsts), 0xFFFFFFFF);
    b.checks.eq("Vendor ID after the removal",
                static_cast<int64_t>(b.host.raw(kRead, regs::pcicfg::kVendorId, 2, 0, true).value), 0xFFFF);
    b.ctrl.platform_reset();
    b.checks.eq("CSTS after a platform reset", b.host.read32(regs::kCsts), 0xFFFFFFFF);
    const auto got = states(b.rec);
    b.checks.eq("state events", static_cast<int64_t>(got.size()), 2);
    if (got.size() == 2) {
      b.checks.eq("first: enabling", got[0].first == "enabling", 1);
      b.checks.eq("enabling at", got[0].second, 490'000);
      b.checks.eq("second: the platform reset leaves it removed", got[1].first == "platform reset: removed", 1);
    }
    b.begin(1, kConfigs[0], 0);
    b.checks.eq("CSTS in the next trial", b.host.read32(regs::kCsts), 0);
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(9);
}

TEST_CASE("model registers: an SQE fetch the host memory rejects ends in CSTS.CFS", "[model][systemc]") {
  // ASQ = 8000h lies beyond the stub memory (16 KiB): the SQE read gets TLM_ADDRESS_ERROR_RESPONSE.
  // Enabled by enable() (ready at 490000), SQ0 tail = 1 written at 1000000: returns 1007110,
  // arrives 1457110 -> edge 1458000 -> effect 1466000; the SQE read request reaches host memory
  // at 1466000 + 6094 + 450000 = 1922094 and its completion (84 B) is back at 1922094 + 21329 +
  // 450000 = 2393423, when the controller warns; CFS on the next edge, 2394000.
  init_kernel();
  Bench b;
  b.host.script = [&] {
    b.begin(0, kConfigs[0], 0);
    enable(b, 0x8000);
    b.host.wait_until(1'000'000);
    b.host.write32(regs::sq_tail_doorbell(0, 0), 1);
    b.host.wait_until(3'000'000);
    b.checks.eq("CSTS after the failed fetch", b.host.read32(regs::kCsts), regs::Csts::kCfs);
    b.checks.eq("DMA transactions", static_cast<int64_t>(b.mem.log.size()), 1);
    if (!b.mem.log.empty()) b.checks.eq("SQE read reaches host memory", b.mem.log[0].at_ps, 1'922'094);
    int warnings = 0;
    for (const Event& e : b.rec.events()) {
      if (e.kind != EventKind::warning) continue;
      ++warnings;
      b.checks.eq("warning at the completion", e.t_ps, 2'393'423);
      b.checks.eq("warning names the response: " + e.detail,
                  e.detail.find("TLM_ADDRESS_ERROR_RESPONSE") != std::string::npos, 1);
    }
    b.checks.eq("warnings", warnings, 1);
    const auto got = states(b.rec);
    b.checks.eq("last state is fatal", !got.empty() && got.back().first == "fatal", 1);
    if (!got.empty()) b.checks.eq("fatal at", got.back().second, 2'394'000);
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(9);
}
