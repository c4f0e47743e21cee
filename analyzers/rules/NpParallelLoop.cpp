// np-parallel-loop: a loop inside a kernel whose iterations are independent
// (apart from reductions and scans) and whose trip count is the same for the
// threads of a block: CUDA-NP can spread it over slave threads (cuda-np.md §3).
#include "RuleUtil.h"
#include "nestor/Offers.h"

namespace nestor {
namespace {
class NpParallelLoop final : public Rule {
  static constexpr int64_t kRegisterBlockingTrips = 32;

public:
  const char *id() const override { return "np-parallel-loop"; }
  Severity defaultSeverity() const override { return Severity::Warning; }
  const char *summary() const override {
    return "Loop with independent iterations inside a kernel: mark it with #pragma np parallel for";
  }
  const char *description() const override {
    return "Each thread runs this loop sequentially although its iterations are independent (reductions "
           "and scans aside) and its trip count is uniform across the block. CUDA-NP (cuda-np.md) adds "
           "slave threads to each original thread and distributes the iterations over them, which raises "
           "thread-level parallelism when the kernel has few threads or heavy per-thread resources.";
  }
  void check(const AnalyzedTU &tu, std::vector<Finding> &out) const override {
    const FileModel &m = tu.model();
    for (const LoopSite &l : m.loops) {
      if (l.pragma >= 0 || !rules::isNpCandidate(l)) continue;
      if (l.tripCount == TripCountClass::Irregular || l.tripCount == TripCountClass::Unknown) continue;
      // `#pragma unroll` over a few iterations: register blocking, on purpose.
      if (l.unrollHint && l.tripCount == TripCountClass::Constant && l.constantTripCount &&
          *l.constantTripCount <= kRegisterBlockingTrips)
        continue;
      // Report the outermost candidate of a nest only.
      bool parentCandidate = false;
      for (int p = l.parentLoop; p >= 0; p = m.loops[size_t(p)].parentLoop)
        parentCandidate |= rules::isNpCandidate(m.loops[size_t(p)]) && m.loops[size_t(p)].tripCount != TripCountClass::Irregular;
      if (parentCandidate) continue;
      // The pragma is advice the engine stands behind: its own check agrees.
      // Where CUDA-NP itself refuses the kernel (a launch it cannot see or
      // reshape, a helper that reads threadIdx), the advice says so.
      std::string npRefusal;
      if (const OfferOracle *oracle = offerOracle()) {
        if (!(*oracle)(tu, "np-pragma", l.id).offered) continue;
        OfferAnswer np = (*oracle)(tu, "np", l.id);
        if (!np.offered && !np.reason.empty())
          npRefusal = " (CUDA-NP itself does not apply here yet: " + np.reason +
                      (np.where.valid() ? ", line " + std::to_string(np.where.begin.line) : std::string()) + ")";
      }
      NpPragma pragma = rules::inferredPragma(l);
      std::string trip = l.tripCount == TripCountClass::Constant && l.constantTripCount
                             ? "constant trip count " + std::to_string(*l.constantTripCount)
                             : "uniform trip count '" + l.upperBound + "'";
      Finding f = rules::makeFinding(*this, l.headerSpan,
                                     "loop over '" + l.inductionVar + "' (" + trip +
                                         ") has independent iterations: mark it for CUDA-NP with `" +
                                         pragma.canonical() + "`" + npRefusal);
      Fix fix;
      fix.title = "Insert " + pragma.canonical();
      TextEdit e;
      e.span = rules::lineStartSpan(l.span, tu.mainFileText());
      e.newText = rules::indentationAt(tu.mainFileText(), l.span.begin.offset) + pragma.canonical() + "\n";
      fix.edits.push_back(e);
      f.fix = fix;
      f.data["loop"] = std::to_string(l.id);
      f.data["function"] = l.function;
      f.data["pragma"] = pragma.canonical();
      out.push_back(std::move(f));
    }
  }
};
} // namespace
const Rule &NpParallelLoopRule() {
  static const NpParallelLoop rule;
  return rule;
}
} // namespace nestor
