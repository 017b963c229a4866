// Host memory's lazy clear (host/host_memory.hpp, issue 15 items 3 and 4): after clear(), every
// byte written since the previous clear reads back as zero, through the CPU's view() and through
// a DMA read, whichever 4 KiB pages the writes and reads span; a write that covers all of a
// page's stale bytes replaces them, one that covers part of them leaves the rest reading zero.
// Each TEST_CASE elaborates one host_memory and a DMA initiator; the expected bytes are the
// patterns written (or zero), so no value comes from the program under test.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "host/host_memory.hpp"

using namespace nvmesim;

namespace {

// One SC_THREAD that runs `script`; dma() is a zero-delay DMA into the host memory.
class dma_initiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<dma_initiator> socket;
  std::function<void()> script;

  explicit dma_initiator(sc_core::sc_module_name name) : sc_module(name), socket("socket") { SC_THREAD(run); }
  SC_HAS_PROCESS(dma_initiator);

  // A DMA of `len` bytes at `addr`; for a write, every byte is `fill`. Returns the bytes (a read)
  // and whether the target answered OK.
  std::vector<uint8_t> dma(tlm::tlm_command cmd, uint64_t addr, uint32_t len, uint8_t fill, bool* ok) {
    std::vector<uint8_t> data(len, cmd == tlm::TLM_WRITE_COMMAND ? fill : uint8_t{0xEE});
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(data.data());
    t.set_data_length(len);
    t.set_streaming_width(len);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    socket->b_transport(t, d);
    *ok = t.is_response_ok();
    return data;
  }

 private:
  void run() { script(); }
};

struct MemBench {
  host_memory mem{"mem"};
  dma_initiator dev{"dev"};
  std::vector<std::string> failures;  // collected in the thread, checked after sc_start
  MemBench() {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    dev.socket.bind(mem.target);
  }
  void dma_write(uint64_t addr, uint32_t len, uint8_t fill) {
    bool ok = false;
    dev.dma(tlm::TLM_WRITE_COMMAND, addr, len, fill, &ok);
    if (!ok) failures.push_back("DMA write at " + std::to_string(addr) + " refused");
  }
  // Every byte of a DMA read of [addr, addr + len) must be want(i) for the i-th byte.
  void expect_dma(const std::string& what, uint64_t addr, uint32_t len, const std::function<uint8_t(uint32_t)>& want) {
    bool ok = false;
    const std::vector<uint8_t> got = dev.dma(tlm::TLM_READ_COMMAND, addr, len, 0, &ok);
    if (!ok) failures.push_back(what + ": DMA read refused");
    expect_bytes(what, got.data(), len, want);
  }
  // The same through the CPU's view of addr (valid to the end of its page).
  void expect_view(const std::string& what, uint64_t addr, uint32_t len, const std::function<uint8_t(uint32_t)>& want) {
    expect_bytes(what, mem.view(addr), len, want);
  }
  void expect_bytes(const std::string& what, const uint8_t* p, uint32_t len, const std::function<uint8_t(uint32_t)>& want) {
    for (uint32_t i = 0; i < len; ++i)
      if (p[i] != want(i)) {
        failures.push_back(what + ": byte " + std::to_string(i) + " is " + std::to_string(p[i]) + ", not " +
                           std::to_string(want(i)));
        return;
      }
  }
  // Runs the script; returns the observations that failed (each also reported).
  size_t run(std::function<void()> script) {
    dev.script = std::move(script);
    sc_core::sc_start();
    for (const std::string& f : failures) FAIL_CHECK(f);
    return failures.size();
  }
};

uint8_t zero(uint32_t) { return 0; }

}  // namespace

