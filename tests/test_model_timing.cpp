// Device, link and host timing pinned to the picosecond (issue 12 item 1, review T1), in the
// style of VCML's model tests: each TEST_CASE elaborates an nvme_controller and a pcie_link (or
// the link alone) with a stub initiator (an SC_THREAD calling b_transport on BAR0) and a stub host
// memory (the target of the controller's DMA and MSI-X), and compares sc_time_stamp() with values
// worked out by hand from the parameters. One elaboration per TEST_CASE: CTest runs each in a
// process of its own.
//
// The arithmetic behind every expected value (models/pcie_link.hpp, models/nvme_controller.hpp):
// - PCIe Gen3 runs at 8 GT/s with 128b/130b encoding: a bit takes 125 ps on a lane, a byte
//   8 x 130/128 = 8.125 bit times = 1015.625 ps. A TLP of B bytes (header + payload + 8 bytes of
//   framing, sequence number and LCRC) serialises in ceil(B x 1015.625 / lanes) ps:
//     read request, 16 B header:             24 B  x4 ceil(6093.75)   =  6094   x1 24375
//     register write or MSI-X, 16 + 4 B:     28 B  x4 ceil(7109.375)  =  7110   x1 ceil(28437.5) = 28438
//     completion with 4 B, 12 + 4 B:         24 B  x4  6094                     x1 24375
//     completion with an SQE, 12 + 64 B:     84 B  x4 ceil(21328.125) = 21329   x1 ceil(85312.5) = 85313
//     CQE write, 16 + 16 B:                  40 B  x4 ceil(10156.25)  = 10157   x1 40625
//   then the one-way latency, 450 ns per direction. A posted write releases its initiator once
//   its TLP has left the transmitter (no write stall on bare metal).
// - The controller clock: 500 MHz (P = 2000 ps) and P = 3333 ps (300.03 MHz, a period that
//   divides none of the latencies, so that quantisation shows). Edges are at trial start + n P;
//   edge(t) below is the first edge at or after t. A register read arriving at A is sampled at
//   max(edge(A), the effect of every earlier write) and completes read_cycles = 16 cycles later; a
//   write takes effect write_cycles = 4 cycles after max(edge(A), the previous write's effect).
//   State transitions and admin completions land on edge(due time).
// All times below are picoseconds from the start of the trial, which starts at k x 100000001 ps
// for the k-th trial of a test (off the absolute grid of either clock).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/system.hpp"
#include "model_bench.hpp"
#include "models/nvme_regs.hpp"
#include "models/sim_time.hpp"
#include "scenario/scenario.hpp"

using namespace nvmesim;
using namespace nvmesim::modeltest;

TEST_CASE("model timing: TLP serialisation is ceil((bytes + 8 framing) x ps per byte / lanes) - at every width",
          "[model]") {
  // Gen3 (8 GT/s, 128b/130b): 1015.625 ps a byte on one lane (1040000 / 1024). A read request of
  // 16 header bytes is 24 bytes with framing: 24 x 1015.625 = 24375 ps on x1, / 4 = 6093.75 -> 6094
  // on x4, / 12 = 2031.25 -> 2032 on x12 (not a power of two: the division path), / 32 = 761.72 ->
  // 762 on x32. A 4096-byte payload with a 16-byte header: 4120 x 1015.625 = 4184375 ps on x1,
  // / 16 = 261523.4 -> 261524 on x16. Gen1 (2.5 GT/s, 8b/10b): 4000 ps a byte: 24 x 4000 = 96000
  // on x1, / 3 = 32000 on x3 (exact, the division path).
  CHECK(tlp_serialisation_ps(3, 1, 16) == 24375);
  CHECK(tlp_serialisation_ps(3, 4, 16) == 6094);
  CHECK(tlp_serialisation_ps(3, 12, 16) == 2032);
  CHECK(tlp_serialisation_ps(3, 32, 16) == 762);
  CHECK(tlp_serialisation_ps(3, 16, 16 + 4096) == 261524);
  CHECK(tlp_serialisation_ps(1, 1, 16) == 96000);
  CHECK(tlp_serialisation_ps(1, 3, 16) == 32000);
}

