#pragma once
// NVMe controller registers (PCIe transport, BAR0), as named in the NVM Express Base Specification
// 2.x, section 3.1.4 "Controller Properties" (summary: docs/nvme-registers.md).
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

/// A bit field of a register: bits lo .. lo + width - 1. The one place a field's position is
/// stated: encode(), decode() and the mask builders all use it.
struct Field {
  unsigned lo = 0;
  unsigned width = 1;
  constexpr uint64_t mask() const { return detail::place(~0ull, lo, width); }
  constexpr uint64_t get(uint64_t reg) const { return detail::field(reg, lo, width); }
  constexpr uint64_t put(uint64_t v) const { return detail::place(v, lo, width); }
};

/// CAP.CSS bits (NVMe Base 2.x, figure "Offset 0h: CAP"): NVM command set, the I/O command sets, no
/// I/O command set (admin only).
inline constexpr uint8_t kCapCssNvm = 0x01;
inline constexpr uint8_t kCapCssIoCommandSets = 0x40;
inline constexpr uint8_t kCapCssAdminOnly = 0x80;
/// CC.CSS values: 000b NVM, 110b all supported I/O command sets, 111b admin command set only.
inline constexpr uint8_t kCcCssNvm = 0;
inline constexpr uint8_t kCcCssAllIoCommandSets = 6;
inline constexpr uint8_t kCcCssAdminOnly = 7;
/// Whether a controller with CAP.CSS = `cap_css` supports CC.CSS = `cc_css` (each value needs its
/// CAP.CSS bit; the other values are reserved). NVMe Base 2.x, CC.CSS.
constexpr bool cc_css_supported(uint8_t cc_css, uint8_t cap_css) {
  switch (cc_css) {
    case kCcCssNvm: return (cap_css & kCapCssNvm) != 0;
    case kCcCssAllIoCommandSets: return (cap_css & kCapCssIoCommandSets) != 0;
    case kCcCssAdminOnly: return (cap_css & kCapCssAdminOnly) != 0;
    default: return false;
  }
}

/// CC.SHN shutdown notification values (bits 15:14).
enum class Shn : uint8_t { none = 0, normal = 1, abrupt = 2 };

/// CC, Controller Configuration (offset 14h). Build a value with the designated setters
/// (`Cc{}.with_en().with_iosqes(6).with_iocqes(4)`) and a mask of fields with the builder
/// (`Cc::mask().shn().en()`), never positionally.
struct Cc {
  bool en = false;      ///< 0 enable
  uint8_t css = 0;      ///< 6:4 I/O command set selected
  uint8_t mps = 0;      ///< 10:7 memory page size 2^(12+MPS)
  uint8_t ams = 0;      ///< 13:11 arbitration mechanism selected
  Shn shn = Shn::none;  ///< 15:14 shutdown notification
  uint8_t iosqes = 0;   ///< 19:16 I/O SQ entry size 2^n bytes
  uint8_t iocqes = 0;   ///< 23:20 I/O CQ entry size 2^n bytes
  bool crime = false;   ///< 24 controller ready independent of media enable (needs CAP.CRIMS)

  /// Where each field sits (NVMe Base 2.x, figure "Offset 14h: CC").
  struct Fields {
    static constexpr Field en{0, 1}, css{4, 3}, mps{7, 4}, ams{11, 3}, shn{14, 2}, iosqes{16, 4},
        iocqes{20, 4}, crime{24, 1};
  };
  /// A mask of whole fields, e.g. Cc::mask().shn().en().value() == 0x0000C001.
  class Mask {
   public:
    constexpr Mask en() const { return with(Fields::en); }
    constexpr Mask css() const { return with(Fields::css); }
    constexpr Mask mps() const { return with(Fields::mps); }
    constexpr Mask ams() const { return with(Fields::ams); }
    constexpr Mask shn() const { return with(Fields::shn); }
    constexpr Mask iosqes() const { return with(Fields::iosqes); }
    constexpr Mask iocqes() const { return with(Fields::iocqes); }
    constexpr Mask crime() const { return with(Fields::crime); }
    constexpr uint32_t value() const { return v_; }

   private:
    constexpr Mask with(Field f) const {
      Mask m = *this;
      m.v_ |= static_cast<uint32_t>(f.mask());
      return m;
    }
    uint32_t v_ = 0;
  };
  static constexpr Mask mask() { return Mask{}; }

