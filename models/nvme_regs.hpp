#pragma once
// NVMe controller registers (PCIe transport, BAR0), as named in the NVM Express Base Specification
// 2.x, section 3.1.4 "Controller Properties" (summary: shared/reference/nvme-registers.md).
// Header-only, no SystemC: the host model and the controller model both use it, exactly as a
// driver and a device both use the specification.
#include <cstdint>
#include <string_view>

namespace nvmesim::regs {

// ---- BAR0 offsets (bytes) -------------------------------------------------------------------
inline constexpr uint32_t kCap = 0x00;    ///< CAP, 64 bit, RO
inline constexpr uint32_t kVs = 0x08;     ///< VS, 32 bit, RO
inline constexpr uint32_t kIntms = 0x0C;  ///< INTMS, 32 bit, RW1S
inline constexpr uint32_t kIntmc = 0x10;  ///< INTMC, 32 bit, RW1C
inline constexpr uint32_t kCc = 0x14;     ///< CC, 32 bit, RW
inline constexpr uint32_t kCsts = 0x1C;   ///< CSTS, 32 bit, RO (NSSRO is RW1C)
inline constexpr uint32_t kNssr = 0x20;   ///< NSSR, 32 bit, RW
inline constexpr uint32_t kAqa = 0x24;    ///< AQA, 32 bit, RW
inline constexpr uint32_t kAsq = 0x28;    ///< ASQ, 64 bit, RW
inline constexpr uint32_t kAcq = 0x30;    ///< ACQ, 64 bit, RW
inline constexpr uint32_t kCrto = 0x68;   ///< CRTO (NVMe 2.0), 32 bit, RO
inline constexpr uint32_t kDoorbellBase = 0x1000;
/// Value that, written to NSSR, resets the NVM subsystem ("NVMe" in ASCII).
inline constexpr uint32_t kNssrReset = 0x4E564D65;
/// What a read returns once the PCIe function is gone (surprise removal, link down).
inline constexpr uint32_t kAllOnes32 = 0xFFFFFFFFu;

/// Offset of the submission queue `qid` tail doorbell: 1000h + (2 qid) (4 << DSTRD).
constexpr uint32_t sq_tail_doorbell(uint32_t qid, uint32_t dstrd) {
  return kDoorbellBase + (2 * qid) * (4u << dstrd);
}
/// Offset of the completion queue `qid` head doorbell: 1000h + (2 qid + 1) (4 << DSTRD).
constexpr uint32_t cq_head_doorbell(uint32_t qid, uint32_t dstrd) {
  return kDoorbellBase + (2 * qid + 1) * (4u << dstrd);
}

namespace detail {
constexpr uint64_t field(uint64_t reg, unsigned lo, unsigned width) {
  return (reg >> lo) & ((width == 64) ? ~0ull : ((1ull << width) - 1));
}
constexpr uint64_t place(uint64_t v, unsigned lo, unsigned width) {
  return (v & ((width == 64) ? ~0ull : ((1ull << width) - 1))) << lo;
}
}  // namespace detail

/// CAP, Controller Capabilities (offset 00h). Field values as the register holds them
/// (MQES is 0's based, TO is in 500 ms units, MPSMIN/MPSMAX are exponents of 2^(12+n)).
struct Cap {
  uint16_t mqes = 0;      ///< 15:0 maximum queue entries supported, 0's based
  bool cqr = false;       ///< 16 contiguous queues required
  uint8_t ams = 0;        ///< 18:17 arbitration mechanisms supported
  uint8_t to = 0;         ///< 31:24 timeout, 500 ms units, for RDY to follow EN (both directions)
  uint8_t dstrd = 0;      ///< 35:32 doorbell stride 2^(2+DSTRD) bytes
  bool nssrs = false;     ///< 36 NVM subsystem reset supported
  uint8_t css = 0x01;     ///< 44:37 command sets supported (bit 0 = NVM)
  bool bps = false;       ///< 45 boot partition support
  uint8_t cps = 0;        ///< 47:46 controller power scope
  uint8_t mpsmin = 0;     ///< 51:48 memory page size minimum 2^(12+MPSMIN)
  uint8_t mpsmax = 0;     ///< 55:52 memory page size maximum 2^(12+MPSMAX)
  bool pmrs = false;      ///< 56 persistent memory region supported
  bool cmbs = false;      ///< 57 controller memory buffer supported
  bool nsss = false;      ///< 58 NVM subsystem shutdown supported
  bool crwms = false;     ///< 59 CRMS bit 0: controller ready with media support
  bool crims = false;     ///< 60 CRMS bit 1: controller ready independent of media support

