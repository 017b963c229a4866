// Register encoding against the bit positions of shared/reference/nvme-registers.md.
#include <catch2/catch.hpp>

#include "models/nvme_regs.hpp"

using namespace nvmesim::regs;

TEST_CASE("CAP fields sit at the bit positions of the specification", "[regs]") {
  Cap c;
  c.css = 0;
  c.to = 0x1E;  // TO 31:24
  CHECK(c.encode() == 0x1E000000ull);
  c = Cap{};
  c.css = 0;
  c.mqes = 1023;  // MQES 15:0
  CHECK(c.encode() == 0x3FFull);
  c = Cap{};
  c.css = 0;
  c.nssrs = true;  // NSSRS is bit 36 (old QEMU headers said 33)
  CHECK(c.encode() == (1ull << 36));
  c = Cap{};
  c.css = 0;
  c.crwms = true;  // CRMS bit 0 = CAP bit 59
  CHECK(c.encode() == (1ull << 59));
  c = Cap{};
  c.css = 0;
  c.crims = true;  // CRMS bit 1 = CAP bit 60
  CHECK(c.encode() == (1ull << 60));
  c = Cap{};
  c.css = 0x01;  // CSS 44:37, bit 37 = NVM
  CHECK(c.encode() == (1ull << 37));
  c = Cap{};
  c.css = 0;
  c.dstrd = 3;  // 35:32
  c.mpsmin = 1;  // 51:48
  c.mpsmax = 4;  // 55:52
  CHECK(c.encode() == ((3ull << 32) | (1ull << 48) | (4ull << 52)));
}

TEST_CASE("CAP decode inverts encode - including a value as nvme show-regs prints it", "[regs]") {
  // 0x004000300f0107ff, hand-decoded: low word 0x0f0107ff gives MQES 0x7ff (15:0), CQR (bit 16),
  // TO 0x0f (31:24); high word 0x00400030 gives bits 36 and 37 (0x30: NSSRS, CSS bit 0 = NVM) and
  // bit 54 (0x00400000: MPSMAX 55:52 = 4).
  const uint64_t raw = 0x00400030'0f0107ffull;
  const Cap c = Cap::decode(raw);
  CHECK(c.mqes == 0x7FF);
  CHECK(c.cqr);
  CHECK(c.to == 0x0F);
  CHECK(c.css == 0x01);   // bits 44:37 of 0x0040_0030_... : 0x30 >> 5 = 1 (bit 37)
  CHECK(c.nssrs);         // bit 36 of 0x...30_...: 0x30 = bits 36 and 37
  CHECK(c.mpsmax == 4);
  CHECK(c.encode() == raw);
}

TEST_CASE("CC as Linux writes it on enable is 0x460001", "[regs]") {
  // EN=1, CSS=0 (NVM), MPS=0 (4 KiB), AMS=0, SHN=0, IOSQES=6 (64 B), IOCQES=4 (16 B):
  // 1 | 6 << 16 | 4 << 20 = 0x00460001.
  Cc cc;
  cc.en = true;
  cc.iosqes = 6;
  cc.iocqes = 4;
  CHECK(cc.encode() == 0x00460001u);
  cc.shn = Shn::normal;  // SHN 15:14 = 01
  CHECK(cc.encode() == 0x00464001u);
  cc.crime = true;  // bit 24
  CHECK(cc.encode() == 0x01464001u);
  const Cc d = Cc::decode(0x01464001u);
  CHECK(d.en);
  CHECK(d.shn == Shn::normal);
  CHECK(d.crime);
  CHECK(d.iosqes == 6);
  CHECK(d.iocqes == 4);
}

TEST_CASE("CSTS bits: RDY 0 - CFS 1 - SHST 3:2 - NSSRO 4", "[regs]") {
  Csts s;
  s.rdy = true;
  CHECK(s.encode() == 0x1u);
  s.shst = Shst::complete;  // 10b at 3:2 = 0x8
  CHECK(s.encode() == 0x9u);
  s = Csts{};
  s.cfs = true;
  CHECK(s.encode() == 0x2u);
  s = Csts{};
  s.shst = Shst::processing;  // 01b at 3:2 = 0x4
  CHECK(s.encode() == 0x4u);
  CHECK(Csts::decode(0x10).nssro);
  CHECK(Csts::decode(0x8).shst == Shst::complete);
}

