#pragma once
// The pieces of the scenario loader (scenario/loader.cpp) that live in files of their own: the
// key tables of each section (scenario/keys.hpp), the distributions, --set, the variant patches
// and the simulated-time budget. Internal to scenario/; the public interface is
// scenario/scenario.hpp.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_reader.hpp"
#include "scenario/keys.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim::scenario_detail {

/// One entry of `controllers[]`: a controller's parameters and how many copies of it (`count`).
struct ControllerEntry : ControllerParams {
  uint32_t count = 1;
};

/// What one scenario document says: the file, or the file with a variant's patch applied.
struct Document {
  std::string name;
  std::string description;
  uint64_t seed = 1;
  uint64_t trials = 1;
  Variant variant;  ///< host, link, controllers (expanded by count), workload, boot
};

/// The tables (scenario/host_keys.cpp, controller_keys.cpp, sections.cpp).
const Section<HostParams>& host_section();
const Section<LinkParams>& link_section();
const Section<ControllerEntry>& controller_section();
const Section<Document>& document_section();

/// Reads a scenario document by the top-level table: the defaults, then the keys of `root`.
Document read_document(const JsonNode& root);

/// "vvvv:dddd" in hex, in lower case (scenario/controller_keys.cpp).
std::string read_pci_id(const JsonNode& n);
/// A label (controllers[].name and pci_address, the scenario's and each variant's name): copied
/// into every controller of a `count`, every variant, or every trial line of the outputs, so at
/// most kMaxLabelBytes bytes of UTF-8, lest a file of a few KB ask for gigabytes (issue 16: a
/// 26 KB file with 4000-character controller names needed about 8 GB; 4 MB variant names made
/// 24 GB of JSON Lines). Throws InputError at `n` past it.
std::string read_label(const JsonNode& n);

/// A duration string ("1ms", a fixed value) or a distribution object {"dist": ...}
/// (scenario/distributions.cpp).
Distribution read_distribution(const JsonNode& n);

/// At most this many distinct table entries (empirical samples, quantile points, mixture
/// components) are read in one load of a scenario, over its document and every variant: 2^22,
/// above the ~2.8 M samples the 16 MiB file limit lets one document hold. A table a variant
/// inherits unchanged from the base document (or that repeats, value for value, a table of the
/// base at any place) is not read again: the variant shares the base's immutable copy
/// (Distribution's shared table) and it counts once. A variant whose patch or "set" brings a table
/// of its own, or changes one entry of an inherited one, reads a new table, which counts (issue 16
/// item 8: 1000 variants over a 68 KB file took 17.4 GB). `count` copies of a controller always
/// share. Past it: InputError at the table being read.
inline constexpr uint64_t kMaxTableEntries = uint64_t{1} << 22;

/// At most this many entries of inherited (shared) tables over all variants of one load: each
/// variant copies the base document to apply its patch, and compares an inherited table with the
/// base's, so this bounds the time of a load (about 0.1-0.2 us per entry: 2^24 entries take 2-3 CPU
/// s), not its memory. Past it: InputError at the table, via the variant.
inline constexpr uint64_t kMaxInheritedTableEntries = uint64_t{1} << 24;

/// Counts the table entries read while it lives (one per load: load_unattributed), and keeps the
/// tables of the document given to share_from so that the variants share them. Nested scopes (a
/// sweep point validated inside a load) count and share apart; the outer state resumes after.
class TableEntryScope {
 public:
  TableEntryScope();
  ~TableEntryScope();
  TableEntryScope(const TableEntryScope&) = delete;
  TableEntryScope& operator=(const TableEntryScope&) = delete;
  /// From now on, a table read from a node of `doc` (the base document, at the node's pointer) is
  /// kept, and a later table whose JSON equals it (a variant's inherited copy) shares it instead of
  /// being read. `doc` must stay alive and unchanged while this scope reads distributions.
  void share_from(const nlohmann::ordered_json& doc);

  struct State;

 private:
  std::unique_ptr<State> state_;
  State* saved_;
};

/// The distributions' table for docs/scenario.md: one Markdown row per kind (distributions.cpp).
std::string distributions_markdown();

/// Applies the --set patches to `doc` (the file `source`), in order (scenario/set_patch.cpp), and
/// returns the pointer each one wrote: its own, or for an append ("/a/-") the index it took.
/// Throws InputError ("--set PTR: ...") for a pointer whose parent does not exist, an index
/// beyond the end of an array, or a value that cannot be set.
std::vector<std::string> apply_set_patches(nlohmann::ordered_json& doc, const std::vector<SetPatch>& sets,
                                           const std::string& source);

/// When `e` lies at or inside a location that one of `sets` wrote (`written`: what
/// apply_set_patches returned, or fewer when it stopped early), throws it again with
/// " (this value comes from --set PTR=VALUE)" added; otherwise returns.
void attribute_to_set(const InputError& e, const std::vector<SetPatch>& sets, const std::vector<std::string>& written,
                      const std::string& source);

/// The variants of `root` ("variants": [{"name", "patch"}]), each its patch merged over `base`
/// (the document without "variants") and read; errors inside a patch are reported at the patch
/// (scenario/variants.cpp). `trials` is the scenario's trial count (checked against
/// kMaxTotalTrials over all variants).
/// "set" ({"/json/pointer": value}) is applied after the patch; `warnings` gets what is
/// accepted but likely wrong (a patch's controllers[i] that leaves out keys the base sets).
std::vector<Variant> read_variants(const JsonNode& root, const nlohmann::ordered_json& base, uint64_t trials,
                                   std::vector<std::string>& warnings);

/// Refuses (InputError naming `root`'s file) a --set whose location every variant of `root`
/// overrides (by its patch or its "set"): it would change nothing. --set under /variants passes.
void check_sets_reach_a_variant(const JsonNode& root, const std::vector<SetPatch>& sets);
/// `doc`'s host.driver, or "linux" (the default driver, docs/hosts.md) when it names none or is
/// not a string (the key tables report that). `doc` may be any JSON value.
std::string host_driver_of(const nlohmann::ordered_json& doc);
/// Refuses (InputError naming `root`'s file and the option) a --set of a host key that no
/// boot.chain stage reads, in the document or, with variants, in every variant (each variant's
/// own chain; a variant that writes the location itself counts as not reading it): every stage
/// sets the key itself or its driver does not read it, so the option would change nothing.
/// `file_driver` is the file's host.driver before the options ("linux" when it gives none).
void check_sets_reach_a_stage(const JsonNode& root, const std::vector<SetPatch>& sets, const std::string& file_driver,
                              const std::string& label = "--set ");
/// Refuses (InputError at /host/KEY) a key of a variant-less document's `host` section that no
/// boot.chain stage reads (every stage sets it itself or its driver does not read it): it would
/// run as if never written (issue 13's leftover). With variants the base's host keys may serve
/// some variants only; each variant's own keys are checked by read_variants.
void check_host_keys_reach_a_stage(const JsonNode& root, const std::string& file_driver);

/// Refuses (InputError at /trials) a trial count whose simulated time must exceed
/// kMaxSimulatedPs (scenario/budget.cpp).
void check_simulated_time_budget(const Scenario& sc, const nlohmann::ordered_json& doc);
/// Throws InputError at /host/max_events_per_trial when a trial in which every probe succeeds
/// must pass that limit (a lower bound: the I/O queue pairs' doorbell writes; issue 16 item 7).
void check_operation_budget(const Scenario& sc, const nlohmann::ordered_json& doc);

}  // namespace nvmesim::scenario_detail