  /// Packs the fields into the 64-bit register value.
  constexpr uint64_t encode() const {
    using detail::place;
    return place(mqes, 0, 16) | place(cqr, 16, 1) | place(ams, 17, 2) | place(to, 24, 8) |
           place(dstrd, 32, 4) | place(nssrs, 36, 1) | place(css, 37, 8) | place(bps, 45, 1) |
           place(cps, 46, 2) | place(mpsmin, 48, 4) | place(mpsmax, 52, 4) | place(pmrs, 56, 1) |
           place(cmbs, 57, 1) | place(nsss, 58, 1) | place(crwms, 59, 1) | place(crims, 60, 1);
  }
  /// Unpacks a 64-bit register value (reserved bits are ignored).
  static constexpr Cap decode(uint64_t v) {
    using detail::field;
    Cap c;
    c.mqes = static_cast<uint16_t>(field(v, 0, 16));
    c.cqr = field(v, 16, 1);
    c.ams = static_cast<uint8_t>(field(v, 17, 2));
    c.to = static_cast<uint8_t>(field(v, 24, 8));
    c.dstrd = static_cast<uint8_t>(field(v, 32, 4));
    c.nssrs = field(v, 36, 1);
    c.css = static_cast<uint8_t>(field(v, 37, 8));
    c.bps = field(v, 45, 1);
    c.cps = static_cast<uint8_t>(field(v, 46, 2));
    c.mpsmin = static_cast<uint8_t>(field(v, 48, 4));
    c.mpsmax = static_cast<uint8_t>(field(v, 52, 4));
    c.pmrs = field(v, 56, 1);
    c.cmbs = field(v, 57, 1);
    c.nsss = field(v, 58, 1);
    c.crwms = field(v, 59, 1);
    c.crims = field(v, 60, 1);
    return c;
  }
  constexpr bool operator==(const Cap& o) const { return encode() == o.encode(); }
};

/// VS, Version (offset 08h): MJR 31:16, MNR 15:8, TER 7:0 (1.4.0 = 00010400h).
struct Vs {
  uint16_t mjr = 1;
  uint8_t mnr = 4;
  uint8_t ter = 0;
  constexpr uint32_t encode() const {
    return static_cast<uint32_t>(detail::place(mjr, 16, 16) | detail::place(mnr, 8, 8) |
                                 detail::place(ter, 0, 8));
  }
  static constexpr Vs decode(uint32_t v) {
    return Vs{static_cast<uint16_t>(detail::field(v, 16, 16)),
              static_cast<uint8_t>(detail::field(v, 8, 8)),
              static_cast<uint8_t>(detail::field(v, 0, 8))};
  }
};

/// CC.SHN shutdown notification values (bits 15:14).
enum class Shn : uint8_t { none = 0, normal = 1, abrupt = 2 };

/// CC, Controller Configuration (offset 14h).
struct Cc {
  bool en = false;      ///< 0 enable
  uint8_t css = 0;      ///< 6:4 I/O command set selected
  uint8_t mps = 0;      ///< 10:7 memory page size 2^(12+MPS)
  uint8_t ams = 0;      ///< 13:11 arbitration mechanism selected
  Shn shn = Shn::none;  ///< 15:14 shutdown notification
  uint8_t iosqes = 0;   ///< 19:16 I/O SQ entry size 2^n bytes
  uint8_t iocqes = 0;   ///< 23:20 I/O CQ entry size 2^n bytes
  bool crime = false;   ///< 24 controller ready independent of media enable (needs CAP.CRIMS)