TEST_CASE("AQA - CRTO and VS", "[regs]") {
  CHECK(Aqa{31, 31}.encode() == 0x001F001Fu);  // ASQS 11:0, ACQS 27:16
  CHECK(Aqa::decode(0x001F001Fu).acqs == 31);
  CHECK(Crto{0x10, 0x20}.encode() == 0x00200010u);  // CRWMT 15:0, CRIMT 31:16
  CHECK(Crto::decode(0x00200010u).crimt == 0x20);
  CHECK(Vs{1, 4, 0}.encode() == 0x00010400u);
  CHECK(Vs::decode(0x00020000u).mjr == 2);
}

TEST_CASE("doorbell offsets follow 1000h + (2y + n)(4 << DSTRD)", "[regs]") {
  CHECK(sq_tail_doorbell(0, 0) == 0x1000);
  CHECK(cq_head_doorbell(0, 0) == 0x1004);
  CHECK(sq_tail_doorbell(1, 0) == 0x1008);
  CHECK(cq_head_doorbell(1, 0) == 0x100C);
  CHECK(cq_head_doorbell(0, 1) == 0x1008);  // stride 8 bytes
  CHECK(sq_tail_doorbell(2, 2) == 0x1000 + 4 * 16);
  CHECK(kCrto == 0x68);
  CHECK(kCsts == 0x1C);
}

// ---- RegisterFile: the doorbell array decode at each CAP.DSTRD (issue 15: shifts, no division) ----
#include <stdexcept>
#include <vector>

#include "models/register_file.hpp"

namespace {
struct NoHooks {};
// A BAR0-like table: a 4-byte register at 0x14 (CC) and an array of 4 doorbells from 0x1000.
const nvmesim::RegisterSpec<NoHooks> kDoorbellTable[] = {
    {"CC", 0x14, 4, nvmesim::Access::rw, 0xFFFFFFFFull, 0, nvmesim::reset_by::all, 0, nullptr, nullptr, nullptr, 1},
    {"DB", 0x1000, 4, nvmesim::Access::rw, 0xFFFFull, 0, nvmesim::reset_by::all, 1, nullptr, nullptr, nullptr, 4},
};
}  // namespace

TEST_CASE("RegisterFile decodes doorbell y at 1000h + y x (4 << DSTRD) for DSTRD 0 - 1 - 10", "[regs]") {
  using File = nvmesim::RegisterFile<NoHooks>;
  File f(kDoorbellTable, 2, 4, 0);
  File::Hit hit;
  for (const unsigned dstrd : {0u, 1u, 10u}) {
    const uint64_t stride = 4ull << dstrd;  // 4, 8, 4096 bytes
    f.set_array_stride(stride);
    INFO("DSTRD " << dstrd);
    // Doorbell 3 starts at 0x1000 + 3 x stride: element 3, byte 0.
    REQUIRE(f.decode(0x1000 + 3 * stride, 4, hit) == nvmesim::Decoded::ok);
    CHECK(hit.index == 3);
    CHECK(hit.byte == 0);
    // 2 bytes into doorbell 2 (a 2-byte access is below the BAR0 minimum of 4: refused as a width).
    CHECK(f.decode(0x1000 + 2 * stride + 2, 2, hit) == nvmesim::Decoded::bad_width);
    // Past doorbell 3's 4 bytes, inside its stride (DSTRD > 0): reserved; past the array: out of range.
    if (stride > 4) CHECK(f.decode(0x1000 + 3 * stride + 4, 4, hit) == nvmesim::Decoded::reserved);
    CHECK(f.decode(0x1000 + 4 * stride, 4, hit) == nvmesim::Decoded::out_of_range);
    // Misaligned: 0x16 is not a multiple of 4.
    CHECK(f.decode(0x16, 4, hit) == nvmesim::Decoded::misaligned);
    REQUIRE(f.decode(0x14, 4, hit) == nvmesim::Decoded::ok);
    CHECK(hit.index == 0);
  }
  // A stride that is not a power of two cannot come from 4 << DSTRD: a programming error.
  CHECK_THROWS_AS(f.set_array_stride(12), std::logic_error);
  CHECK_THROWS_AS(f.set_array_stride(0), std::logic_error);
}

