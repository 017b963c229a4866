#pragma once
// Registers declared as data, the way VCML declares a peripheral's reg<>s: each row of a table
// gives a register's name, offset, width, access, reset value, the resets that restore it, and
// its read and write hooks. RegisterFile decodes an access against the table (which register,
// which bytes; a wrong width or a misaligned or out-of-range address is reported, never
// guessed), applies the access semantics (RO, RW, RW1C, RW1S, WO) to the stored value, calls
// the hooks, and restores the rows of one reset kind. Pure C++: the owner (a device model)
// supplies the hooks and decides what each decode error answers on its bus.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace nvmesim {

/// How a write changes a register's bits (NVMe Base 2.x section 3.1 "Register Definitions"
/// conventions). Reads return the stored value, or the read hook's value; a WO register reads 0.
enum class Access : uint8_t {
  ro,    ///< read only: writes have no effect
  rw,    ///< read/write
  rw1c,  ///< read, write 1 to clear
  rw1s,  ///< read, write 1 to set
  wo,    ///< write only: reads return 0, the write hook acts on the value written
};
constexpr const char* to_string(Access a) {
  switch (a) {
    case Access::ro: return "RO";
    case Access::rw: return "RW";
    case Access::rw1c: return "RW1C";
    case Access::rw1s: return "RW1S";
    case Access::wo: return "WO";
  }
  return "?";
}

/// The resets of an NVMe controller behind a PCIe function, as flags.
enum class ResetKind : uint8_t {
  controller = 1,      ///< CC.EN 1->0 (NVMe Base 2.x section 3.7.2): AQA, ASQ, ACQ and CC survive
  function_level = 2,  ///< PCIe FLR, Device Control "Initiate FLR" (PCIe 6.0 section 6.6.2)
  platform = 4,        ///< conventional reset (power-on at trial start, a reboot's platform reset)
  subsystem = 8,       ///< NVM subsystem reset: "NVMe" (4E564D65h) written to NSSR (section 3.7.1)
};
constexpr const char* to_string(ResetKind k) {
  switch (k) {
    case ResetKind::controller: return "controller";
    case ResetKind::function_level: return "function_level";
    case ResetKind::platform: return "platform";
    case ResetKind::subsystem: return "subsystem";
  }
  return "?";
}
/// A set of ResetKind flags: the resets that restore a register.
using ResetSet = uint8_t;
namespace reset_by {
inline constexpr ResetSet controller = 1, flr = 2, platform = 4, subsystem = 8;
inline constexpr ResetSet all = controller | flr | platform | subsystem;
inline constexpr ResetSet all_but_controller = flr | platform | subsystem;
}  // namespace reset_by

/// One write as the register file hands it to a write hook (after storing it).
struct RegWrite {
  uint64_t offset = 0;     ///< byte offset of the access in its address space
  uint32_t index = 0;      ///< element of an array row (doorbell number), 0 otherwise
  uint64_t old_value = 0;  ///< the stored value before the write
  uint64_t bits = 0;       ///< the data written, at the register's bit positions
  uint64_t lanes = 0;      ///< the bits the access covered (its bytes)
  int64_t t_ps = 0;        ///< absolute time the write takes effect (the hook runs then)
};

/// One row of a register table. `Owner` provides the hooks (nullptr: none).
template <class Owner>
struct RegisterSpec {
  const char* name;          ///< the specification's name ("CC")
  uint64_t offset;           ///< byte offset in the address space
  uint8_t bytes;             ///< width: 1, 2, 4 or 8 (an 8-byte register may be accessed as two 4-byte halves)
  Access access;             ///< what a write does ...
  uint64_t access_bits;      ///< ... to these bits; the others are read only
  uint64_t reset;            ///< value restored by the resets in `restored_by` (unless reset_value)
  ResetSet restored_by;      ///< the reset kinds that restore the register
  uint8_t storage;           ///< index of the row whose stored value this row reads and writes
  uint64_t (Owner::*reset_value)() const;       ///< the reset value when it is a parameter (CAP)
  uint64_t (Owner::*read)(int64_t t_ps) const;  ///< the value read, when not the stored one
  void (Owner::*write)(const RegWrite&);        ///< the write's behaviour, after the store
  uint32_t count;            ///< 1, or an array of `count` registers one stride apart (doorbells)
};

/// What a decode found.
enum class Decoded : uint8_t {
  ok,            ///< a register (or its half)
  reserved,      ///< no register: reads return 0, writes have no effect
  bad_width,     ///< a length the space does not take, or an access wider than its register
  misaligned,    ///< not naturally aligned (offset not a multiple of the length)
  out_of_range,  ///< beyond the address space
};

