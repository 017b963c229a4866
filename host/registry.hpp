#pragma once
// The host drivers nvmesim knows: the one list, and make_driver. Pure C++ (no SystemC): the
// scenario loader takes the allowed values of `host.driver` from here. Adding a driver is one
// line in NVMESIM_HOST_DRIVERS plus its two files, host/NAME/NAME_driver.{hpp,cpp}, whose .cpp
// defines the factory make_ID (docs/architecture.md, "a new host driver").
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nvmesim {

class HostDriver;
class nvme_host;

/// How a driver's messages reach the log (`--dmesg`, the timeline's "dmesg").
enum class LogFormat : uint8_t {
  printk,   ///< Linux's printk: every line after a "[%5lu.%06lu] " time, the boot's initcall line first
  console,  ///< the host's console as it prints: the driver's lines alone, no times (U-Boot, EDK2, OpenBSD, ...)
  msgbuf,   ///< FreeBSD's message buffer with kern.msgbuf_show_timestamp=2: "[%jd.%06ld] " uptime before each line
  spdk_log, ///< SPDK's log: "[%Y-%m-%d %H:%M:%S.%06d] " before each line (the model's clock from the epoch)
};

/// What the loader and the outputs know of a driver without making one (pure C++): its
/// `host.driver` spelling, the workloads it has a sequence for (a space-separated list of
/// workload names, "probe" first), and how it logs. Its PlatformPolicy agrees with `workloads`
/// (tests/test_hosts.cpp checks every driver).
struct DriverTraits {
  const char* name;
  const char* workloads;
  LogFormat log;
  /// The releases `host.release` selects, space-separated, the default first; "" when the driver
  /// has no choice of them (Linux's release is host.kernel).
  const char* releases;
  /// True when `workload` ("shutdown") is one of `workloads`.
  bool runs(const std::string& workload) const {
    const std::string list = std::string(" ") + workloads + " ";
    return !workload.empty() && list.find(" " + workload + " ") != std::string::npos;
  }
};

/// X(NAME, ID, WORKLOADS, LOG, RELEASES): `host.driver` spelling NAME, factory make_ID, the
/// workloads it runs, its LogFormat and its releases, in the order messages list them.
#define NVMESIM_HOST_DRIVERS(X)                                                         \
  X("linux", linux_driver, "probe shutdown reset reboot", LogFormat::printk, "")        \
  X("uboot", uboot_driver, "probe", LogFormat::console, "")                             \
  X("freebsd", freebsd_driver, "probe", LogFormat::msgbuf, "13.1+ older")               \
  X("edk2", edk2_driver, "probe", LogFormat::console, "")                               \
  X("spdk", spdk_driver, "probe shutdown reboot", LogFormat::spdk_log, "18.01+ 17.x")   \
  X("openbsd", openbsd_driver, "probe shutdown reboot", LogFormat::console, "")        \
  X("seabios", seabios_driver, "probe", LogFormat::console, "")                         \
  X("qemu-userspace", qemu_userspace_driver, "probe", LogFormat::console, "")           \
  X("openvmm", openvmm_driver, "probe", LogFormat::console, "new old")                  \
  X("nvmewin", nvmewin_driver, "probe", LogFormat::console, "")

/// The factories, each defined in its driver's .cpp: a driver for the function `host` runs.
#define NVMESIM_DECLARE_DRIVER_FACTORY(NAME, ID, WORKLOADS, LOG, RELEASES) \
  std::unique_ptr<HostDriver> make_##ID(nvme_host& host);
NVMESIM_HOST_DRIVERS(NVMESIM_DECLARE_DRIVER_FACTORY)
#undef NVMESIM_DECLARE_DRIVER_FACTORY

/// The known names ("linux", "uboot", ..., "nvmewin"), in the list's order.
inline const std::vector<std::string>& host_driver_names() {
#define NVMESIM_DRIVER_NAME(NAME, ID, WORKLOADS, LOG, RELEASES) NAME,
  static const std::vector<std::string> names{NVMESIM_HOST_DRIVERS(NVMESIM_DRIVER_NAME)};
#undef NVMESIM_DRIVER_NAME
  return names;
}

/// The same as JsonNode::choice options (name -> name): an unknown `host.driver` is an error
/// listing every known name.
inline std::vector<std::pair<std::string, std::string>> host_driver_choices() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& n : host_driver_names()) out.emplace_back(n, n);
  return out;
}

/// "unknown host driver "NAME"; known: "linux", ...".
inline std::string unknown_driver_text(const std::string& name) {
  std::string known;
  for (const auto& n : host_driver_names()) known += (known.empty() ? "\"" : ", \"") + n + "\"";
  return "unknown host driver \"" + name + "\"; known: " + known;
}

/// Every driver's traits, in the list's order.
inline const std::vector<DriverTraits>& host_driver_traits() {
#define NVMESIM_DRIVER_TRAITS(NAME, ID, WORKLOADS, LOG, RELEASES) DriverTraits{NAME, WORKLOADS, LOG, RELEASES},
  static const std::vector<DriverTraits> traits{NVMESIM_HOST_DRIVERS(NVMESIM_DRIVER_TRAITS)};
#undef NVMESIM_DRIVER_TRAITS
  return traits;
}

/// The traits of driver `name`. Throws std::invalid_argument naming the known drivers when
/// `name` is not one.
inline const DriverTraits& driver_traits(const std::string& name) {
  for (const DriverTraits& t : host_driver_traits())
    if (name == t.name) return t;
  throw std::invalid_argument(unknown_driver_text(name));
}

/// A new driver `name` for the function `host` runs. Throws std::invalid_argument naming the
/// known drivers when `name` is not one (the scenario loader has checked it already).
std::unique_ptr<HostDriver> make_driver(const std::string& name, nvme_host& host);

}  // namespace nvmesim