  constexpr uint32_t encode() const {
    using detail::place;
    return static_cast<uint32_t>(place(en, 0, 1) | place(css, 4, 3) | place(mps, 7, 4) |
                                 place(ams, 11, 3) | place(static_cast<uint8_t>(shn), 14, 2) |
                                 place(iosqes, 16, 4) | place(iocqes, 20, 4) | place(crime, 24, 1));
  }
  static constexpr Cc decode(uint32_t v) {
    using detail::field;
    Cc c;
    c.en = field(v, 0, 1);
    c.css = static_cast<uint8_t>(field(v, 4, 3));
    c.mps = static_cast<uint8_t>(field(v, 7, 4));
    c.ams = static_cast<uint8_t>(field(v, 11, 3));
    c.shn = static_cast<Shn>(field(v, 14, 2));
    c.iosqes = static_cast<uint8_t>(field(v, 16, 4));
    c.iocqes = static_cast<uint8_t>(field(v, 20, 4));
    c.crime = field(v, 24, 1);
    return c;
  }
};

/// CSTS.SHST shutdown status values (bits 3:2).
enum class Shst : uint8_t { normal = 0, processing = 1, complete = 2 };

/// CSTS, Controller Status (offset 1Ch).
struct Csts {
  bool rdy = false;             ///< 0 ready
  bool cfs = false;             ///< 1 controller fatal status
  Shst shst = Shst::normal;     ///< 3:2 shutdown status
  bool nssro = false;           ///< 4 NVM subsystem reset occurred (RW1C)
  bool pp = false;              ///< 5 processing paused
  bool st = false;              ///< 6 shutdown type
  static constexpr uint32_t kRdy = 1u << 0;
  static constexpr uint32_t kCfs = 1u << 1;
  static constexpr uint32_t kNssro = 1u << 4;

  constexpr uint32_t encode() const {
    using detail::place;
    return static_cast<uint32_t>(place(rdy, 0, 1) | place(cfs, 1, 1) |
                                 place(static_cast<uint8_t>(shst), 2, 2) | place(nssro, 4, 1) |
                                 place(pp, 5, 1) | place(st, 6, 1));
  }
  static constexpr Csts decode(uint32_t v) {
    using detail::field;
    Csts c;
    c.rdy = field(v, 0, 1);
    c.cfs = field(v, 1, 1);
    c.shst = static_cast<Shst>(field(v, 2, 2));
    c.nssro = field(v, 4, 1);
    c.pp = field(v, 5, 1);
    c.st = field(v, 6, 1);
    return c;
  }
};

/// AQA, Admin Queue Attributes (offset 24h): ASQS 11:0 and ACQS 27:16, both 0's based.
struct Aqa {
  uint16_t asqs = 0;
  uint16_t acqs = 0;
  constexpr uint32_t encode() const {
    return static_cast<uint32_t>(detail::place(asqs, 0, 12) | detail::place(acqs, 16, 12));
  }
  static constexpr Aqa decode(uint32_t v) {
    return Aqa{static_cast<uint16_t>(detail::field(v, 0, 12)),
               static_cast<uint16_t>(detail::field(v, 16, 12))};
  }
};

/// CRTO, Controller Ready Timeouts (offset 68h, NVMe 2.0): CRWMT 15:0 and CRIMT 31:16,
/// both in 500 ms units.
struct Crto {
  uint16_t crwmt = 0;  ///< ready with media timeout, 500 ms units
  uint16_t crimt = 0;  ///< ready independent of media timeout, 500 ms units
  constexpr uint32_t encode() const {
    return static_cast<uint32_t>(detail::place(crwmt, 0, 16) | detail::place(crimt, 16, 16));
  }
  static constexpr Crto decode(uint32_t v) {
    return Crto{static_cast<uint16_t>(detail::field(v, 0, 16)),
                static_cast<uint16_t>(detail::field(v, 16, 16))};
  }
};

/// Little-endian loads and stores of register values and queue entries (PCIe and NVMe data
/// structures are little endian).
constexpr uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}
constexpr uint64_t le64(const uint8_t* p) { return le32(p) | static_cast<uint64_t>(le32(p + 4)) << 32; }
constexpr void put_le32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
constexpr void put_le64(uint8_t* p, uint64_t v) {
  put_le32(p, static_cast<uint32_t>(v));
  put_le32(p + 4, static_cast<uint32_t>(v >> 32));
}

/// ASQ/ACQ base addresses must be 4 KiB aligned (bits 11:0 reserved).
constexpr bool queue_base_aligned(uint64_t base) { return (base & 0xFFFull) == 0; }

/// Parses a register value as hex text, the way `nvme show-regs` prints it ("4028033fff") or
/// with a "0x" prefix ("0x4028033fff"). Returns false (and leaves `out` alone) for an empty
/// string, a non-hex digit, or a value wider than `bits` (1..64).
constexpr bool parse_hex(std::string_view text, unsigned bits, uint64_t& out) {
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  if (text.empty() || text.size() > 16) return false;
  uint64_t v = 0;
  for (char c : text) {
    uint64_t d = 0;
    if (c >= '0' && c <= '9') d = static_cast<uint64_t>(c - '0');
    else if (c >= 'a' && c <= 'f') d = static_cast<uint64_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = static_cast<uint64_t>(c - 'A' + 10);
    else return false;
    v = v << 4 | d;
  }
  if (bits < 64 && (v >> bits) != 0) return false;
  out = v;
  return true;
}