  constexpr Cc with_en(bool v = true) const { Cc c = *this; c.en = v; return c; }
  constexpr Cc with_css(uint8_t v) const { Cc c = *this; c.css = v; return c; }
  constexpr Cc with_mps(uint8_t v) const { Cc c = *this; c.mps = v; return c; }
  constexpr Cc with_ams(uint8_t v) const { Cc c = *this; c.ams = v; return c; }
  constexpr Cc with_shn(Shn v) const { Cc c = *this; c.shn = v; return c; }
  constexpr Cc with_iosqes(uint8_t v) const { Cc c = *this; c.iosqes = v; return c; }
  constexpr Cc with_iocqes(uint8_t v) const { Cc c = *this; c.iocqes = v; return c; }
  constexpr Cc with_crime(bool v = true) const { Cc c = *this; c.crime = v; return c; }

  constexpr uint32_t encode() const {
    return static_cast<uint32_t>(Fields::en.put(en) | Fields::css.put(css) | Fields::mps.put(mps) |
                                 Fields::ams.put(ams) | Fields::shn.put(static_cast<uint8_t>(shn)) |
                                 Fields::iosqes.put(iosqes) | Fields::iocqes.put(iocqes) |
                                 Fields::crime.put(crime));
  }
  static constexpr Cc decode(uint32_t v) {
    Cc c;
    c.en = Fields::en.get(v);
    c.css = static_cast<uint8_t>(Fields::css.get(v));
    c.mps = static_cast<uint8_t>(Fields::mps.get(v));
    c.ams = static_cast<uint8_t>(Fields::ams.get(v));
    c.shn = static_cast<Shn>(Fields::shn.get(v));
    c.iosqes = static_cast<uint8_t>(Fields::iosqes.get(v));
    c.iocqes = static_cast<uint8_t>(Fields::iocqes.get(v));
    c.crime = Fields::crime.get(v);
    return c;
  }
};

/// CSTS.SHST shutdown status values (bits 3:2).
enum class Shst : uint8_t { normal = 0, processing = 1, complete = 2 };

/// CSTS, Controller Status (offset 1Ch). Values through the designated setters
/// (`Csts{}.with_shst(Shst::complete)`), masks through `Csts::mask().shst()`.
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

  /// Where each field sits (NVMe Base 2.x, figure "Offset 1Ch: CSTS").
  struct Fields {
    static constexpr Field rdy{0, 1}, cfs{1, 1}, shst{2, 2}, nssro{4, 1}, pp{5, 1}, st{6, 1};
  };
  /// A mask of whole fields, e.g. Csts::mask().shst().value() == 0x0000000C.
  class Mask {
   public:
    constexpr Mask rdy() const { return with(Fields::rdy); }
    constexpr Mask cfs() const { return with(Fields::cfs); }
    constexpr Mask shst() const { return with(Fields::shst); }
    constexpr Mask nssro() const { return with(Fields::nssro); }
    constexpr Mask pp() const { return with(Fields::pp); }
    constexpr Mask st() const { return with(Fields::st); }
    constexpr uint32_t value() const { return v_; }

   private:
    constexpr Mask with(Field f) const {
      Mask m = *this;
      m.v_ |= static_cast<uint32_t>(f.mask());
      return m;
    }
    uint32_t v_ = 0;
  };
  static constexpr Mask mask() { return Mask{}; }

  constexpr Csts with_rdy(bool v = true) const { Csts c = *this; c.rdy = v; return c; }
  constexpr Csts with_cfs(bool v = true) const { Csts c = *this; c.cfs = v; return c; }
  constexpr Csts with_shst(Shst v) const { Csts c = *this; c.shst = v; return c; }
  constexpr Csts with_nssro(bool v = true) const { Csts c = *this; c.nssro = v; return c; }
  constexpr Csts with_pp(bool v = true) const { Csts c = *this; c.pp = v; return c; }
  constexpr Csts with_st(bool v = true) const { Csts c = *this; c.st = v; return c; }

  constexpr uint32_t encode() const {
    return static_cast<uint32_t>(Fields::rdy.put(rdy) | Fields::cfs.put(cfs) |
                                 Fields::shst.put(static_cast<uint8_t>(shst)) | Fields::nssro.put(nssro) |
                                 Fields::pp.put(pp) | Fields::st.put(st));
  }
  static constexpr Csts decode(uint32_t v) {
    Csts c;
    c.rdy = Fields::rdy.get(v);
    c.cfs = Fields::cfs.get(v);
    c.shst = static_cast<Shst>(Fields::shst.get(v));
    c.nssro = Fields::nssro.get(v);
    c.pp = Fields::pp.get(v);
    c.st = Fields::st.get(v);
    return c;
  }
};

