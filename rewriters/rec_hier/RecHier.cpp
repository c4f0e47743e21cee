// rec-hier: the hierarchical recursion template of
// irregular-loop-and-recursion-templates.md II-C, Figure 3(e), on a kernel
// that launches itself once per child of a node (Recursion.h's shape).
//
// The kernel keeps its name and parameters (its launches stay as they are)
// and becomes block-mapped over the node's children: one block per child
// (block-stride, so any grid works) runs the child's pre-order statements in
// one thread, then looks at the grandchildren thread-mapped. When none of them
// recurses, the block does their pre-order statements itself and replays the
// post-order kernel for the child; otherwise one thread launches the kernel on
// the child (a grid of one block per grandchild), whose own tail launch
// combines the child after its subtree (CDP2). Launches happen at block level
// only: one per node with grandchildren, where the original launched one per
// node with children.
//
// Refused, besides the shapes Recursion.h refuses: a recursion condition that
// reads what the kernel writes (the block asks it of every grandchild before
// their pre-order statements ran).
#include "../rec_common/RecCommon.h"
#include "nestor/Papers.h"
#include "nestor/EditSet.h"

#include "nestor/AstText.h"

namespace nestor {
namespace {

class RecHierImpl final : public Rewrite {
public:
  const char *id() const override { return "rec-hier"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"recursion-block-per-child"}}};
    return i;
  }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Launch; }
  const char *summary() const override {
    return "hierarchical recursion: block-mapped over a node's children, thread-mapped over its grandchildren, "
           "launches at block level (one per node with grandchildren)";
  }
  std::string title(const RewriteParams &) const override {
    return "Recursion over children: block per child, threads over grandchildren (rec-hier)";
  }
  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &) const override {
    rec::RecTarget r;
    return check(tu, t, r);
  }
  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &) const override {
    rec::RecTarget r;
    Applicability a = check(tu, t, r);
    if (!a.applies) return llvm::createStringError("rec-hier: %s", a.reason.c_str());
    const RecursionShape &s = r.match.shape;
    const std::string k = r.kernel->name, child = s.childVar, node = s.nodeParam;
    const std::string off = s.offsets, kids = s.children;
    const std::vector<std::string> here = r.paramNames, next = rec::nextLevelArgs(tu, r);
    const bool post = r.match.postKernel != nullptr;
    // A <<<1, 1>>> original (one thread looping over the children) gets blocks of 128 below its root.
    const std::string block = r.match.serialLoop ? "128" : "blockDim.x";
    std::string out = rec::edgeFunctions(tu, r, true);
    out += "// " + k + " after rec-hier (" + papers::kTemplates + ", II-C, Figure 3(e)): one block per\n"
           "// child of " + node + ", threads over the child's children; the kernel is launched again, by one thread,\n"
           "// only for a child with grandchildren" + (post ? std::string(", and that launch's tail launch combines the child") : "") +
           ".\n__global__ void " + k + "(" + rec::callArgs(r.paramDecls) + ") {\n"
           "  __shared__ int nestor_recurse, nestor_deeper;\n";
    if (post)
      out += "  // After this grid and every grid below it (CDP2 tail launch), as in the original.\n"
             "  if (blockIdx.x == 0 && threadIdx.x == 0)\n    " + textOfPost(tu, r) + ";\n";
    out += "  for (" + r.slotType + " nestor_slot = " + off + "[" + node + "] + blockIdx.x; nestor_slot < " + off + "[" + node +
           " + 1];\n       nestor_slot += gridDim.x) {\n"
           "    const " + r.childType + " " + child + " = " + kids + "[nestor_slot];\n"
           "    if (threadIdx.x == 0) {\n"
           "      " + k + "_nestor_pre(" + rec::childArgs(r, here, child, "nestor_slot", node) + ");\n"
           "      nestor_recurse = " + k + "_nestor_recurses(" + rec::callArgs(here, child) + ");\n"
           "      nestor_deeper = 0;\n    }\n    __syncthreads();\n"
           "    if (nestor_recurse) {\n"
           "      // The child's children (thread-mapped): does any of them recurse?\n"
           "      for (" + r.slotType + " nestor_g = " + off + "[" + child + "] + threadIdx.x; nestor_g < " + off + "[" + child +
           " + 1]; nestor_g += blockDim.x)\n"
           "        if (" + k + "_nestor_recurses(" + rec::callArgs(next, kids + "[nestor_g]") + ")) nestor_deeper = 1;\n"
           "      __syncthreads();\n"
           "      if (nestor_deeper) {\n"
           "        // Recursion on the child, one block per grandchild, launched at block level.\n"
           "        if (threadIdx.x == 0)\n"
           "          " + k + "<<<" + off + "[" + child + " + 1] - " + off + "[" + child + "], " + block + ">>>(" + rec::callArgs(next) + ");\n"
           "      } else {\n"
           "        // Every grandchild is a leaf of the recursion: this block does them.\n"
           "        for (" + r.slotType + " nestor_g = " + off + "[" + child + "] + threadIdx.x; nestor_g < " + off + "[" + child +
           " + 1]; nestor_g += blockDim.x)\n"
           "          " + k + "_nestor_pre(" + rec::childArgs(r, next, kids + "[nestor_g]", "nestor_g", child) + ");\n";
    if (post)
      out += "        __syncthreads();\n"
             "        // The child's subtree is done: its post-order combination, in this block.\n"
             "        if (threadIdx.x == 0) " + k + "_nestor_post(" + rec::callArgs(next) + ");\n";
    out += "      }\n    }\n    __syncthreads(); // the flags are reused by the next child\n  }\n}";
    EditSet reps(tu);
    reps.add(r.defBegin, r.defEnd, out);
    return reps.replacements();
  }

private:
  /// The tail launch as written in the original.
  static std::string textOfPost(const AnalyzedTU &tu, const rec::RecTarget &r) { return textOf(r.match.postCall, tu.astContext()); }

  static Applicability check(const AnalyzedTU &tu, const RewriteTarget &t, rec::RecTarget &r) {
    Applicability a = rec::locateRecursion(tu, t, r);
    if (!a.applies) return a;
    if (r.match.launchInChildStatements) {
      SourceSpan at = spanOf(r.match.selfCall, tu.astContext());
      return Applicability::no("rec-hier asks every grandchild whether it recurses before its pre-order statements ran: " +
                                   r.match.conditionNotOnTree,
                               at);
    }
    if (!r.match.conditionOnTreeOnly) {
      SourceSpan at = spanOf(r.match.condition, tu.astContext());
      return Applicability::no("rec-hier asks every grandchild whether it recurses before its pre-order statements ran: " +
                                   r.match.conditionNotOnTree + " (line " + std::to_string(at.begin.line) + ")",
                               at);
    }
    return Applicability::yes("one launch per node with grandchildren");
  }
};

} // namespace

const Rewrite &RecHierRewrite() {
  static const RecHierImpl r;
  return r;
}
} // namespace nestor
