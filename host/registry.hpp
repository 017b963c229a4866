#pragma once
// The host drivers nvmesim knows: the one list, and make_driver. Pure C++ (no SystemC): the
// scenario loader takes the allowed values of `host.driver` from here. Adding a driver is one
// line in NVMESIM_HOST_DRIVERS plus its two files, host/NAME/NAME_driver.{hpp,cpp}, whose .cpp
// defines the factory make_ID (docs/architecture.md, "a new host driver").
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace nvmesim {

class HostDriver;
class nvme_host;

/// X(NAME, ID): `host.driver` spelling NAME, factory make_ID, in the order messages list them.
#define NVMESIM_HOST_DRIVERS(X) \
  X("linux", linux_driver)      \
  X("uboot", uboot_driver)      \
  X("freebsd", freebsd_driver)  \
  X("edk2", edk2_driver)

/// The factories, each defined in its driver's .cpp: a driver for the function `host` runs.
#define NVMESIM_DECLARE_DRIVER_FACTORY(NAME, ID) std::unique_ptr<HostDriver> make_##ID(nvme_host& host);
NVMESIM_HOST_DRIVERS(NVMESIM_DECLARE_DRIVER_FACTORY)
#undef NVMESIM_DECLARE_DRIVER_FACTORY

/// The known names ("linux", "uboot", "freebsd", "edk2"), in the list's order.
inline const std::vector<std::string>& host_driver_names() {
#define NVMESIM_DRIVER_NAME(NAME, ID) NAME,
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

/// A new driver `name` for the function `host` runs. Throws std::invalid_argument naming the
/// known drivers when `name` is not one (the scenario loader has checked it already).
std::unique_ptr<HostDriver> make_driver(const std::string& name, nvme_host& host);

}  // namespace nvmesim
