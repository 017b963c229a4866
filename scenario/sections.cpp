// The tables of the top level, `link` and `boot`, and the expansion of `controllers[]` by
// `count` (scenario/keys.hpp).
#include <cstdio>
#include <limits>
#include <string>

#include "host/registry.hpp"
#include "scenario/loader_parts.hpp"

namespace nvmesim::scenario_detail {

using ojson = nlohmann::ordered_json;
using Node = JsonNode;

namespace {

/// link.preset's spellings.
enum class LinkPreset { bare_metal, vm_emulated };
constexpr EnumName<LinkPreset> kLinkPresetNames[] = {{LinkPreset::bare_metal, "bare-metal"},
                                                     {LinkPreset::vm_emulated, "vm-emulated"}};

void set_preset(LinkParams& l, LinkPreset p) {
  // A guest with an emulated NVMe device: every MMIO access exits to the VMM, so a CSTS read
  // takes 5-6 us round trip (nvme-registers.md, measured values) and a write stalls as long.
  // Explicit keys beside the preset override its values (they come later in the table).
  if (p == LinkPreset::vm_emulated) {
    l.one_way = Distribution::uniform(2'500'000, 2'950'000);
    l.write_stall = Distribution::uniform(5'000'000, 6'000'000);
  }
}

void read_width(const Node& w, LinkParams& l) {
  // One message for every value refused, naming the widths allowed (a number outside 1-32, a
  // fraction, a string: the same list).
  const auto& j = w.json();
  const int64_t v = j.is_number_unsigned() && j.get<uint64_t>() <= 32 ? j.get<int64_t>() : 0;
  if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16 && v != 32)
    w.fail(std::string("must be 1, 2, 4, 8, 16 or 32 lanes, not ") +
           (j.is_number() ? j.dump() : j.is_null() ? std::string("null") : std::string("a ") + j.type_name()));
  l.width = static_cast<int>(v);
}

// The entries of controllers[], each expanded by its count into controllers nvme0, nvme1, ...
void read_controllers(const Node& cs, Variant& v) {
  if (cs.array().empty()) cs.fail("needs at least one controller");
  uint32_t total = 0;
  for (size_t i = 0; i < cs.json().size(); ++i) {
    ControllerEntry c;
    apply_defaults(controller_section(), c);
    read_section(cs.at(i), controller_section(), c);
    const uint32_t count = c.count;
    if (total + count > kMaxControllers)
      cs.at(i).fail("too many controllers: at most " + std::to_string(kMaxControllers) + " in all");
    for (uint32_t k = 0; k < count; ++k) {
      ControllerParams copy = c;
      const uint32_t index = total + k;
      if (copy.label.empty()) copy.label = "nvme" + std::to_string(index);
      if (!cs.at(i).has("pci_address") || count > 1) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0000:%02x:00.0", (4 + index) & 0xFF);
        if (!cs.at(i).has("pci_address")) copy.pci_address = buf;
        else if (k > 0) copy.pci_address = c.pci_address + "+" + std::to_string(k);
      }
      v.controllers.push_back(std::move(copy));
    }
    total += count;
  }
}

// The drivers that are a platform's firmware: a chain that starts with one of them models the
// hand-off that controllers[].handoff stands in for.
bool is_firmware(const std::string& driver) { return driver == "edk2" || driver == "seabios" || driver == "uboot"; }

