#pragma once
// The checks a device's identity must pass wherever it comes from: a scenario's pci_id and
// identify.model (scenario/controller_keys.cpp), or a user's lspci and id-ctrl dumps
// (fit/observations.cpp). Each caller words its own error with its own location.
#include <cstddef>
#include <string_view>

namespace nvmesim::regs {

/// Whether `id` ("vvvv:dddd", lower-case hex) is what a configuration read of an absent function
/// returns rather than a device's id: vendor FFFFh (PCI Local Bus 3.0, section 6.2.1; no vendor is
/// assigned it), and the vendor/device dwords 0 and FFFF0000h that Linux also takes for an empty
/// slot (0000:0000, 0000:ffff).
constexpr bool pci_id_of_absent_function(std::string_view id) {
  return id.substr(0, 4) == "ffff" || id == "0000:0000" || id == "0000:ffff";
}

/// Whether `id` ("vvvv:dddd", lower-case hex) has vendor 0001h: what a configuration read of the
/// Vendor ID returns while the function answers Configuration Request Retry Status and the root
/// port has CRS Software Visibility on (PCIe Base 4.0, section 2.3.2). Linux then retries the read
/// (up to 60 s) instead of probing, which nvmesim does not model, so it is no device's id here.
constexpr bool pci_id_of_config_retry(std::string_view id) { return id.substr(0, 4) == "0001"; }

/// The index of the first byte of `mn` outside printable ASCII (20h to 7Eh), or npos: Identify
/// MN is ASCII padded with spaces (NVMe Base 2.x, Identify Controller bytes 63:24).
constexpr size_t first_non_printable(std::string_view mn) {
  for (size_t i = 0; i < mn.size(); ++i)
    if (static_cast<unsigned char>(mn[i]) < 0x20 || static_cast<unsigned char>(mn[i]) > 0x7E) return i;
  return std::string_view::npos;
}

}  // namespace nvmesim::regs
