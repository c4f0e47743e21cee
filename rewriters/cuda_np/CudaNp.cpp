// np: CUDA-NP (cuda-np.md sections 2-3). Turns a parallel loop of a kernel
// (a `#pragma np parallel for` loop, or one the analysis judged parallel: then
// the inferred pragma is recorded in a comment of the same edit) into a loop
// spread over the master thread and S-1 slave threads, inter-warp (slaves
// along a new y dimension) or intra-warp (slaves are neighbouring lanes). The
// planner's phases are in NpPlanner.h; the design in docs/rewrites-loops.md.
#include "NpPlan.h"
#include "nestor/Inference.h"

using namespace clang;

namespace nestor {
namespace {
const std::vector<std::string> kSlaves = {"2", "4", "8", "16", "32"};

class NpImpl final : public Rewrite {
public:
  const char *id() const override { return "np"; }
  /// CUDA-NP targets loops whose trip count is the block's; on irregular
  /// loops sub-warp and CTE come first. Its slaves run along y (inter-warp)
  /// or in the master's warp (intra-warp).
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false,
                               {{{"np"}, 0, 2}},
                               {{"y", "slaves", {{"np_type", "inter"}}}, {"lanes", "slaves", {{"np_type", "intra"}}}}};
    return i;
  }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Loop; }
  const char *summary() const override {
    return "CUDA-NP: spread a parallel loop over a master thread and its slave threads";
  }
  std::vector<ParamSpec> params() const override {
    return {{"slaves", kSlaves, "", "threads per original thread (master + slaves); default: the pragma's num_threads, else 4"},
            {"np_type", {"inter", "intra"}, "", "inter-warp (slaves along y) or intra-warp (slaves in the warp); default: the pragma's, else inter"}};
  }
  std::vector<RewriteParams> variants() const override {
    std::vector<RewriteParams> v;
    for (const char *type : {"inter", "intra"})
      for (const std::string &s : kSlaves) v.push_back({{"slaves", s}, {"np_type", type}});
    return v;
  }
  /// The pragma's clauses where it gives them (CUDA-NP's num_threads and
  /// np_type), else 4 slaves inter-warp: the value config() uses when the
  /// parameter is left empty.
  std::optional<std::string> preferredValue(const ParamSpec &spec, const FileModel &m,
                                            const RewriteTarget &t) const override {
    if (t.kind != RewriteTarget::Kind::Loop || t.id < 0 || size_t(t.id) >= m.loops.size()) return Rewrite::preferredValue(spec, m, t);
    const LoopSite &loop = m.loops[size_t(t.id)];
    const NpPragma *pragma = loop.pragma >= 0 && size_t(loop.pragma) < m.pragmas.size() ? &m.pragmas[size_t(loop.pragma)] : nullptr;
    if (spec.name == "slaves") return pragma && pragma->numThreads ? std::to_string(*pragma->numThreads) : "4";
    if (spec.name == "np_type") return pragma && pragma->npType == NpType::Intra ? "intra" : "inter";
    return Rewrite::preferredValue(spec, m, t);
  }
  std::string title(const RewriteParams &p) const override {
    auto s = p.count("slaves") && !p.at("slaves").empty() ? p.at("slaves") : std::string("4");
    bool intra = p.count("np_type") && p.at("np_type") == "intra";
    return "CUDA-NP: " + s + " slaves, " + (intra ? "intra-warp" : "inter-warp");
  }

  loops::NpConfig config(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &p) const {
    loops::NpConfig c;
    const NpPragma *pragma = nullptr;
    if (t.id >= 0 && size_t(t.id) < tu.model().loops.size()) {
      const LoopSite &l = tu.model().loops[size_t(t.id)];
      if (l.pragma >= 0) pragma = &tu.model().pragmas[size_t(l.pragma)];
    }
    std::string s = p.count("slaves") ? p.at("slaves") : "";
    if (s.empty()) s = pragma && pragma->numThreads ? std::to_string(*pragma->numThreads) : "4";
    c.slaves = unsigned(std::stoul(s));
    std::string type = p.count("np_type") ? p.at("np_type") : "";
    if (type.empty()) type = pragma && pragma->npType == NpType::Intra ? "intra" : "inter";
    c.intra = type == "intra";
    c.label = "CUDA-NP: " + std::to_string(c.slaves) + " slaves, " + (c.intra ? "intra-warp" : "inter-warp");
    return c;
  }

  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &p) const override {
    const FileModel &m = tu.model();
    if (t.kind != RewriteTarget::Kind::Loop || t.id < 0 || size_t(t.id) >= m.loops.size())
      return Applicability::no("no loop at this position");
    const LoopSite &l = m.loops[size_t(t.id)];
    if (auto why = distributionRefusal(m, l)) return Applicability::no(why->reason, why->span);
    if (l.pragma >= 0) {
      const NpPragma &pr = m.pragmas[size_t(l.pragma)];
      if (!pr.valid()) return Applicability::no("the #pragma np has errors: " + pr.errors.front().message, pr.errors.front().span);
      if (pr.numThreads && std::find(kSlaves.begin(), kSlaves.end(), std::to_string(*pr.numThreads)) == kSlaves.end() &&
          (!p.count("slaves") || p.at("slaves").empty()))
        return Applicability::no("num_threads(" + std::to_string(*pr.numThreads) + ") is not 2, 4, 8, 16 or 32", pr.span);
    } else if (!isNpCandidate(l)) {
      if (auto blocker = npCandidateBlocker(l)) return Applicability::no(blocker->first, blocker->second);
      return Applicability::no("the loop has no #pragma np parallel for and the analysis did not find it parallel", l.headerSpan);
    }
    loops::NpPlan plan = loops::planNp(tu, t, config(tu, t, p));
    if (!plan.ok) return Applicability::no(plan.reason, plan.blocker);
    return Applicability::yes(plan.note);
  }

  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    loops::NpPlan plan = loops::planNp(tu, t, config(tu, t, p));
    if (!plan.ok) return llvm::createStringError("np: %s", plan.reason.c_str());
    // Launches in other files must change too: the analysed file's edits
    // alone would launch the rewritten kernel with its old block.
    if (!plan.otherFiles.empty())
      return llvm::createStringError("np: the kernel is launched from %s too; its launches there change with it "
                                     "(apply it to the project: applyAcrossFiles)",
                                     plan.otherFiles.begin()->first.c_str());
    return plan.edits;
  }
  llvm::Expected<FileReplacements> applyAcrossFiles(const AnalyzedTU &tu, const RewriteTarget &t,
                                                    const RewriteParams &p) const override {
    loops::NpPlan plan = loops::planNp(tu, t, config(tu, t, p));
    if (!plan.ok) return llvm::createStringError("np: %s", plan.reason.c_str());
    FileReplacements out = std::move(plan.otherFiles);
    out[tu.mainFile()] = std::move(plan.edits);
    return out;
  }
};
} // namespace
const Rewrite &CudaNpRewrite() {
  static const NpImpl r;
  return r;
}
} // namespace nestor