// ---- RegisterFile: the granule lookup and the array fast path decode as the table scan does ----
namespace {
// Rows of every width, out of offset order, with a reserved gap, a 2-byte row that covers half
// a granule, an 8-byte row, an array in the looked-up first 128 bytes (which, at a stride of 32,
// reaches past them and overlaps X8, listed before it, and H2, listed after it), and the
// doorbell array.
const nvmesim::RegisterSpec<NoHooks> kMixedTable[] = {
    {"Q8", 0x10, 8, nvmesim::Access::rw, ~0ull, 0, nvmesim::reset_by::all, 0, nullptr, nullptr, nullptr, 1},
    {"B1", 0x00, 1, nvmesim::Access::rw, 0xFF, 0, nvmesim::reset_by::all, 1, nullptr, nullptr, nullptr, 1},
    {"W2", 0x02, 2, nvmesim::Access::rw, 0xFFFF, 0, nvmesim::reset_by::all, 2, nullptr, nullptr, nullptr, 1},
    {"D4", 0x08, 4, nvmesim::Access::rw, 0xFFFFFFFF, 0, nvmesim::reset_by::all, 3, nullptr, nullptr, nullptr, 1},
    {"X8", 0x80, 8, nvmesim::Access::rw, ~0ull, 0, nvmesim::reset_by::all, 6, nullptr, nullptr, nullptr, 1},
    {"ARR", 0x40, 4, nvmesim::Access::rw, 0xFFFFFFFF, 0, nvmesim::reset_by::all, 4, nullptr, nullptr, nullptr, 4},
    {"H2", 0x7E, 2, nvmesim::Access::rw, 0xFFFF, 0, nvmesim::reset_by::all, 5, nullptr, nullptr, nullptr, 1},
    {"DB", 0x1000, 4, nvmesim::Access::wo, 0xFFFF, 0, nvmesim::reset_by::all, 7, nullptr, nullptr, nullptr, 8},
};

// The decode rules read off the RegisterFile contract, as a plain scan: width, alignment, range,
// then the first row in table order that the access overlaps (any table, any stride).
nvmesim::Decoded scan_table(const std::vector<nvmesim::RegisterSpec<NoHooks>>& rows, uint64_t stride, uint32_t min_len,
                            uint64_t space, uint64_t offset, uint32_t len, nvmesim::RegisterFile<NoHooks>::Hit& hit) {
  using nvmesim::Decoded;
  if (len < min_len || len > 8 || (len & (len - 1)) != 0) return Decoded::bad_width;
  if (offset % len != 0) return Decoded::misaligned;
  if (offset + len > space) return Decoded::out_of_range;
  for (const auto& r : rows) {
    const uint64_t end = r.offset + (r.count > 1 ? r.count * stride : r.bytes);
    if (offset + len <= r.offset || offset >= end) continue;
    if (offset < r.offset) return Decoded::bad_width;
    const uint64_t rel = offset - r.offset;
    const uint64_t within = r.count > 1 ? rel % stride : rel;
    if (within >= r.bytes) return Decoded::reserved;
    if (within + len > r.bytes) return Decoded::bad_width;
    hit = {&r, static_cast<uint32_t>(r.count > 1 ? rel / stride : 0), static_cast<uint32_t>(within)};
    return Decoded::ok;
  }
  return Decoded::reserved;
}
}  // namespace

TEST_CASE("RegisterFile's lookup decodes every access as the table scan would, at each array stride", "[regs]") {
  using File = nvmesim::RegisterFile<NoHooks>;
  const std::vector<nvmesim::RegisterSpec<NoHooks>> mixed(std::begin(kMixedTable), std::end(kMixedTable));
  File f(mixed.data(), mixed.size(), 1, 0);
  // Strides in an order that goes back to one already used (the lookup is rebuilt, or kept).
  size_t compared = 0;
  std::vector<size_t> ok_hits;
  for (const uint64_t stride : {4u, 8u, 32u, 4u, 16u}) {
    f.set_array_stride(stride);
    ok_hits.push_back(0);
    // The space ends with the doorbell array: 0x1000 + 8 x stride.
    const uint64_t space = 0x1000 + 8 * stride;
    REQUIRE(f.space_bytes() == space);
    for (uint64_t offset = 0; offset < space + 16; ++offset) {
      for (const uint32_t len : {1u, 2u, 3u, 4u, 8u, 16u}) {
        File::Hit got, want;
        const nvmesim::Decoded d = f.decode(offset, len, got);
        const nvmesim::Decoded e = scan_table(mixed, stride, 1, space, offset, len, want);
        INFO("stride " << stride << ", offset 0x" << std::hex << offset << std::dec << ", " << len << " bytes");
        REQUIRE(static_cast<int>(d) == static_cast<int>(e));
        if (e == nvmesim::Decoded::ok) {
          REQUIRE(got.row == want.row);
          REQUIRE(got.index == want.index);
          REQUIRE(got.byte == want.byte);
          ++ok_hits.back();
        }
        ++compared;
      }
    }
  }
  // Not vacuous: every offset and width, and the ok accesses counted by hand. At stride 4, the
  // accesses of 1, 2, 4 and 8 bytes that fit a register: B1 1 + W2 3 + D4 7 + Q8 15 + ARR 4 x 7
  // + H2 3 + X8 15 + DB 8 x 7 = 128; at stride 8, ARR spans 0x40-0x5F and nothing changes. At
  // stride 16, ARR spans 0x40-0x7F and H2 (0x7E) lies between its elements: ARR, earlier in
  // the table, decides H2's 3 accesses, reserved: 125. At stride 32, ARR spans 0x40-0xBF: H2's 3 as
  // before, and X8 (0x80), listed before ARR, decides the 7 accesses of ARR's element 2
  // (0x80-0x83) as its own: 128 - 3 - 7 = 118.
  CHECK(compared == 6 * ((0x1000 + 8 * 4 + 16) * 2 + 0x1000 + 8 * 8 + 16 + 0x1000 + 8 * 32 + 16 + 0x1000 + 8 * 16 + 16));
  CHECK(ok_hits == std::vector<size_t>{128, 128, 118, 128, 125});
}