// boot.chain: each stage is a `host` object (the same table, so the same checks) read over the
// `host` section's typed values, plus its own keys `gap` and `entry`. The variant's host becomes
// the last stage's (the OS's).
void read_chain(const Node& n, Document& d) {
  const ojson& a = n.array();
  if (a.empty()) n.fail("needs at least one stage; leave boot.chain out for a boot without one");
  if (a.size() > 16) n.fail("at most 16 stages");
  std::vector<BootStage> chain;
  for (size_t i = 0; i < a.size(); ++i) {
    const Node st = n.at(i);
    if (!st.json().is_object()) st.fail("must be an object: a host section with \"gap\" and \"entry\"");
    // The host keys and the stage's own: an unknown key is refused with all of them listed.
    std::vector<std::string> allowed = host_section().names();
    allowed.insert(allowed.end(), {"gap", "entry"});
    st.require_object(allowed);
    BootStage stage;
    stage.host = d.variant.host;
    ojson keys = st.json();
    if (st.has("gap")) stage.gap = read_distribution(st.at("gap"));
    if (st.has("entry")) stage.entry = st.at("entry").choice(kStageEntryNames);
    keys.erase("gap");
    keys.erase("entry");
    const Node host_keys(keys, st.source(), st.ptr());
    // The table's finish checks the keys against the stage's driver and gives a stage that names
    // no release its driver's first one (host's release belongs to host's driver).
    read_section(host_keys, host_section(), stage.host);
    if (!host_keys.has("release") && stage.host.driver == d.variant.host.driver)
      stage.host.driver_release = d.variant.host.driver_release;
    // Likewise FreeBSD's kern.hz: the table's finish gives a freebsd section without "hz" 1000,
    // which for a stage must be host's value when host is freebsd too (the rule: a key the stage
    // leaves out has host's value).
    if (!host_keys.has("hz") && stage.host.driver == d.variant.host.driver) stage.host.timers.hz = d.variant.host.timers.hz;
    // What a chain can mean: firmware first, then one OS (or a userspace driver after the OS lets
    // the controller go). A firmware after an OS is a reboot (workload "reboot"); an OS that
    // probes while the one before still holds the controller releases nothing; kexec starts a
    // Linux kernel, so its stage is Linux; unbind hands the function to another driver, not to
    // firmware.
    if (i > 0) {
      const std::string& before = chain.back().host.driver;
      const std::string& here = stage.host.driver;
      if (is_firmware(here) && !is_firmware(before))
        st.fail("host.driver \"" + here + "\" is firmware, which runs before the OS (\"" + before +
                "\" here): put it first, or model a reboot with workload \"reboot\"");
      if (!is_firmware(before) && stage.entry == StageEntry::probe)
        st.fail("\"" + here + "\" would probe a controller that the stage before (\"" + before +
                "\") still holds: give it entry \"kexec\" (a Linux kernel after Linux) or \"unbind\" (a driver "
                "taking the function from Linux)");
      if (stage.entry == StageEntry::kexec && here != "linux")
        st.at("entry").fail("kexec starts a Linux kernel; this stage is host.driver \"" + here +
                            "\": use \"unbind\" for a driver that takes the function over");
      if (stage.entry == StageEntry::unbind && is_firmware(here))
        st.at("entry").fail("unbind hands the function to another driver of the running OS, not to firmware \"" + here + "\"");
    }
    if (stage.entry != StageEntry::probe) {
      const char* what = stage.entry == StageEntry::kexec ? "kexec" : "unbind";
      if (i == 0)
        st.at("entry").fail(std::string("\"") + what +
                            "\" releases the controllers from the stage before, and the first stage has none; use "
                            "\"probe\" (the default) or add the Linux stage that releases them");
      if (chain.back().host.driver != "linux")
        st.at("entry").fail(std::string("\"") + what + "\" is Linux's release (device_shutdown / the remove path); the "
                            "stage before is host.driver \"" + chain.back().host.driver +
                            "\": make it \"linux\" or use entry \"probe\"");
    }
    chain.push_back(std::move(stage));
  }
  d.variant.chain = std::move(chain);
  d.variant.host = d.variant.chain.back().host;
}

const Section<Document>& boot_section() {
  using K = Keys<Document>;
  static const Section<Document> s(
      "boot", "The boot the trials belong to.",
      {used_by(K::number("probe_start_s", 0, 1e6, dflt("0"), "s",
                         "the kernel clock at driver init: where dmesg lines (`--dmesg`, the timeline) start "
                         "(printk times: the other drivers print none)",
                         [](Document& d, double v) { d.variant.probe_start_s = v; }),
               {"linux"}),
       K::row("chain", "array of objects: a `host` section plus `gap` (duration or distribution, default 0) and "
                       "`entry` (`\"probe\"`, `\"kexec\"` or `\"unbind\"`, default `\"probe\"`)",
              Default{}, "",
              "the boot chain: stages run in order in one trial on the same controller state (firmware, then "
              "the OS; kexec; SPDK taking over from Linux). A stage's host keys default to `host`'s; the "
              "workload runs on the last stage (docs/hosts.md, \"Boot chain\")",
              read_chain)});
  return s;
}

Document& whole(Document& d) { return d; }

// What host.driver cannot do is an error at load time, not at run time: a workload it has no
// sequence for (at /workload), a `boot` key it does not use.
void check_driver_fits(const Node& root, Document& d) {
  const std::string& driver = d.variant.host.driver;
  const DriverTraits& t = driver_traits(driver);
  const std::string workload = key_in(kWorkloadNames, d.variant.workload);
  if (!t.runs(workload)) {
    std::string others;
    for (const DriverTraits& o : host_driver_traits())
      if (o.runs(workload)) others += (others.empty() ? "\"" : ", \"") + std::string(o.name) + "\"";
    root.at("workload").fail(std::string(d.variant.chain.empty() ? "" : "the boot chain's last stage: ") + "host.driver \"" + driver + "\" has no " + workload + " sequence (it runs: " +
                             t.workloads + "); the drivers that run it: " + (others.empty() ? "none" : others));
  }
  if (root.has("boot")) check_used_by(root.at("boot"), boot_section(), driver);
  if (d.variant.chain.empty()) return;
  // controllers[].handoff stands in for a firmware stage that is not modelled: with a firmware
  // as the chain's first stage the firmware leaves the state itself, and the two would disagree.
  const std::string& first = d.variant.chain.front().host.driver;
  if (!is_firmware(first)) return;
  const Node cs = root.at("controllers");
  for (size_t i = 0; i < cs.json().size(); ++i)
    if (cs.at(i).has("handoff") && cs.at(i).at("handoff").json() == "enabled")
      cs.at(i).at("handoff").fail("the boot chain's first stage, host.driver \"" + first +
                                  "\", is the firmware that leaves the controller enabled; leave handoff out (or "
                                  "\"disabled\": the state before the firmware) or drop the firmware stage");
}

