// np-local-array: a thread-local array used inside a parallel loop. CUDA-NP
// must make it visible to the slaves (cuda-np.md §3.3): partition it into
// registers when only the iterator indexes it, else shared memory when it fits
// the 384-byte policy, else global memory.
#include "RuleUtil.h"

namespace nestor {
namespace {
class NpLocalArray final : public Rule {
public:
  const char *id() const override { return "np-local-array"; }
  Severity defaultSeverity() const override { return Severity::Note; }
  const char *summary() const override {
    return "Thread-local array in a parallel loop lives in local memory: CUDA-NP will partition or move it";
  }
  const char *description() const override {
    return "Arrays private to a thread that are indexed dynamically are placed in local memory, which is "
           "slow. When the loop that uses them is spread over slave threads, the array must be shared: "
           "CUDA-NP partitions it into per-slave registers when only the loop iterator indexes it, moves it "
           "to shared memory when it is under 384 bytes (minus the kernel's own shared memory), and to "
           "global memory otherwise.";
  }
  void check(const AnalyzedTU &tu, std::vector<Finding> &out) const override {
    const FileModel &m = tu.model();
    for (const Kernel &k : m.kernels) {
      uint64_t sharedBytes = 0;
      for (const SharedDecl &s : k.shared) sharedBytes += s.sizeBytes;
      for (const LocalArray &a : k.localArrays) {
        bool inParallelLoop = false, onlyByIterator = true;
        for (int id : k.loops) {
          const LoopSite &l = m.loops[size_t(id)];
          bool uses = std::find(l.localArrays.begin(), l.localArrays.end(), a.name) != l.localArrays.end();
          if (!uses) continue;
          bool parallel = l.pragma >= 0 || rules::isNpCandidate(l);
          if (parallel) inParallelLoop = true;
          for (const ArrayAccess &acc : l.accesses)
            if (acc.array == a.name && acc.index != l.inductionVar) onlyByIterator = false;
        }
        if (!inParallelLoop) continue;
        std::string placement;
        if (onlyByIterator) placement = "partitioned into per-slave registers (only the loop iterator indexes it)";
        else if (a.sizeBytes + sharedBytes < 384) placement = "moved to shared memory (under the 384-byte policy)";
        else if (a.sizeBytes < 384)
          placement = "moved to global memory (" + std::to_string(a.sizeBytes) + " bytes plus the kernel's own " +
                      std::to_string(sharedBytes) + " bytes of shared memory exceed the 384-byte shared-memory policy)";
        else placement = "moved to global memory (" + std::to_string(a.sizeBytes) + " bytes exceed the 384-byte shared-memory policy)";
        Finding f = rules::makeFinding(*this, a.span,
                                       "thread-local array '" + a.name + "' (" + std::to_string(a.sizeBytes) +
                                           " bytes) is used in a parallel loop; under CUDA-NP it is " + placement);
        f.data["kernel"] = k.name;
        f.data["array"] = a.name;
        out.push_back(std::move(f));
      }
    }
  }
};
} // namespace
const Rule &NpLocalArrayRule() {
  static const NpLocalArray rule;
  return rule;
}
} // namespace nestor