TEST_CASE("host memory: clear zeroes every byte written since the last clear, across pages, by DMA and by the CPU",
          "[model][systemc]") {
  MemBench b;
  const size_t failed = b.run([&] {
    // The Identify page (4096 x 5Ah), CQ slot 3 (2030h, 16 x 77h), 32 bytes across the SQ/CQ page
    // boundary (1FF0h-200Fh, C3h), and SQE 5 written by the CPU (1140h, 64 x AAh).
    b.dma_write(hostmem::kIdentify, 4096, 0x5A);
    b.dma_write(hostmem::kAdminCq + 3 * 16, 16, 0x77);
    b.dma_write(0x1FF0, 32, 0xC3);
    uint8_t* sqe = b.mem.write_at(hostmem::kAdminSq + 5 * 64, 64);
    for (int i = 0; i < 64; ++i) sqe[i] = 0xAA;
    b.expect_view("written, before clear: SQE 5", hostmem::kAdminSq + 5 * 64, 64, [](uint32_t) { return uint8_t{0xAA}; });
    b.expect_dma("written, before clear: across the page boundary", 0x1FF0, 32, [](uint32_t) { return uint8_t{0xC3}; });
    b.mem.clear();
    // First a DMA read across the page boundary, before anything else settles either page.
    b.expect_dma("after clear, read first: across the page boundary", 0x1FF0, 32, zero);
    b.expect_view("after clear: the Identify page", hostmem::kIdentify, 4096, zero);
    b.expect_view("after clear: the CQ page (the boundary write's second half and slot 3)", hostmem::kAdminCq, 4096, zero);
    b.expect_dma("after clear: the SQ page", hostmem::kAdminSq, 4096, zero);
    b.expect_dma("after clear: across the page boundary", 0x1FF0, 32, zero);
  });
  CHECK(failed == 0);
}

TEST_CASE("host memory: a write over all of a page's stale bytes replaces them, over part of them the rest reads zero",
          "[model][systemc]") {
  MemBench b;
  const size_t failed = b.run([&] {
    // Identify page 4096 x 11h, cleared; 16 x 22h at byte 100: bytes 100-115 are 22h, the rest 0.
    b.dma_write(hostmem::kIdentify, 4096, 0x11);
    b.mem.clear();
    b.dma_write(hostmem::kIdentify + 100, 16, 0x22);
    b.expect_view("a 16-byte write into a cleared page", hostmem::kIdentify, 4096,
                  [](uint32_t i) { return i >= 100 && i < 116 ? uint8_t{0x22} : uint8_t{0}; });
    // Cleared again; a 4096-byte write of 33h covers every stale byte: all 33h.
    b.mem.clear();
    b.dma_write(hostmem::kIdentify, 4096, 0x33);
    b.expect_dma("a 4 KiB write over a cleared page", hostmem::kIdentify, 4096, [](uint32_t) { return uint8_t{0x33}; });
    // SQE 0 of 64 x AAh by the CPU, cleared, then SQE 1 by the CPU: SQE 0 reads zero.
    uint8_t* sqe0 = b.mem.write_at(hostmem::kAdminSq, 64);
    for (int i = 0; i < 64; ++i) sqe0[i] = 0xAA;
    b.mem.clear();
    uint8_t* sqe1 = b.mem.write_at(hostmem::kAdminSq + 64, 64);
    for (int i = 0; i < 64; ++i) sqe1[i] = 0xBB;
    b.expect_dma("SQE 0 and 1 after a clear between them", hostmem::kAdminSq, 128,
                 [](uint32_t i) { return i < 64 ? uint8_t{0} : uint8_t{0xBB}; });
  });
  CHECK(failed == 0);
}

TEST_CASE("host memory: bytes written before two clears with no read between them read zero",
          "[model][systemc]") {
  MemBench b;
  const size_t failed = b.run([&] {
    // Nothing reads the Identify page between the clears: the second must not forget the first's
    // stale bytes.
    b.dma_write(hostmem::kIdentify, 4096, 0x44);
    b.mem.clear();
    b.dma_write(hostmem::kAdminCq, 16, 0x55);
    b.mem.clear();
    b.expect_view("Identify after two clears", hostmem::kIdentify, 4096, zero);
    b.expect_view("CQ slot 0 after a clear", hostmem::kAdminCq, 16, zero);
  });
  CHECK(failed == 0);
}

TEST_CASE("host memory: CQEs posted in ascending slots read zero after a clear - as a probe's are",
          "[model][systemc]") {
  MemBench b;
  const size_t failed = b.run([&] {
    // CQ slots 0, 1, 2 written in order (the controller posts them so): after a clear all three
    // read zero, or the next probe would see a stale phase tag in slot 0 or 1.
    for (uint32_t slot = 0; slot < 3; ++slot) b.dma_write(hostmem::kAdminCq + slot * 16, 16, 0x01);
    b.mem.clear();
    b.expect_view("CQ slots 0-2 after a clear", hostmem::kAdminCq, 48, zero);
  });
  CHECK(failed == 0);
}