template <class Owner>
class RegisterFile {
 public:
  using Spec = RegisterSpec<Owner>;
  static constexpr size_t kMaxRows = 16;
  /// Where an access landed: the row, the array element, the first byte inside the register.
  struct Hit {
    const Spec* row = nullptr;
    uint32_t index = 0;
    uint32_t byte = 0;
  };

  /// `rows[n]` (n <= kMaxRows, each `storage` < n) with accesses of `min_len`..8 bytes;
  /// `space_bytes` is the size of the address space (0: up to the end of the last row).
  /// Throws std::logic_error for a table that breaks these rules.
  RegisterFile(const Spec* rows, size_t n, uint32_t min_len, uint64_t space_bytes)
      : rows_(rows), n_(n), min_len_(min_len), fixed_space_(space_bytes) {
    if (n > kMaxRows) throw std::logic_error("register table longer than RegisterFile::kMaxRows");
    for (size_t i = 0; i < n; ++i)
      if (rows[i].storage >= n) throw std::logic_error(std::string("register ") + rows[i].name + ": bad storage");
    set_array_stride(4);
  }
  /// Bytes between the elements of array rows (the doorbell stride, 4 << CAP.DSTRD): a power of
  /// two from 1 to 2^32. Throws std::logic_error for any other value.
  void set_array_stride(uint64_t stride) {
    if (stride == 0 || stride > (uint64_t{1} << 32) || (stride & (stride - 1)) != 0)
      throw std::logic_error("RegisterFile: array stride " + std::to_string(stride) + " is not a power of two");
    if (built_ && stride == stride_) return;  // every trial sets it (CAP.DSTRD): the lookup stays
    built_ = true;
    stride_ = stride;
    stride_shift_ = 0;
    while ((uint64_t{1} << stride_shift_) != stride) ++stride_shift_;
    space_ = fixed_space_;
    if (space_ == 0)
      for (size_t i = 0; i < n_; ++i) space_ = std::max(space_, end_of(rows_[i]));
    build_lookup();
  }
  uint64_t space_bytes() const { return space_; }

  /// Decodes an access of `len` bytes at `offset` into `hit`: the first row of the table (in
  /// table order) that the access overlaps decides, as below; none, `reserved`.
  Decoded decode(uint64_t offset, uint32_t len, Hit& hit) const {
    if (len < min_len_ || len > 8 || (len & (len - 1)) != 0) return Decoded::bad_width;
    if ((offset & (len - 1)) != 0) return Decoded::misaligned;  // len is a power of two (above)
    if (offset >= space_ || len > space_ - offset) return Decoded::out_of_range;
    // The row an access can only overlap, found without scanning the table (issue 15 item 3:
    // a CSTS poll scanned 6 rows, a doorbell write all 12).
    if (const Spec* r = sole_row(offset, len)) return decode_in(*r, offset, len, hit);
    for (size_t i = 0; i < n_; ++i) {
      const Spec& r = rows_[i];
      if (offset + len <= r.offset || offset >= end_of(r)) continue;
      return decode_in(r, offset, len, hit);
    }
    return Decoded::reserved;
  }

  /// The `len` bytes at `hit` as the owner answers a read at time `t_ps`.
  uint64_t read(const Owner& o, const Hit& hit, uint32_t len, int64_t t_ps) const {
    const Spec& r = *hit.row;
    const uint64_t v = r.read ? (o.*r.read)(t_ps) : r.access == Access::wo ? 0 : values_[r.storage];
    return (v >> (8 * hit.byte)) & lane_mask(len);
  }

  /// Applies a write of `len` bytes of `data` at `hit` (taking effect at `t_ps`), then its hook.
  void write(Owner& o, const Hit& hit, uint64_t offset, uint32_t len, uint64_t data, int64_t t_ps) {
    const Spec& r = *hit.row;
    const uint64_t lanes = lane_mask(len) << (8 * hit.byte);
    const uint64_t bits = (data & lane_mask(len)) << (8 * hit.byte);
    const uint64_t m = lanes & r.access_bits;
    uint64_t& v = values_[r.storage];
    const uint64_t old = v;
    switch (r.access) {
      case Access::ro:
      case Access::wo: break;
      case Access::rw: v = (v & ~m) | (bits & m); break;
      case Access::rw1c: v &= ~(bits & m); break;
      case Access::rw1s: v |= bits & m; break;
    }
    if (r.access != Access::ro) written_[r.storage] = true;
    if (r.write) (o.*r.write)(RegWrite{offset, hit.index, old, bits, lanes, t_ps});
  }

  /// Restores every row whose `restored_by` holds `kind` to its reset value (and clears its
  /// written flag).
  void reset(const Owner& o, ResetKind kind) {
    for (size_t i = 0; i < n_; ++i) {
      const Spec& r = rows_[i];
      if ((r.restored_by & static_cast<ResetSet>(kind)) == 0) continue;
      values_[r.storage] = r.reset_value ? (o.*r.reset_value)() : r.reset;
      written_[r.storage] = false;
    }
  }