// The keys a variant may not change, and why.
constexpr const char* kPaired = "(variants share seed and trials to stay paired)";

}  // namespace

const Section<LinkParams>& link_section() {
  using K = Keys<LinkParams>;
  static const Section<LinkParams> s(
      "link", "The PCIe link between the root port and each controller.",
      {K::choice("preset", kLinkPresetNames, dflt("\"bare-metal\""),
                 "`vm-emulated`: a guest with an emulated device (about 5-6 us CSTS round trip, writes stall as "
                 "long); the keys below override the preset's values",
                 set_preset),
       K::integer("generation", 1, 5, dflt("3"), "",
                  "PCIe generation: TLP serialisation at 2.5/5 GT/s with 8b/10b, 8/16/32 GT/s with 128b/130b",
                  to(&LinkParams::generation)),
       K::row("width", "1, 2, 4, 8, 16 or 32", dflt("4"), "lanes", "link width", read_width),
       K::row("one_way", "duration or distribution", dflt("\"450ns\""), "",
              "per-direction latency of a TLP; a CSTS read round trip is about 2 x one_way plus serialisation and "
              "the controller's read cycles (~0.95 us by default)",
              [](const Node& n, LinkParams& l) { l.one_way = read_distribution(n); }),
       K::row("write_stall", "duration or distribution", dflt("\"0ns\""), "",
              "how long a posted write holds the host beyond leaving it (the vm-emulated preset sets it)",
              [](const Node& n, LinkParams& l) { l.write_stall = read_distribution(n); })});
  return s;
}

const Section<Document>& document_section() {
  using K = Keys<Document>;
  auto fixed = [](Key<Document> k) {
    k.fixed_in_variants = kPaired;
    return k;
  };
  static const Section<Document> s(
      "top level", "The keys of the file itself.",
      {[&] {
         Key<Document> k = fixed(K::row("schema", "`\"nvmesim.scenario/1\"`", Default{}, "", "the file's format",
                                        [](const Node& n, Document&) {
                                          if (n.str() != "nvmesim.scenario/1") n.fail("must be \"nvmesim.scenario/1\"");
                                        }));
         k.required = "needs \"schema\": \"nvmesim.scenario/1\"";
         return k;
       }(),
       K::row("name", "string, at most 256 bytes", dflt("\"\""), "", "shown in the table",
              [](const JsonNode& n, Document& d) { d.name = read_label(n); }),
       K::string("description", dflt("\"\""), "free text", to(&Document::description)),
       fixed(K::integer("seed", 0, std::numeric_limits<int64_t>::max(), dflt("1"), "",
                        "the seed of every random draw (`--seed` overrides; not both with `--set /seed`)", to(&Document::seed))),
       fixed(K::integer("trials", 1, static_cast<int64_t>(kMaxTrials), dflt("1"), "",
                        "trials per variant (`--trials` overrides; not both with `--set /trials`)", to(&Document::trials))),
       K::object("host", "object: `host`", "the host", host_section(),
                 +[](Document& d) -> HostParams& { return d.variant.host; },
                 [](const Node& n, HostParams&) {
                   if (n.json().is_null()) n.fail("must be an object");
                   return false;
                 }),
       K::object("link", "object: `link`", "the PCIe link", link_section(),
                 +[](Document& d) -> LinkParams& { return d.variant.link; }),
       [] {
         Key<Document> k = K::row("controllers", "array of objects: `controllers[]`", Default{}, "",
                                  "the controllers, at least one",
                                  [](const Node& n, Document& d) { read_controllers(n, d.variant); });
         k.required = "needs \"controllers\": a list with at least one controller";
         k.sub = &controller_section();
         k.sub_is_array = true;
         return k;
       }(),
       K::choice("workload", kWorkloadNames, dflt("\"probe\""),
                 "what the host does after the boot's probe (docs/behaviours.md)",
                 [](Document& d, Workload w) { d.variant.workload = w; }),
       K::object("boot", "object: `boot`", "the boot", boot_section(), whole),
       fixed(K::row("variants", "array of `{\"name\", \"patch\", \"set\"}`", Default{}, "",
                    "the variants to compare; the first is the baseline (see below)",
                    [](const Node& n, Document&) { (void)n.array(); }))},
      check_driver_fits);
  return s;
}

Document read_document(const Node& root) {
  Document d;
  apply_defaults(document_section(), d);
  read_section(root, document_section(), d);
  return d;
}

std::string read_label(const JsonNode& n) {
  std::string s = n.str();
  if (s.size() > kMaxLabelBytes)
    n.fail("is " + std::to_string(s.size()) + " bytes long (UTF-8); at most " + std::to_string(kMaxLabelBytes) +
           " are allowed");
  return s;
}

}  // namespace nvmesim::scenario_detail
