// cte: Collaborative Task Engagement (collaborative-task-engagement.md III).
// `for (i = begin; i < end; ++i) { v = f(i); acc = acc OP v; }` (or
// `acc OP= f(i)`) with an irregular trip count and an associative OP becomes
//   acc = nestor::cte::for_each_index<BlockDim, Mode>(begin, end,
//           [=](T i, descriptors...) { return f(i); }, OP{}, acc, descriptors...);
// The launch is unchanged. Thread-private values f reads are passed as task
// descriptors (the runtime hands map the owning thread's copies).
#include "../loop_common/LoopCommon.h"
#include "nestor/Papers.h"
#include "nestor/EditSet.h"

#include "nestor/AstText.h"
#include "nestor/CudaSemantics.h"
#include "clang/AST/Expr.h"
#include "nestor/Inference.h"
#include "nestor/StatementEffects.h"

namespace nestor {
namespace {
class CteImpl final : public Rewrite {
public:
  const char *id() const override { return "cte"; }
  /// CTE's workload is irregular inner loops: first after sub-warp there.
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {{{"cte"}, 2, 1}}, {{"warp-tasks"}}};
    return i;
  }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Loop; }
  const char *summary() const override {
    return "Collaborative Task Engagement: the warp shares the fine tasks of an irregular reduction loop";
  }
  std::vector<ParamSpec> params() const override {
    return {{"mode", {"auto", "scanned", "disjoint"}, "auto",
             "scanned: consecutive threads own consecutive ranges (CSR rows); disjoint: any ranges; auto: scanned for "
             "begin = p[r], end = p[r + 1]"}};
  }
  std::vector<RewriteParams> variants() const override { return {RewriteParams{}}; }
  std::string title(const RewriteParams &) const override { return "Rewrite loop with CTE"; }

  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &) const override {
    const FileModel &m = tu.model();
    if (t.kind != RewriteTarget::Kind::Loop || t.id < 0 || size_t(t.id) >= m.loops.size())
      return Applicability::no("no loop at this position");
    const LoopSite &l = m.loops[size_t(t.id)];
    if (!l.inDeviceCode) return Applicability::no("the loop is not in device code", l.headerSpan);
    if (auto why = distributionRefusal(m, l)) return Applicability::no(why->reason, why->span);
    if (l.tripCount != TripCountClass::Irregular)
      return Applicability::no(std::string("the loop's trip count is ") + spelling(l.tripCount) +
                                   ", not irregular: CTE balances per-thread task lengths",
                               l.headerSpan);
    if (l.gridStride) return Applicability::no("the loop is a grid-stride loop", l.headerSpan);
    if (!l.barriers.empty()) return Applicability::no("the loop contains a barrier", l.barriers.front());
    if (l.hasWarpIntrinsics) return Applicability::no("the loop uses warp-level intrinsics", l.bodySpan);
    std::string why;
    SourceSpan where;
    auto mr = loops::matchMapReduce(tu, l, why, where);
    if (!mr) return Applicability::no(why, where);
    // Each fine task runs on whichever lane of the warp takes it: what it
    // reads of threadIdx (directly, or in a function it calls) is that
    // lane's, not the owner's. blockIdx, blockDim and gridDim are the same
    // for every lane of a warp.
    for (const clang::Expr *part : mr->mappedParts) {
      if (!part) continue;
      if (effectsOf(part, tu.astContext()).threadIds.count("threadIdx"))
        return Applicability::no("the loop body reads threadIdx: CTE runs each task on another lane of the warp",
                                 spanOf(part, tu.astContext()));
      cuda::CalleeUseQuery q;
      q.builtin = [](llvm::StringRef n) { return n == "threadIdx"; };
      q.collectives = true;
      q.unknownBodies = true;
      if (auto use = cuda::calleeUse(part, q))
        return Applicability::no("the loop body calls " +
                                     (use->what.empty()         ? cuda::unseenCall(*use)
                                      : use->what == "threadIdx" ? "'" + use->callee + "', which reads threadIdx"
                                                                 : "'" + use->callee + "', which calls " + use->what) +
                                     ": CTE runs each task on another lane of the warp",
                                 spanOf(use->via, tu.astContext()));
    }
    return Applicability::yes();
  }

  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    const FileModel &m = tu.model();
    const LoopSite &l = m.loops[size_t(t.id)];
    std::string why;
    SourceSpan where;
    auto mr = loops::matchMapReduce(tu, l, why, where);
    if (!mr) return llvm::createStringError("cte: %s", why.c_str());
    std::string mode = p.count("mode") ? p.at("mode") : "auto";
    if (mode == "auto" || mode.empty()) mode = mr->csrLike ? "scanned" : "disjoint";
    // BlockDim: the launch block when every launch agrees, else the kernel's
    // __launch_bounds__, else 1024 (the runtime only range-checks it).
    unsigned blockDim = 1024;
    if (const Kernel *k = m.findKernel(l.function)) {
      std::optional<unsigned> common;
      bool agree = !k->launchedBy.empty();
      for (int id : k->launchedBy) {
        auto b = loops::constantBlock(tu, id);
        if (!b || (common && *common != b->threads())) { agree = false; break; }
        common = b->threads();
      }
      if (agree && common) blockDim = *common;
      else if (k->launchBoundsMaxThreadsValue) blockDim = unsigned(*k->launchBoundsMaxThreadsValue);
    }
    std::string params = mr->ivType + " " + mr->iv, args;
    for (auto &[name, type] : mr->descriptors) {
      params += ", " + type + " " + name;
      args += ", " + name;
    }
    std::string in = indentationAt(tu.mainFileText(), l.span.begin.offset);
    std::string out = "// Rewrite loop with CTE (" + papers::kCte + ", III-B): the warp expands its\n" + in +
                      "// threads' ranges into one list of fine tasks and reduces them per owner.\n" + in + mr->acc +
                      " = nestor::cte::for_each_index<" + std::to_string(blockDim) + ", nestor::cte::" + mode + ">(\n" +
                      in + "    " + mr->begin + ", " + mr->end + ",\n" + in + "    [=](" + params + ") { return " +
                      mr->mapped + "; },\n" + in + "    " + loops::opFunctor(mr->op) + "{}, " + mr->acc + args + ");";
    unsigned end = l.span.end.offset;
    llvm::StringRef text = tu.mainFileText();
    if (end > 0 && text[end - 1] != '}' && text[end - 1] != ';') {
      size_t i = end;
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
      if (i < text.size() && text[i] == ';') end = unsigned(i + 1);
    }
    EditSet reps(tu);
    unsigned begin = l.span.begin.offset;
    if (l.pragma >= 0) {
      const NpPragma &pr = m.pragmas[size_t(l.pragma)];
      reps.add(pr.span.begin.offset, pr.span.end.offset, "// (was: #pragma " + pr.text + ")");
    }
    reps.add(begin, end, out);
    auto inc = loops::includeReplacement(tu, "nestor/cte.cuh");
    reps.addInclude(inc);
    return reps.replacements();
  }
};
} // namespace
const Rewrite &CteRewrite() {
  static const CteImpl r;
  return r;
}
} // namespace nestor
