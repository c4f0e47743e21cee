// rec-flat: the recursion of a kernel that launches itself once per child of
// a node (Recursion.h's shape) made iterative and flat
// (irregular-loop-and-recursion-templates.md II-C: "extract an iterative
// version ... parallelize [it] using thread-based mapping"), as a
// level-synchronous worklist over the tree's CSR arrays: no dynamic
// parallelism, so no -rdc / cudadevrt.
//
//   - the kernel is replaced by `K_nestor_level`, one thread per (frontier
//     node, child) pair: the child's pre-order statements, then its recursion
//     condition, pushing the child to the next frontier when it recurses;
//   - `K_nestor_flat(params...)`, a host function with the kernel's
//     parameters, runs the levels (nestor::rec::level_worklist in
//     runtime/include/nestor/rec.cuh: child counts, a scan, the pairs), then,
//     with a post-order kernel, replays it for every frontier node, deepest
//     level first (the order CDP2's tail launches give);
//   - every host launch of the kernel becomes a call of K_nestor_flat.
//
// Refused, besides the shapes Recursion.h refuses: a self-launch that changes
// any parameter but the node (the worklist holds nodes only), launches on a
// named stream, host launches before the kernel's definition.
#include "../dp_common/DpCommon.h"
#include "nestor/Papers.h"
#include "nestor/EditSet.h"
#include "../rec_common/RecCommon.h"

#include "nestor/AstText.h"

#include "clang/AST/ExprCXX.h"

namespace nestor {
namespace {

class RecFlatImpl final : public Rewrite {
public:
  const char *id() const override { return "rec-flat"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"recursion-levels"}}};
    return i;
  }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Launch; }
  const char *summary() const override {
    return "iterative flat recursion: a level-synchronous worklist over the tree's CSR arrays, one thread per "
           "(node, child) pair; removes dynamic parallelism (no -rdc)";
  }
  std::string title(const RewriteParams &) const override {
    return "Remove the recursion's device launches (no CDP needed): level-synchronous worklist (rec-flat)";
  }
  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &) const override {
    rec::RecTarget r;
    return check(tu, t, r);
  }
  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &) const override {
    rec::RecTarget r;
    Applicability a = check(tu, t, r);
    if (!a.applies) return llvm::createStringError("rec-flat: %s", a.reason.c_str());
    const clang::ASTContext &ctx = tu.astContext();
    const RecursionShape &s = r.match.shape;
    const std::string k = r.kernel->name, child = s.childVar, node = s.nodeParam;
    const std::string off = s.offsets, kids = s.children;
    const std::string nodeType = r.match.node->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
    const bool post = r.match.postKernel != nullptr;
    // The slot of the thread's (frontier node, child) pair in the children array.
    const std::string slot = off + "[" + node + "] + (nestor_p - nestor_first[nestor_f])";
    // The level kernels take the parameters but the node, which they read from the frontier.
    std::vector<std::string> fixedDecls, fixedNames;
    for (size_t i = 0; i < r.paramNames.size(); ++i)
      if (r.paramNames[i] != node) fixedDecls.push_back(r.paramDecls[i]), fixedNames.push_back(r.paramNames[i]);
    std::string out = rec::edgeFunctions(tu, r, false);
    out += "// One level of " + k + "'s recursion without dynamic parallelism (rec-flat,\n"
           "// " + papers::kTemplates + ", II-C): one thread per (frontier node, child) pair; a child that recursed\n"
           "// in the original joins the next frontier.\n"
           "__global__ void " + k + "_nestor_level(" +
           rec::callArgs(fixedDecls, "const " + nodeType + " *nestor_frontier, const unsigned *nestor_first, unsigned nestor_nodes,\n"
                                     "    unsigned nestor_pairs, " + nodeType + " *nestor_next, unsigned *nestor_next_count") + ") {\n"
           "  for (unsigned nestor_p = blockIdx.x * blockDim.x + threadIdx.x; nestor_p < nestor_pairs;\n"
           "       nestor_p += gridDim.x * blockDim.x) {\n"
           "    const unsigned nestor_f = nestor::rec::owner(nestor_first, nestor_nodes, nestor_p);\n"
           "    const " + nodeType + " " + node + " = nestor_frontier[nestor_f];\n"
           "    const " + r.childType + " " + child + " = " + kids + "[" + slot + "];\n"
           "    if (" + k + "_nestor_visit(" + rec::childArgs(r, r.paramNames, child, slot, node) + "))\n"
           "      nestor::rec::push(nestor_next, nestor_next_count, static_cast<" + nodeType + ">(" + child + "));\n  }\n}\n\n";
    if (post)
      out += "// The post-order combination of one level's nodes, after every deeper level.\n"
             "__global__ void " + k + "_nestor_post_level(" +
             rec::callArgs(fixedDecls, "const " + nodeType + " *nestor_frontier, unsigned nestor_nodes") + ") {\n"
             "  for (unsigned nestor_i = blockIdx.x * blockDim.x + threadIdx.x; nestor_i < nestor_nodes;\n"
             "       nestor_i += gridDim.x * blockDim.x) {\n"
             "    const " + nodeType + " " + node + " = nestor_frontier[nestor_i];\n"
             "    " + k + "_nestor_post(" + rec::callArgs(r.paramNames) + ");\n  }\n}\n\n";
    const std::string wl = "nestor_wl";
    out += "// " + k + "'s recursion from " + node + ", level by level, on the host's default stream (replaces its\n"
           "// launches; no CDP needed).\nstatic void " + k + "_nestor_flat(" + rec::callArgs(r.paramDecls) + ") {\n"
           "  nestor::rec::level_worklist<" + nodeType + "> " + wl + "(" + node + ");\n"
           "  while (" + wl + ".expand(" + off + ")) {\n"
           "    " + k + "_nestor_level<<<" + wl + ".blocks(), " + wl + ".block_size>>>(" +
           rec::callArgs(fixedNames, wl + ".frontier(), " + wl + ".first(), " + wl + ".nodes(), " + wl + ".pairs(),\n        " + wl +
                                         ".next(), " + wl + ".next_count()") + ");\n"
           "    " + wl + ".advance();\n  }\n";
    if (post)
      out += "  for (size_t nestor_l = " + wl + ".levels(); nestor_l-- > 0;)\n"
             "    " + k + "_nestor_post_level<<<" + wl + ".blocks_for(" + wl + ".level_size(nestor_l)), " + wl + ".block_size>>>(\n"
             "        " + rec::callArgs(fixedNames, wl + ".level_nodes(nestor_l), " + wl + ".level_size(nestor_l)") + ");\n";
    out += "}";
    EditSet reps(tu);
    reps.add(r.defBegin, r.defEnd, out);
    // Host launches: the same arguments, to the host function.
    for (int id : r.kernel->recursion->hostLaunches) {
      const LaunchSite &l = tu.model().launches[size_t(id)];
      std::string call = k + "_nestor_flat(" + rec::callArgs(l.args) + ")";
      reps.add(l.span.begin.offset, l.span.end.offset, call);
    }
    rec::addRecInclude(tu, reps, r.defBegin);
    return reps.replacements();
  }