/// AQA, Admin Queue Attributes (offset 24h): ASQS 11:0 and ACQS 27:16, both 0's based.
struct Aqa {
  uint16_t asqs = 0;
  uint16_t acqs = 0;
  /// The bits AQA defines (ASQS and ACQS); the others are reserved and read 0.
  static constexpr uint32_t kDefinedBits = 0x0FFF0FFFu;
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

/// PCI configuration space of the function (PCI Express Base 6.0 chapter 7): reached by
/// configuration requests, which travel on the BAR0 socket as payloads carrying a
/// pcie_config_extension (models/pcie_transport.hpp); the payload's address is the register
/// offset. Offsets and bits the model implements:
namespace pcicfg {
inline constexpr uint32_t kSpaceBytes = 4096;    ///< PCI Express configuration space of one function
inline constexpr uint32_t kVendorId = 0x00;      ///< 16 bit; all ones once the function is gone
inline constexpr uint32_t kDeviceId = 0x02;      ///< 16 bit
inline constexpr uint32_t kCommand = 0x04;       ///< 16 bit; Status at 06h
inline constexpr uint32_t kClassRevision = 0x08; ///< revision 7:0, class code 31:8
inline constexpr uint32_t kCapPointer = 0x34;    ///< 8 bit: the first capability
inline constexpr uint32_t kPcieCap = 0x70;       ///< where our model places the PCI Express capability
inline constexpr uint32_t kDevCap = kPcieCap + 0x04;  ///< Device Capabilities, 32 bit
inline constexpr uint32_t kDevCtl = kPcieCap + 0x08;  ///< Device Control, 16 bit; Device Status at +2
inline constexpr uint32_t kClassNvme = 0x010802;      ///< mass storage, non-volatile memory, NVM Express
inline constexpr uint16_t kStatusCapList = 1u << 4;   ///< Status: a capabilities list exists
inline constexpr uint8_t kCapIdPcie = 0x10;           ///< capability ID of the PCI Express capability
inline constexpr uint32_t kDevCapFlr = 1u << 28;      ///< Function Level Reset Capability (PCIe 6.0 7.5.3.3)
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

/// An admin opcode's name as the timeline spells it ("identify", "set_features", ...), "admin"
/// for an opcode the models do not name.
constexpr const char* opcode_name(uint8_t op) {
  switch (op) {
    case opcode::kIdentify: return "identify";
    case opcode::kSetFeatures: return "set_features";
    case opcode::kCreateIoCq: return "create_io_cq";
    case opcode::kCreateIoSq: return "create_io_sq";
    case opcode::kDeleteIoCq: return "delete_io_cq";
    case opcode::kDeleteIoSq: return "delete_io_sq";
    case opcode::kAsyncEventRequest: return "async_event_request";
    default: return "admin";
  }
}

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
inline constexpr unsigned kNnOffset = 516;     ///< Identify Controller NN (bytes 519:516), 32 bit
inline constexpr unsigned kNstatOffset = 14;   ///< CS-independent Identify Namespace NSTAT, 8 bit
inline constexpr uint8_t kNstatNrdy = 0x01;    ///< NSTAT bit 0 NRDY: 1 = the namespace is ready
}  // namespace identify

/// Asynchronous Event completion DW0 for "Notice: Namespace Attribute Changed" (type 2, info 0).
inline constexpr uint32_t kAenNamespaceChanged = 0x2u | (0x00u << 8) | (0x04u << 16);

/// Size of an admin submission queue entry and completion queue entry, in bytes.
inline constexpr unsigned kSqeBytes = 64;
inline constexpr unsigned kCqeBytes = 16;

}  // namespace nvmesim::regs