// Review of stop 30: the fixed table above let four mutants of the lookup through (a granule
// touched by two rows, an array ending mid-granule at strides 1 and 2, an 8-byte access reserved
// in its first granule). Seeded random tables of up to 8 rows (offsets 0-0x11F, widths 1-8,
// arrays of up to 6 elements, overlaps allowed) at every stride from 1 to 64, against the same
// plain scan (scan_table, above).

TEST_CASE("RegisterFile's lookup decodes as the table scan on random tables at strides 1 to 64", "[regs]") {
  using File = nvmesim::RegisterFile<NoHooks>;
  uint64_t state = 0x9E3779B97F4A7C15ull;  // a fixed seed: the same tables every run
  const auto next = [&state](uint64_t n) {  // xorshift64*, in [0, n)
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (state * 0x2545F4914F6CDD1Dull >> 33) % n;
  };
  size_t tables = 0, ok_hits = 0, looked_up = 0;
  for (int t = 0; t < 3000; ++t) {
    std::vector<nvmesim::RegisterSpec<NoHooks>> rows;
    const size_t n = 1 + next(8);
    for (size_t i = 0; i < n; ++i) {
      const uint8_t bytes = static_cast<uint8_t>(1u << next(4));  // 1, 2, 4 or 8
      const uint32_t count = next(3) == 0 ? static_cast<uint32_t>(2 + next(5)) : 1u;
      rows.push_back({"R", next(0x120), bytes, nvmesim::Access::rw, ~0ull, 0, nvmesim::reset_by::all,
                      static_cast<uint8_t>(i), nullptr, nullptr, nullptr, count});
    }
    const uint32_t min_len = next(2) == 0 ? 1u : 4u;
    File f(rows.data(), rows.size(), min_len, 0);
    for (const uint64_t stride : {1u, 2u, 4u, 8u, 16u, 64u, 4u}) {
      f.set_array_stride(stride);
      const uint64_t space = f.space_bytes();
      for (uint64_t offset = 0; offset < space + 9; ++offset) {
        for (const uint32_t len : {1u, 2u, 4u, 8u}) {
          File::Hit got, want;
          const nvmesim::Decoded d = f.decode(offset, len, got);
          const nvmesim::Decoded e = scan_table(rows, stride, min_len, space, offset, len, want);
          if (d != e || (e == nvmesim::Decoded::ok && (got.row != want.row || got.index != want.index || got.byte != want.byte))) {
            INFO("table " << t << ", stride " << stride << ", offset 0x" << std::hex << offset << std::dec << ", " << len
                          << " bytes");
            REQUIRE(static_cast<int>(d) == static_cast<int>(e));
            REQUIRE(got.row == want.row);
            REQUIRE(got.index == want.index);
            REQUIRE(got.byte == want.byte);
          }
          ok_hits += e == nvmesim::Decoded::ok;
          looked_up += offset < 4 * File::kGranules;
        }
      }
    }
    ++tables;
  }
  CHECK(tables == 3000);
  CHECK(ok_hits > 100000);   // not vacuous: many decodes land in a register
  CHECK(looked_up > 1000000);  // and many go through the granule lookup
}
