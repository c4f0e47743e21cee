// subwarp: sub-warp (virtual-warp) decomposition, the static scheme CTE is
// measured against (collaborative-task-engagement.md section II, Table I).
// Each original thread (task) gets a tile of W consecutive lanes: the kernel
// structure is that of intra-warp CUDA-NP with W "slaves" (rewriters/
// loop_common/), and the irregular map/reduce loop becomes a call of
// nestor::subwarp::for_each_index<W>. Host launches get W times the block.
#include "../cuda_np/NpPlan.h"
#include "../loop_common/LoopCommon.h"
#include "nestor/Inference.h"

namespace nestor {
namespace {
const std::vector<std::string> kWidths = {"2", "4", "8", "16", "32"};

class SubWarpImpl final : public Rewrite {
public:
  const char *id() const override { return "subwarp"; }
  /// Sub-warp decomposition's workload is irregular inner loops: first there.
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {{{"subwarp"}, 1, 0}}, {{"lanes", "width"}}};
    return i;
  }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Loop; }
  const char *summary() const override {
    return "Sub-warp decomposition: W lanes per task for an irregular reduction loop";
  }
  std::vector<ParamSpec> params() const override {
    return {{"width", kWidths, "8", "lanes per task (sub-warp width)"}};
  }
  std::vector<RewriteParams> variants() const override {
    std::vector<RewriteParams> v;
    for (const std::string &w : kWidths) v.push_back({{"width", w}});
    return v;
  }
  std::string title(const RewriteParams &p) const override {
    return "Sub-warp decomposition, width " + (p.count("width") ? p.at("width") : std::string("8"));
  }
  loops::NpConfig config(const RewriteParams &p) const {
    loops::NpConfig c;
    c.slaves = unsigned(std::stoul(p.count("width") && !p.at("width").empty() ? p.at("width") : "8"));
    c.intra = true;
    c.allPragmaLoops = false;
    c.form = loops::LoopForm::SubwarpForEach;
    c.requireIrregular = true;
    c.label = "Sub-warp decomposition, width " + std::to_string(c.slaves);
    return c;
  }
  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &p) const override {
    const FileModel &m = tu.model();
    if (t.kind != RewriteTarget::Kind::Loop || t.id < 0 || size_t(t.id) >= m.loops.size())
      return Applicability::no("no loop at this position");
    const LoopSite &l = m.loops[size_t(t.id)];
    if (!l.inKernel) return Applicability::no("the loop is not inside a __global__ kernel", l.headerSpan);
    if (auto why = distributionRefusal(m, l)) return Applicability::no(why->reason, why->span);
    if (l.tripCount != TripCountClass::Irregular)
      return Applicability::no(std::string("the loop's trip count is ") + spelling(l.tripCount) +
                                   ", not irregular: sub-warp decomposition targets per-thread task lengths",
                               l.headerSpan);
    std::string why;
    SourceSpan where;
    if (!loops::matchMapReduce(tu, l, why, where)) return Applicability::no(why, where);
    loops::NpPlan plan = loops::planNp(tu, t, config(p));
    if (!plan.ok) return Applicability::no(plan.reason, plan.blocker);
    return Applicability::yes(plan.note);
  }
  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    loops::NpPlan plan = loops::planNp(tu, t, config(p));
    if (!plan.ok) return llvm::createStringError("subwarp: %s", plan.reason.c_str());
    // Launches in other files must change too: the analysed file's edits
    // alone would launch the rewritten kernel with its old block.
    if (!plan.otherFiles.empty())
      return llvm::createStringError("subwarp: the kernel is launched from %s too; its launches there change with it "
                                     "(apply it to the project: applyAcrossFiles)",
                                     plan.otherFiles.begin()->first.c_str());
    return plan.edits;
  }
  llvm::Expected<FileReplacements> applyAcrossFiles(const AnalyzedTU &tu, const RewriteTarget &t,
                                                    const RewriteParams &p) const override {
    loops::NpPlan plan = loops::planNp(tu, t, config(p));
    if (!plan.ok) return llvm::createStringError("subwarp: %s", plan.reason.c_str());
    FileReplacements out = std::move(plan.otherFiles);
    out[tu.mainFile()] = std::move(plan.edits);
    return out;
  }
};
} // namespace
const Rewrite &SubWarpRewrite() {
  static const SubWarpImpl r;
  return r;
}
} // namespace nestor