private:
  static Applicability check(const AnalyzedTU &tu, const RewriteTarget &t, rec::RecTarget &r) {
    Applicability a = rec::locateRecursion(tu, t, r);
    if (!a.applies) return a;
    const RecursionShape &s = r.match.shape;
    if (!s.varyingParams.empty()) {
      SourceSpan at = spanOf(r.match.selfCall, tu.astContext());
      return Applicability::no("the self-launch changes a parameter besides the node (" + s.varyingParams.front() + ", line " +
                                   std::to_string(at.begin.line) + "): rec-flat's worklist holds nodes only",
                               at);
    }
    const std::vector<int> &hosts = r.kernel->recursion->hostLaunches;
    if (hosts.empty())
      return Applicability::no("no host launch of " + r.kernel->name + " in this file: rec-flat replaces those", r.kernel->nameSpan);
    for (int id : hosts) {
      const LaunchSite &l = tu.model().launches[size_t(id)];
      if (!l.stream.empty() && l.stream != "0")
        return Applicability::no("the host launch at line " + std::to_string(l.span.begin.line) + " names a stream (" + l.stream +
                                     "): rec-flat runs on the default stream",
                                 l.span);
      if (l.span.begin.offset < r.defEnd)
        return Applicability::no("the host launch at line " + std::to_string(l.span.begin.line) + " comes before " +
                                     r.kernel->name + "'s definition, where its host function goes",
                                 l.span);
      const clang::CUDAKernelCallExpr *call = tu.launchExpr(l.id);
      if (!call || call->getBeginLoc().isMacroID() || call->getEndLoc().isMacroID())
        return Applicability::no("the host launch at line " + std::to_string(l.span.begin.line) + " is written inside a macro", l.span);
    }
    return Applicability::yes("removes the recursion's dynamic parallelism: the kernel becomes a host function "
                              "with the same parameters");
  }
};

} // namespace

const Rewrite &RecFlatRewrite() {
  static const RecFlatImpl r;
  return r;
}
} // namespace nestor