  /// The stored value of row `i`, as the owner's hooks see and change it.
  uint64_t value(size_t i) const { return values_[i]; }
  void set_value(size_t i, uint64_t v) { values_[i] = v; }
  /// Whether row `i` was written since a reset restored it (set by writes, or by the owner).
  bool written(size_t i) const { return written_[i]; }
  void set_written(size_t i, bool w) { written_[i] = w; }

  static constexpr uint64_t lane_mask(uint32_t len) { return len >= 8 ? ~0ull : (1ull << (8 * len)) - 1; }

  /// The 4-byte granules at the start of the space that decode() looks up instead of scanning
  /// the table: 32 granules, 128 bytes (NVMe's controller registers end at 0x6C with CRTO, and
  /// the PCI header and the PCI Express capability below 0x80).
  static constexpr size_t kGranules = 32;

 private:
  static constexpr uint8_t kNoSoleRow = 0xFF;
  uint64_t end_of(const Spec& r) const { return r.offset + (r.count > 1 ? r.count * stride_ : r.bytes); }
  bool overlaps(const Spec& r, uint64_t begin, uint64_t end) const { return begin < end_of(r) && r.offset < end; }

  /// What decode() answers for an access that overlaps row `r` and no row listed before it.
  Decoded decode_in(const Spec& r, uint64_t offset, uint32_t len, Hit& hit) const {
    const uint64_t rel = offset - std::min(offset, r.offset);
    // The stride is a power of two: no division per access (issue 15).
    const uint64_t within = r.count > 1 ? rel & (stride_ - 1) : rel;
    if (offset < r.offset) return Decoded::bad_width;  // starts before the register
    if (within >= r.bytes) return Decoded::reserved;   // between two array elements
    if (within + len > r.bytes) return Decoded::bad_width;
    hit = Hit{&r, static_cast<uint32_t>(r.count > 1 ? rel >> stride_shift_ : 0), static_cast<uint32_t>(within)};
    return Decoded::ok;
  }

  /// The one row that an access of `len` bytes at `offset` (aligned, 1 to 8 bytes, in range)
  /// overlaps, when the lookup knows it; nullptr to scan the table. An access of up to 4 bytes
  /// stays in its granule (it is aligned), an 8-byte one covers two; a granule's entry names a
  /// row only when that row covers the whole granule and no other row touches it, so the scan
  /// would stop at that row too.
  const Spec* sole_row(uint64_t offset, uint32_t len) const {
    if (offset < 4 * kGranules) {
      const size_t g = static_cast<size_t>(offset >> 2);
      const uint8_t row = granule_row_[g];
      if (row == kNoSoleRow) return nullptr;
      if (len <= 4) return &rows_[row];
      return g + 1 < kGranules && granule_row_[g + 1] == row ? &rows_[row] : nullptr;
    }
    if (sole_array_ && offset >= sole_array_->offset && offset + len <= end_of(*sole_array_)) return sole_array_;
    return nullptr;
  }

  /// Fills granule_row_ and sole_array_ for the current stride (array rows span count x stride).
  void build_lookup() {
    for (size_t g = 0; g < kGranules; ++g) {
      const uint64_t begin = 4 * g, end = begin + 4;
      size_t found = n_, touching = 0;
      for (size_t i = 0; i < n_; ++i) {
        if (!overlaps(rows_[i], begin, end)) continue;
        ++touching;
        found = i;
      }
      const bool covers = touching == 1 && rows_[found].offset <= begin && end_of(rows_[found]) >= end;
      granule_row_[g] = covers ? static_cast<uint8_t>(found) : kNoSoleRow;
    }
    sole_array_ = nullptr;
    for (size_t i = 0; i < n_ && !sole_array_; ++i) {
      if (rows_[i].count <= 1) continue;
      bool alone = true;
      for (size_t j = 0; j < n_; ++j)
        if (j != i && overlaps(rows_[j], rows_[i].offset, end_of(rows_[i]))) alone = false;
      if (alone) sole_array_ = &rows_[i];
    }
  }

  const Spec* rows_;
  size_t n_;
  uint32_t min_len_;
  uint64_t fixed_space_;
  uint64_t stride_ = 4;
  unsigned stride_shift_ = 2;  // log2(stride_)
  uint64_t space_ = 0;
  std::array<uint8_t, kGranules> granule_row_{};  // row index, or kNoSoleRow: scan
  const Spec* sole_array_ = nullptr;               // an array row no other row overlaps
  bool built_ = false;                             // set_array_stride has run
  std::array<uint64_t, kMaxRows> values_{};
  std::array<bool, kMaxRows> written_{};
};

}  // namespace nvmesim