TEST_CASE("model timing: ps_to_sc_time builds the sc_time that sc_time::from_value does", "[model][systemc]") {
  // The models' inline conversion (models/sim_time.hpp) against SystemC's own, at a resolution
  // of 1 ps (init_systemc): 0, 1 ps, a 2000 ps clock period, 1 s, 2^40 + 1 and the last
  // schedulable time, 2^63 - 2 ps.
  init_systemc();
  for (const uint64_t ps : {uint64_t{0}, uint64_t{1}, uint64_t{2000}, uint64_t{1'000'000'000'000},
                            (uint64_t{1} << 40) + 1, static_cast<uint64_t>(kLastEventPs)}) {
    INFO(ps << " ps");
    CHECK(ps_to_sc_time(ps) == sc_core::sc_time::from_value(ps));
    CHECK(ps_to_sc_time(ps).value() == ps);
  }
  // 1 s is 10^12 units of the resolution, as SystemC counts it.
  CHECK(ps_to_sc_time(1'000'000'000'000) == sc_core::sc_time(1, sc_core::SC_SEC));
}

TEST_CASE("model timing: a CSTS read's round trip - 500 MHz and 3333 ps - x4 and x1", "[model][systemc]") {
  // Issued at trial start (an edge): request 24 B, arrival at ser + 450000, sampled at the next
  // edge, completed 16 cycles later, completion 24 B back, + 450000.
  //   500 MHz x4: 6094 + 450000 = 456094 -> edge 458000; + 32000 = 490000; + 6094 + 450000 = 946094
  //   500 MHz x1: 24375 + 450000 = 474375 -> edge 476000; + 32000 = 508000; + 474375 = 982375
  //   3333 ps x4: 456094 -> edge 137 x 3333 = 456621; + 53328 = 509949; + 456094 = 966043
  //   3333 ps x1: 474375 -> edge 143 x 3333 = 476619; + 53328 = 529947; + 474375 = 1004322
  constexpr int64_t kRoundTrip[4] = {946'094, 982'375, 966'043, 1'004'322};
  init_kernel();
  Bench b;
  b.host.script = [&] {
    for (int k = 0; k < 4; ++k) {
      b.begin(k, kConfigs[k], 0);
      const uint32_t csts = b.host.read32(regs::kCsts);
      b.expect_now("CSTS read completes", kRoundTrip[k]);
      b.checks.eq(b.tag + "CSTS after a disabled handoff", csts, 0);
    }
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(8);
}

TEST_CASE("model timing: a posted CC.EN=1 write - CSTS.RDY on the clock edge after the enable latency",
          "[model][systemc]") {
  // CC.EN=1 is written at 10000000 (after AQA/ASQ/ACQ); enable latency L = 1234567 ps, which is a
  // multiple of neither period, so that RDY's due time F + L falls between two edges.
  //   the write returns at 10000000 + 7110 (x4) / + 28438 (x1): its TLP has left;
  //   arrival A = that + 450000 = 10457110 (x4) / 10478438 (x1);
  //   effect F = edge(A) + 4 cycles ("enabling");  RDY at D = edge(F + L) ("ready"):
  //   500 MHz x4: edge(10457110) = 10458000, F = 10466000, F + L = 11700567 -> D = 11702000
  //   500 MHz x1: edge(10478438) = 10480000, F = 10488000, F + L = 11722567 -> D = 11724000
  //   3333 ps x4: edge = 3138 x 3333 = 10458954, F = + 13332 = 10472286, F + L = 11706853
  //               -> D = 3513 x 3333 = 11708829
  //   3333 ps x1: edge = 3144 x 3333 = 10478952, F = 10492284, F + L = 11726851 -> D = 3519 x 3333 = 11728827
  // A CSTS read arriving on the edge before D (issued at D - P - 24 B ser - 450000) is sampled
  // there and sees RDY=0; one issued 1 ps later is sampled at D and sees RDY=1. Completions at
  // sample + 16 cycles + ser + 450000:
  //   500 MHz x4: issue 11700000 - 456094 = 11243906; done 11700000 + 32000 + 456094 = 12188094,
  //               1 ps later: 11702000 + 488094 = 12190094
  //   500 MHz x1: issue 11722000 - 474375 = 11247625; done 11722000 + 506375 = 12228375 / 12230375
  //   3333 ps x4: issue 11705496 - 456094 = 11249402; done 11705496 + 509422 = 12214918 / 12218251
  //   3333 ps x1: issue 11725494 - 474375 = 11251119; done 11725494 + 527703 = 12253197 / 12256530
  struct Want {
    int64_t write_return, effect, ready, read_issue, read_before, read_at;
  };
  constexpr Want kWant[4] = {
      {10'007'110, 10'466'000, 11'702'000, 11'243'906, 12'188'094, 12'190'094},
      {10'028'438, 10'488'000, 11'724'000, 11'247'625, 12'228'375, 12'230'375},
      {10'007'110, 10'472'286, 11'708'829, 11'249'402, 12'214'918, 12'218'251},
      {10'028'438, 10'492'284, 11'728'827, 11'251'119, 12'253'197, 12'256'530}};
  init_kernel();
  Bench b;
  b.host.script = [&] {
    for (int k = 0; k < 8; ++k) {
      const int c = k / 2;
      const bool late = k % 2 == 1;  // the read 1 ps later, sampled at D
      const Want& w = kWant[c];
      b.begin(k, kConfigs[c], 1'234'567);
      b.program_admin_queue();
      b.host.wait_until(b.t0 + 10'000'000);
      b.host.write32(regs::kCc, kCcEnable);
      b.expect_now("posted CC write returns", w.write_return);
      b.host.wait_until(b.t0 + w.read_issue + (late ? 1 : 0));
      const uint32_t csts = b.host.read32(regs::kCsts);
      b.expect_now("CSTS read completes", late ? w.read_at : w.read_before);
      b.checks.eq(b.tag + "CSTS.RDY", csts & 1u, late ? 1 : 0);
      b.expect_state("enabling", w.effect);
      b.expect_state("ready", w.ready);
    }
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(8 * 7);
}

TEST_CASE("model timing: a CSTS read right behind a CC.EN=1 write does not overtake it", "[model][systemc]") {
  // Enable latency 0: RDY=1 from the write's effect F on. The read is issued when the posted
  // write returns (10000000 + ser_w) and leaves right behind it: arrival
  // 10000000 + ser_w + ser_r + 450000 = 10463204 (x4) / 10502813 (x1). It is sampled at
  // max(edge(arrival), F) and sees RDY=1 (F as in the test above):
  //   500 MHz x4: edge 10464000 < F 10466000 -> sampled at F; done 10466000 + 32000 + 456094 = 10954094
  //   500 MHz x1: edge 10504000 > F 10488000 -> its own edge; done 10504000 + 32000 + 474375 = 11010375
  //   3333 ps x4: edge 3140 x 3333 = 10465620 < F 10472286 -> F; done 10472286 + 53328 + 456094 = 10981708
  //   3333 ps x1: edge 3152 x 3333 = 10505616 > F 10492284; done 10505616 + 53328 + 474375 = 11033319
  // (On x4 the 4 write cycles outlast the read's 6094 ps serialisation: a read sampled at its own
  // edge would overtake the write's effect and see RDY=0.)
  constexpr int64_t kEffect[4] = {10'466'000, 10'488'000, 10'472'286, 10'492'284};
  constexpr int64_t kReadDone[4] = {10'954'094, 11'010'375, 10'981'708, 11'033'319};
  init_kernel();
  Bench b;
  b.host.script = [&] {
    for (int k = 0; k < 4; ++k) {
      b.begin(k, kConfigs[k], 0);
      b.program_admin_queue();
      b.host.wait_until(b.t0 + 10'000'000);
      b.host.write32(regs::kCc, kCcEnable);
      const uint32_t csts = b.host.read32(regs::kCsts);
      b.expect_now("CSTS read behind the write completes", kReadDone[k]);
      b.checks.eq(b.tag + "CSTS.RDY seen by the read behind the write", csts & 1u, 1);
      b.expect_state("ready", kEffect[k]);
    }
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(4 * 4);
}

// Clears host memory and puts a Set Features (Number of Queues, 4 asked) with command id `cid`
// into the admin SQ at 0x1000 (program_admin_queue's ASQ), its first entry.
namespace {
void put_set_features_sqe(Bench& b, uint16_t cid) {
  b.mem.bytes.fill(0);
  uint8_t* sqe = b.mem.bytes.data() + 0x1000;
  sqe[0] = regs::opcode::kSetFeatures;
  sqe[2] = static_cast<uint8_t>(cid & 0xFF);
  sqe[3] = static_cast<uint8_t>(cid >> 8);
  regs::put_le32(sqe + 40, 0x07);        // FID 07h Number of Queues
  regs::put_le32(sqe + 44, 0x00030003);  // NSQR = NCQR = 3 (0's based: 4 each)
}
}  // namespace

TEST_CASE("model timing: an admin command - doorbell then SQE fetch - processing - CQE and MSI-X", "[model][systemc]") {
  // Enabled as above (latency 0), the host puts a Set Features (Number of Queues, 4 asked, 2
  // granted) into the SQ at 0x1000 and writes SQ0 tail = 1 at 20000000. Set Features takes 5 us.
  //   doorbell returns at 20000000 + ser_w; arrives at 20457110 (x4) / 20478438 (x1);
  //   effect Fd = edge + 4 cycles, where the controller starts the command:
  //     500 MHz x4: 20458000 + 8000 = 20466000       500 MHz x1: 20480000 + 8000 = 20488000
  //     3333 ps x4: 6138 x 3333 = 20457954 + 13332 = 20471286
  //     3333 ps x1: 6145 x 3333 = 20481285 + 13332 = 20494617
  //   SQE read request (24 B upstream) reaches host memory at Fd + ser_r + 450000:
  //     20466000 + 456094 = 20922094   20488000 + 474375 = 20962375
  //     20471286 + 456094 = 20927380   20494617 + 474375 = 20968992
  //   the 84 B completion comes back: fetched = that + 21329 (x4) / 85313 (x1) + 450000:
  //     21393423   21497688   21398709   21504305
  //   done = edge(fetched + 5000000):
  //     26393423 -> 26394000   26497688 -> 26498000
  //     26398709 -> 7921 x 3333 = 26400693   26504305 -> 7953 x 3333 = 26507349
  //   CQE (40 B) reaches host memory at done + 10157 (x4) / 40625 (x1) + 450000:
  //     26854157   26988625   26860850   26997974
  //   MSI-X (28 B) leaves behind it: done + ser_cqe + ser_w + 450000:
  //     26394000 + 10157 + 7110 + 450000 = 26861267   26498000 + 40625 + 28438 + 450000 = 27017063
  //     26400693 + 467267 = 26867960                  26507349 + 519063 = 27026412
  struct Want {
    int64_t db_return, start, sqe_at, done, cqe_at, msix_at;
  };
  constexpr Want kWant[4] = {
      {20'007'110, 20'466'000, 20'922'094, 26'394'000, 26'854'157, 26'861'267},
      {20'028'438, 20'488'000, 20'962'375, 26'498'000, 26'988'625, 27'017'063},
      {20'007'110, 20'471'286, 20'927'380, 26'400'693, 26'860'850, 26'867'960},
      {20'028'438, 20'494'617, 20'968'992, 26'507'349, 26'997'974, 27'026'412}};
  constexpr uint16_t kCid = 0x1234;
  init_kernel();
  Bench b;
  b.host.script = [&] {
    for (int k = 0; k < 4; ++k) {
      const Want& w = kWant[k];
      b.begin(k, kConfigs[k], 0);
      put_set_features_sqe(b, kCid);
      b.program_admin_queue();
      b.host.wait_until(b.t0 + 10'000'000);
      b.host.write32(regs::kCc, kCcEnable);
      b.host.wait_until(b.t0 + 20'000'000);
      b.host.write32(regs::sq_tail_doorbell(0, 0), 1);
      b.expect_now("posted doorbell write returns", w.db_return);
      sc_core::wait(b.mem.msix);
      b.expect_now("MSI-X arrives", w.msix_at);
      const auto& log = b.mem.log;
      b.checks.eq(b.tag + "DMA transactions", static_cast<int64_t>(log.size()), 3);
      if (log.size() != 3) continue;
      // Each DMA: direction, address, length and arrival at host memory.
      auto dma = [&](size_t i, const char* what, bool write, uint64_t addr, uint32_t len, int64_t at) {
        const std::string n = b.tag + what;
        b.checks.eq(n + " is a " + (write ? "write" : "read"), log[i].write, write);
        b.checks.eq(n + " address", static_cast<int64_t>(log[i].addr), static_cast<int64_t>(addr));
        b.checks.eq(n + " length", log[i].len, len);
        b.checks.eq(n + " reaches host memory", log[i].at_ps - b.t0, at);
      };
      dma(0, "SQE fetch", false, 0x1000, 64, w.sqe_at);
      dma(1, "CQE post", true, 0x2000, 16, w.cqe_at);
      dma(2, "MSI-X", true, regs::platform::kMsixAddress, 4, w.msix_at);
      const uint8_t* cqe = b.mem.bytes.data() + 0x2000;
      b.checks.eq(b.tag + "CQE DW0: 2 queues granted (0's based 1 | 1 << 16)", regs::le32(cqe), 0x00010001);
      b.checks.eq(b.tag + "CQE DW2: SQ head 1, SQ 0", regs::le32(cqe + 8), 1);
      b.checks.eq(b.tag + "CQE DW3: CID, phase 1, status 0", regs::le32(cqe + 12), kCid | 1u << 16);
      int n = 0;
      for (const Event& e : b.rec.events()) {
        if (e.kind != EventKind::admin_cmd) continue;
        ++n;
        b.checks.eq(b.tag + "command starts at the doorbell's effect", e.t_ps, w.start);
        b.checks.eq(b.tag + "command ends at done", e.t_ps + e.dur_ps, w.done);
      }
      b.checks.eq(b.tag + "admin command events", n, 1);
    }
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(4 * 21);
}

TEST_CASE("model timing: off the bus (faults.all_ones) at the CQE's and the MSI-X's issue, to the picosecond",
          "[model][systemc]") {
  // The Set Features command of the test above, 500 MHz x4 (config 0): done at D = 26394000, where
  // the controller issues the CQE post (no data DMA before it), and the MSI-X leaves behind the
  // CQE's 10157 ps serialisation, at D + 10157 = 26404157 (the arrivals 26854157 and 26861267 above
  // are these plus serialisation and 450000). A window [from, from + for) holds an issue time t
  // when from <= t < from + for (AllOnesWindow::contains). A CQE not sent sends no MSI-X either
  // (the controller goes fatal); an MSI-X not sent leaves the CQE in host memory. Reviewer of stop
  // 30: the off-the-bus DMA check was tested only well inside a window, never at its edges.
  struct Case {
    const char* what;
    int64_t from_ps, for_ps;
    int64_t dmas;  // SQE fetch only (1), + CQE (2), + MSI-X (3)
    const char* not_sent;  // the warning's DMA, or nullptr
  };
  constexpr int64_t kD = 26'394'000, kMsix = kD + 10'157;
  const Case cases[] = {
      {"a window that ends at the CQE's issue", kD - 1'000, 1'000, 3, nullptr},
      {"a window that ends 1 ps after it", kD - 1'000, 1'001, 1, "DMA CQE post"},
      {"a window that starts at the CQE's issue", kD, 1'000, 1, "DMA CQE post"},
      {"a window that starts 1 ps after it (before the MSI-X)", kD + 1, 1'000, 3, nullptr},
      {"a 1 ps window at the MSI-X's issue", kMsix, 1, 2, "DMA MSI-X message"},
      {"a window from 1 ps after the MSI-X's issue", kMsix + 1, 1'000, 3, nullptr},
  };
  constexpr uint16_t kCid = 0x1234;
  init_kernel();
  Bench b;
  b.host.script = [&] {
    for (int k = 0; k < 6; ++k) {
      const Case& c = cases[k];
      b.begin(k, kConfigs[0], 0);
      b.cp.faults.all_ones = AllOnesWindow{true, c.from_ps, c.for_ps};
      b.ctrl.begin_trial(&b.cp, 1, static_cast<uint64_t>(k), &b.rec);  // again, with the window (same time)
      b.tag = std::string(c.what) + ": ";
      put_set_features_sqe(b, kCid);
      b.program_admin_queue();
      b.host.wait_until(b.t0 + 10'000'000);
      b.host.write32(regs::kCc, kCcEnable);
      b.host.wait_until(b.t0 + 20'000'000);
      b.host.write32(regs::sq_tail_doorbell(0, 0), 1);
      b.host.wait_until(b.t0 + 30'000'000);
      b.checks.eq(b.tag + "DMA transactions that reached host memory", static_cast<int64_t>(b.mem.log.size()), c.dmas);
      int64_t warned = 0, warned_at = -1;
      for (const Event& e : b.rec.events())
        if (e.kind == EventKind::warning && e.detail.find(": not sent, the function is off the bus") != std::string::npos) {
          ++warned;
          warned_at = e.t_ps;
          b.checks.eq(b.tag + "the warning names " + (c.not_sent ? c.not_sent : "nothing"),
                      c.not_sent != nullptr && e.detail.rfind(c.not_sent, 0) == 0, 1);
        }
      b.checks.eq(b.tag + "off-the-bus warnings", warned, c.not_sent ? 1 : 0);
      b.checks.eq(b.tag + "warned at the DMA's issue", warned_at,
                  c.not_sent == nullptr ? -1 : (c.dmas == 1 ? kD : kMsix));
    }
  };
  sc_core::sc_start();
  REQUIRE(b.host.finished);
  b.checks.verify(6 * 3 + 3);  // three checks a case, and the name check of each of the three warnings
}

TEST_CASE("model timing: the link delivers the TLPs of one direction in issue order", "[model][systemc]") {
  // The link alone, between the stub host and a zero-time stub device, one-way latency drawn from
  // {100 ns, 1000 ns} (empirical: u < 0.5 gives 100 ns). The trial's stream is one whose first
  // draw gives 1000 ns and the next three 100 ns: write W1 (1000 ns), write W2, read R3 and R3's
  // completion (100 ns each). Unordered, W2 and R3 would reach the device ~900 ns before W1;
  // in order they arrive with W1 (PCIe ordering: a posted write is not passed by a later posted
  // write or read in the same direction).
  //   x4: W1 leaves at 7110 (returns), arrives 7110 + 1000000 = 1007110; W2 leaves 14220
  //       (would arrive 114220), R3 leaves 20314 (would arrive 120314): both at 1007110;
  //       R3's completion (24 B) 1007110 + 6094 + 100000 = 1113204.
  //   x1: W1 28438 -> 1028438; W2 leaves 56876; R3 leaves 81251; both at 1028438;
  //       completion 1028438 + 24375 + 100000 = 1152813.
  constexpr int64_t kW1Return[2] = {7'110, 28'438}, kW2Return[2] = {14'220, 56'876};
  constexpr int64_t kArrival[2] = {1'007'110, 1'028'438}, kReadDone[2] = {1'113'204, 1'152'813};
  uint64_t trial = 0;
  for (; trial < 10000; ++trial) {
    const Stream s(1, trial, "test/link_one_way");
    if (s.uniform_at(0) >= 0.5 && s.uniform_at(1) < 0.5 && s.uniform_at(2) < 0.5 && s.uniform_at(3) < 0.5) break;
  }
  REQUIRE(trial < 10000);
  init_kernel();
  stub_host host("host"), device_dma("device_dma");
  pcie_link link("link");
  stub_target device("device"), memory("memory");
  host.bar.bind(link.down_target);
  link.down_initiator.bind(device.socket);
  device_dma.bar.bind(link.up_target);
  link.up_initiator.bind(memory.socket);
  Checks checks;
  host.checks = device_dma.checks = &checks;
  LinkParams lp;
  lp.generation = 3;
  lp.one_way = Distribution::empirical({100'000, 1'000'000});
  regs::put_le32(device.bytes.data() + regs::kCsts, 0xC0FFEE);
  host.script = [&] {
    for (int k = 0; k < 2; ++k) {
      host.wait_until(k * kTrialSpacingPs);
      const std::string tag = k == 0 ? "x4: " : "x1: ";
      lp.width = k == 0 ? 4 : 1;
      link.begin_trial(&lp, Stream(1, trial, "test/link_one_way"), Stream(1, trial, "test/link_write_stall"));
      const int64_t t0 = now_ps();
      device.log.clear();
      host.write32(regs::kAqa, 1);
      checks.eq(tag + "W1 returns", now_ps() - t0, kW1Return[k]);
      host.write32(regs::kAsq, 2);
      checks.eq(tag + "W2 returns", now_ps() - t0, kW2Return[k]);
      const uint32_t v = host.read32(regs::kCsts);
      checks.eq(tag + "R3 completes", now_ps() - t0, kReadDone[k]);
      checks.eq(tag + "R3 data", v, 0xC0FFEE);
      checks.eq(tag + "TLPs at the device", static_cast<int64_t>(device.log.size()), 3);
      if (device.log.size() != 3) continue;
      const uint64_t addr[3] = {regs::kAqa, regs::kAsq, regs::kCsts};
      for (int i = 0; i < 3; ++i) {
        const std::string n = tag + "TLP " + std::to_string(i + 1);
        checks.eq(n + " in issue order", static_cast<int64_t>(device.log[i].addr), static_cast<int64_t>(addr[i]));
        checks.eq(n + " arrives with W1", device.log[i].at_ps - t0, kArrival[k]);
      }
    }
  };
  sc_core::sc_start();
  REQUIRE(host.finished);
  checks.verify(2 * 11);
}

TEST_CASE("host timing: the CSTS read after usleep_range comes at the hrtimer's hard expiry plus "
          "host.wakeup_latency", "[model][host][systemc]") {
  // Linux 5.7 polls with usleep_range(1000, 2000). With high-resolution timers, an idle NOHZ CPU
  // and no background interrupts nothing wakes the task early: the hrtimer fires at its hard
  // expiry, 2000 us after the sleep started, and the task runs host.wakeup_latency = 7 us later.
  // So each sleep of the enable wait lasts 2007000000 ps and the next CSTS read is issued then.
  // CC.EN=1 at ~1.005 ms with enable_latency 3 ms: RDY at ~4.005 ms; reads at ~1.006, ~3.014
  // (RDY=0) and ~5.022 ms (RDY=1): 3 polls, 2 sleeps. Through the system the runner elaborates,
  // with the recorder's picosecond events.
  const Scenario sc = load_scenario_text(R"({"schema": "nvmesim.scenario/1", "seed": 1, "trials": 1,
    "host": {"kernel": "5.7", "hz": 250, "tick": "nohz_idle", "highres": true, "background_irq_rate_hz": 0,
             "wakeup_latency": "7us", "init_to_probe": "1ms", "cpus": 1},
    "link": {"generation": 3, "width": 4, "one_way": "450ns"},
    "controllers": [{"clock": "500MHz", "read_cycles": 16, "write_cycles": 4, "cap": {"to": 30},
                     "handoff": "disabled", "disable_latency": "0ns", "enable_latency": "3ms"}]})",
                                         "wakeup test");
  init_systemc();
  nvme_system system("system", 1);
  bool given = false;
  std::vector<Event> events;
  std::vector<Phase> phases;
  system.next_trial = [&](TrialRequest& r) {
    if (given) return false;
    given = true;
    r.variant = &sc.variants[0];
    r.seed = sc.seed;
    r.trial = 0;
    r.detailed = true;
    return true;
  };
  system.trial_done = [&](const TrialRequest&, const TrialResult& res) {
    events = res.recorder->events();
    phases = res.recorder->phases();
  };
  sc_core::sc_start();
  REQUIRE(system.error().empty());
  const Phase* enable = nullptr;
  for (const Phase& p : phases)
    if (std::string(p.id.name) == "enable") enable = &p;
  REQUIRE(enable != nullptr);
  CHECK(enable->polls == 3);
  CHECK(enable->sleeps == 2);
  std::vector<const Event*> seq;  // the host's CSTS reads and sleeps inside the enable wait
  for (const Event& e : events)
    if (e.src == EventSource::host && e.t_ps >= enable->start_ps && e.t_ps <= enable->end_ps &&
        (e.kind == EventKind::sleep || (e.kind == EventKind::mmio_read && std::string(e.reg) == "CSTS")))
      seq.push_back(&e);
  REQUIRE(seq.size() == 5);
  for (size_t i = 1; i < seq.size(); i += 2) {
    const Event& before = *seq[i - 1];
    const Event& sleep = *seq[i];
    const Event& after = *seq[i + 1];
    INFO("sleep " << (i + 1) / 2 << " at " << sleep.t_ps << " ps");
    REQUIRE(sleep.kind == EventKind::sleep);
    CHECK(sleep.detail == "usleep_range(1000, 2000)");
    CHECK(sleep.t_ps == before.t_ps + before.dur_ps);            // sleeps once the read is back
    CHECK(sleep.dur_ps == 2'000'000'000 + 7'000'000);            // hard expiry + wakeup latency
    CHECK(after.t_ps == sleep.t_ps + 2'000'000'000 + 7'000'000); // the next read then
  }
  CHECK((seq[0]->value & 1) == 0);
  CHECK((seq[2]->value & 1) == 0);
  CHECK((seq[4]->value & 1) == 1);
}