/// Controller readiness rules of NVMe 2.0 (CAP.CRMS, CC.CRIME, CRTO; nvme-registers.md):
/// the timeout (500 ms units) that bounds the enable transition the controller promises.
/// With CAP.CRWMS clear, CAP.TO; otherwise CRTO.CRIMT when CC.CRIME is set, else CRTO.CRWMT.
constexpr uint32_t ready_timeout_500ms(const Cap& cap, const Crto& crto, bool crime) {
  if (!cap.crwms) return cap.to;
  return crime ? crto.crimt : crto.crwmt;
}

/// PCI configuration space of the function, reached through the same TLM socket as BAR0 at
/// kConfigSpaceBase + offset (an address no BAR0 access can reach; a model's stand-in for
/// configuration requests, which travel as their own TLP type on a real link).
namespace pcicfg {
inline constexpr uint64_t kConfigSpaceBase = 1ull << 40;
inline constexpr uint32_t kVendorId = 0x00;      ///< 16 bit; all ones once the function is gone
inline constexpr uint32_t kPcieCap = 0x70;       ///< where our model places the PCI Express capability
inline constexpr uint32_t kDevCtl = kPcieCap + 0x08;  ///< Device Control, 16 bit
inline constexpr uint32_t kDevCtlInitiateFlr = 1u << 15;  ///< Initiate Function Level Reset (PCIe 6.0 7.5.3.4)
}  // namespace pcicfg

/// Platform constants the device and the host agree on, as a driver and a device agree on what
/// the driver programs (here fixed).
namespace platform {
/// Host bus address of the MSI-X message (the x86 local APIC window): the controller raises its
/// interrupt with a write there, and the host's memory model takes a write there as the interrupt.
inline constexpr uint64_t kMsixAddress = 0xFEE00000ull;
}  // namespace platform

/// Admin command opcodes used at initialisation (NVMe Base 2.x, figure "Opcodes for Admin
/// Commands").
namespace opcode {
inline constexpr uint8_t kDeleteIoSq = 0x00;
inline constexpr uint8_t kCreateIoSq = 0x01;
inline constexpr uint8_t kDeleteIoCq = 0x04;
inline constexpr uint8_t kCreateIoCq = 0x05;
inline constexpr uint8_t kIdentify = 0x06;
inline constexpr uint8_t kSetFeatures = 0x09;
inline constexpr uint8_t kAsyncEventRequest = 0x0C;
}  // namespace opcode

/// Identify CNS values (CDW10 7:0) used by the host model.
namespace cns {
inline constexpr uint8_t kNamespace = 0x00;           ///< Identify Namespace (NVM)
inline constexpr uint8_t kController = 0x01;          ///< Identify Controller
inline constexpr uint8_t kNamespaceCsIndep = 0x08;    ///< I/O Command Set Independent Identify Namespace (2.0)
}  // namespace cns

/// Byte offsets in the Identify data structures.
namespace identify {
inline constexpr unsigned kMnOffset = 24;      ///< Identify Controller MN, 40 bytes, ASCII, space padded
inline constexpr unsigned kMnBytes = 40;
inline constexpr unsigned kRtd3eOffset = 88;   ///< Identify Controller RTD3E, 32 bit, microseconds
inline constexpr unsigned kVidOffset = 0;      ///< Identify Controller VID, 16 bit
inline constexpr unsigned kNstatOffset = 14;   ///< CS-independent Identify Namespace NSTAT, 8 bit
inline constexpr uint8_t kNstatNrdy = 0x01;    ///< NSTAT bit 0 NRDY: 1 = the namespace is ready
}  // namespace identify

/// Asynchronous Event completion DW0 for "Notice: Namespace Attribute Changed" (type 2, info 0).
inline constexpr uint32_t kAenNamespaceChanged = 0x2u | (0x00u << 8) | (0x04u << 16);

/// Size of an admin submission queue entry and completion queue entry, in bytes.
inline constexpr unsigned kSqeBytes = 64;
inline constexpr unsigned kCqeBytes = 16;

}  // namespace nvmesim::regs
