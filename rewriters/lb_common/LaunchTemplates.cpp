// Promotion of a device-side launch whose child grid covers an irregular
// loop's iterations (the thesis shape `child<<<deg/B+1, B>>>`) to no dynamic
// parallelism, with the dbuf-global or dual-queue template
// (irregular-loop-and-recursion-templates.md II-B; LaunchPromotion.h):
//
//   - `<child>_nestor_thread(params..., threadIdx, blockIdx, blockDim,
//     gridDim)`: the child's body with its identity as parameters;
//     `<child>_nestor_launch`: a delayed launch (arguments + configuration);
//     `<child>_nestor_drain`: the pass over a queue of delayed launches
//     (block-mapped, or thread-mapped for dual-queue's small queue);
//   - at the launch: dbuf-global runs launches below lb_threshold threads in
//     the parent thread and queues the others; dual-queue queues every launch
//     as small or large; the launch's error check goes with the launch;
//   - the parent gets a defaulted queues parameter, and each host launch of
//     it becomes nestor::tmpl::launch_promoted (parent grid, then the passes).
// Runtime and CDP2 semantics: nestor/promote.cuh.
#include "LaunchPromotion.h"
#include "../dp_common/DpCommon.h"
#include "../loop_common/LoopCommon.h"

#include "nestor/CudaSemantics.h"
#include "nestor/StatementEffects.h"

#include "../../analyzers/src/AstText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

namespace nestor::lb {
namespace {
using namespace dprw;

struct Promotion {
  LaunchStatement ls;
  ChildScan scan;
  const Kernel *child = nullptr;
  std::vector<HostLaunch> hosts;
};

std::optional<std::string> impure(const clang::Expr *e, const clang::ASTContext &ctx) {
  StatementEffects fx = effectsOf(e, ctx);
  if (fx.memWrite || fx.impureCall || !fx.atomics.empty() || fx.launch || !fx.writes.empty() || fx.lambda)
    return "has side effects";
  return std::nullopt;
}

Applicability check(const AnalyzedTU &tu, const RewriteTarget &t, Promotion &p) {
  const FileModel &m = tu.model();
  const clang::ASTContext &ctx = tu.astContext();
  Applicability a = locateLaunch(tu, t, p.ls);
  if (!a.applies) return a;
  const LaunchSite &site = *p.ls.site;
  if (!site.enclosingLoops.empty()) {
    const LoopSite &l = m.loops[size_t(site.enclosingLoops.front())];
    return Applicability::no("the launch is inside the loop at " + lineOf(l.span) +
                                 ": a parent thread may delay one launch only",
                             l.span);
  }
  p.child = m.findKernel(site.child);
  if (!p.child) return Applicability::no("child kernel " + site.child + " was not analysed", site.span);
  const Kernel &c = *p.child;
  if (!c.shared.empty())
    return Applicability::no("child " + c.name + " uses the __shared__ '" + c.shared.front().name + "' (" +
                                 lineOf(c.shared.front().span) + "): its threads run inside the blocks of other kernels, where that memory is not theirs",
                             c.shared.front().span);
  if (!c.barriers.empty())
    return Applicability::no("child " + c.name + " calls " + c.barriers.front().name + " (" + lineOf(c.barriers.front().span) +
                                 "): its threads run one after another in the parent thread or spread over a block",
                             c.barriers.front().span);
  if (!c.warpIntrinsics.empty())
    return Applicability::no("child " + c.name + " uses " + c.warpIntrinsics.front().name + " (" +
                                 lineOf(c.warpIntrinsics.front().span) + ")",
                             c.warpIntrinsics.front().span);
  if (!c.cooperativeGroups.empty())
    return Applicability::no("child " + c.name + " uses cooperative groups (" + lineOf(c.cooperativeGroups.front().span) + ")",
                             c.cooperativeGroups.front().span);
  if (c.isRecursive) return Applicability::no("child " + c.name + " is recursive: see rec-hier / rec-flat", c.nameSpan);
  // After the rewrite nothing may need the device runtime, or -rdc stays.
  for (const LaunchSite &o : m.launches)
    if (o.deviceSide && o.id != site.id && (o.parent == site.parent || o.parent == site.child))
      return Applicability::no(o.parent + " also launches " + o.child + " (" + lineOf(o.span) +
                                   "): the program would still need dynamic parallelism",
                               o.span);
  for (const clang::FunctionDecl *fd : {p.ls.parent, p.ls.child}) {
    std::optional<Applicability> refusal;
    forEachNode(fd->getBody(), [&](const clang::Stmt *s) {
      auto *call = llvm::dyn_cast<clang::CallExpr>(s);
      if (refusal || !call || llvm::isa<clang::CUDAKernelCallExpr>(call)) return;
      cuda::CallMeaning cm = cuda::classifyCall(call);
      if (!cm.deviceRuntime && cm.name != "cudaGetLastError" && cm.name != "cudaPeekAtLastError") return;
      SourceSpan sp = spanOf(call, ctx);
      if (fd == p.ls.parent && sp.begin.offset >= p.ls.groupBegin && sp.end.offset <= p.ls.groupEnd) return;
      refusal = Applicability::no(fd->getNameAsString() + " calls " + cm.name + " (" + lineOf(sp) +
                                      ") from the device: the program would still need the device runtime",
                                  sp);
    });
    if (refusal) return *refusal;
  }
  a = scanChild(tu, p.ls.child, p.scan);
  if (!a.applies) return a;
  if (spanOf(p.ls.child->getSourceRange(), ctx).begin.offset > spanOf(p.ls.parent->getSourceRange(), ctx).begin.offset)
    return Applicability::no("child " + c.name + " is defined after its parent " + site.parent +
                                 ": the delayed-launch record is declared with the child",
                             c.nameSpan);
  for (const std::string suffix : {"_nestor_thread", "_nestor_launch", "_nestor_drain"})
    if (tu.functionDecl(c.name + suffix) || tu.mainFileText().contains(c.name + suffix))
      return Applicability::no(c.name + suffix + " exists already: the rewrite was applied", site.span);
  for (const clang::ParmVarDecl *pv : p.ls.child->parameters())
    if (pv->getName().empty() || pv->getName().starts_with("nestor_"))
      return Applicability::no("a parameter of child " + c.name + " is unnamed or named nestor_*", c.nameSpan);
  for (const clang::Expr *arg : p.ls.call->arguments())
    if (auto why = impure(arg, ctx))
      return Applicability::no("the launch argument `" + textOf(arg, ctx) + "` " + *why + ": it is evaluated once per child thread run in the parent",
                               spanOf(arg, ctx));
  // The parent's host launches pass the queue.
  a = hostLaunchesOf(tu, site.parent, p.hosts);
  if (!a.applies) return a;
  for (const HostLaunch &h : p.hosts)
    if (!h.streamText.empty() && h.streamText != "0")
      return Applicability::no("the launch of " + site.parent + " at " + lineOf(h.site->span) +
                                   " names a stream: its drain pass must follow it on the default stream",
                               h.site->span);
  if (const clang::FunctionDecl *prev = p.ls.parent->getPreviousDecl())
    return Applicability::no(site.parent + " is also declared at " + lineOf(spanOf(prev->getSourceRange(), ctx)) +
                                 ": the rewrite adds a parameter to the definition",
                             spanOf(prev->getSourceRange(), ctx));
  for (const clang::ParmVarDecl *pv : p.ls.parent->parameters())
    if (pv->hasDefaultArg())
      return Applicability::no("the parameter '" + pv->getNameAsString() + "' of " + site.parent + " has a default argument",
                               spanOf(pv->getSourceRange(), ctx));
  return Applicability::yes();
}

} // namespace

Applicability preparePromotion(const AnalyzedTU &tu, const RewriteTarget &t) {
  Promotion p;
  return check(tu, t, p);
}

llvm::Expected<clang::tooling::Replacements> applyPromotion(const AnalyzedTU &tu, const RewriteTarget &t, bool dual,
                                                            long long threshold) {
  const char *rw = dual ? "dual-queue-launch" : "dbuf-global-launch";
  Promotion p;
  Applicability a = check(tu, t, p);
  if (!a.applies) return llvm::createStringError("%s: %s", rw, a.reason.c_str());
  const clang::ASTContext &ctx = tu.astContext();
  const clang::SourceManager &sm = tu.sourceManager();
  llvm::StringRef text = tu.mainFileText();
  const LaunchSite &site = *p.ls.site;
  const std::string child = site.child, parent = site.parent;
  const std::string thr = std::to_string(threshold), name = dual ? "dual-queue" : "dbuf-global";
  const std::string rec = child + "_nestor_launch", thread = child + "_nestor_thread", drain = child + "_nestor_drain";
  const std::string queueType = "nestor::tmpl::launch_queue<" + rec + ">", queuesType = "nestor::tmpl::launch_queues<" + rec + ">";
  clang::tooling::Replacements reps;
  auto add = [&](unsigned b, unsigned e, llvm::StringRef s) -> llvm::Error { return reps.add(replacementFor(tu, b, e, s)); };

  // 1. After the child: its body with the identity as parameters, the record, the pass kernel.
  std::vector<std::string> decls = parameterDecls(tu, p.ls.child);
  std::string fields, fromItem;
  for (const clang::ParmVarDecl *pv : p.ls.child->parameters()) fromItem += "a." + pv->getNameAsString() + ", ";
  for (const std::string &d : decls) fields += "  " + d + ";\n";
  std::string body = text.substr(p.scan.bodyBegin, p.scan.bodyEnd - p.scan.bodyBegin).str();
  std::string after =
      "\n\n// " + child + " with its thread identity as parameters (" + rw + "): run by the parent thread\n"
      "// or by " + drain + " for delayed launches.\n"
      "__device__ __forceinline__ void " + thread + "(" + joinArgs(decls, "uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim") +
      ") " + body + "\n\n// A delayed launch of " + child + ": its arguments and configuration.\nstruct " + rec + " {\n" + fields +
      "  dim3 nestor_grid, nestor_block;\n};\n\n"
      "// The pass over delayed launches (irregular-loop-and-recursion-templates.md II-B, " + name + "): block-mapped,\n"
      "// one block per launch striding over its child threads" +
      (dual ? ", or thread-mapped for the small queue, one thread\n// per launch running all its child threads.\n"
            : ".\n") +
      "__global__ void " + drain + "(" + queueType + " nestor_lq, bool nestor_block_mapped) {\n"
      "  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, [](const " + rec + " &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {\n"
      "    " + thread + "(" + fromItem + "t, b, bd, gd);\n  });\n}";
  if (auto e = add(p.scan.declEnd, p.scan.declEnd, after)) return std::move(e);

  // 2. The launch in the parent.
  const std::string in = p.ls.indent + "  ";
  std::string g = "{\n" + in + "// " + name + ", lb_threshold " + thr +
                  " (irregular-loop-and-recursion-templates.md II-B), no dynamic parallelism: " +
                  (dual ? "the launch is\n" + in + "// queued as small (fewer than " + thr +
                              " threads, thread-mapped pass) or large (block-mapped pass);\n" + in +
                              "// the passes run after this grid (CDP2 gives no earlier guarantee either).\n"
                        : "a launch of\n" + in + "// fewer than " + thr + " threads runs in this thread; a larger one is delayed to " +
                              drain + ",\n" + in + "// which runs after this grid (CDP2 gives no earlier guarantee either).\n") +
                  in + "const dim3 nestor_grid(" + p.ls.gridText + "), nestor_block(" + p.ls.blockText + ");\n";
  if (!p.ls.counterText.empty()) g += in + p.ls.counterText + "\n";
  g += in + rec + " nestor_item;\n";
  for (size_t i = 0; i < p.ls.argTexts.size() && i < size_t(p.ls.child->getNumParams()); ++i)
    g += in + "nestor_item." + p.ls.child->getParamDecl(unsigned(i))->getNameAsString() + " = " + p.ls.argTexts[i] + ";\n";
  g += in + "nestor_item.nestor_grid = nestor_grid;\n" + in + "nestor_item.nestor_block = nestor_block;\n";
  const std::string small = "nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < " + thr + "ull";
  if (dual)
    g += in + "if (!nestor::tmpl::push_launch(" + small + " ? nestor_lq.small : nestor_lq.large, nestor_item))\n";
  else
    g += in + "if (" + small + " ||\n" + in + "    !nestor::tmpl::push_launch(nestor_lq.large, nestor_item))\n";
  g += in + "  nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block, [&](uint3 t, uint3 b, dim3 bd, dim3 gd) {\n" + in +
       "    " + thread + "(" + joinArgs(p.ls.argTexts, "t, b, bd, gd") + ");\n" + in + "  });\n" + p.ls.indent + "}";
  if (auto e = add(p.ls.groupBegin, p.ls.groupEnd, g)) return std::move(e);

  // 3. The parent's queues parameter and its host launches.
  clang::SourceLocation rp = p.ls.parent->getFunctionTypeLoc().getRParenLoc();
  if (rp.isInvalid()) return llvm::createStringError("%s: cannot find the parameter list of %s", rw, parent.c_str());
  unsigned at = sm.getFileOffset(sm.getExpansionLoc(rp));
  if (auto e = add(at, at, std::string(p.ls.parent->param_empty() ? "" : ", ") + queuesType + " nestor_lq = {}"))
    return std::move(e);
  for (const HostLaunch &h : p.hosts) {
    const clang::CUDAKernelCallExpr *call = tu.launchExpr(h.site->id);
    std::string args;
    for (const clang::Expr *arg : call->arguments())
      if (!llvm::isa<clang::CXXDefaultArgExpr>(arg)) args += textOf(arg, ctx) + ", ";
    const LaunchSite &hs = *h.site;
    std::string sh = hs.sharedMem.empty() ? "0" : hs.sharedMem;
    std::string launch = "nestor::tmpl::launch_promoted<" + rec + ">(" + hs.grid + ", " + hs.block + ", " +
                         (dual ? "true" : "false") + ",\n" + h.indent + "    [&](dim3 nestor_g, dim3 nestor_b, " + queuesType +
                         " nestor_lq) {\n" + h.indent + "      " + parent + "<<<nestor_g, nestor_b, " + sh + ">>>(" + args +
                         "nestor_lq);\n" + h.indent + "    },\n" + h.indent + "    [&](dim3 nestor_g, dim3 nestor_b, " + queueType +
                         " nestor_q, bool nestor_block_mapped) {\n" + h.indent + "      " + drain +
                         "<<<nestor_g, nestor_b>>>(nestor_q, nestor_block_mapped);\n" + h.indent + "    })";
    if (auto e = add(hs.span.begin.offset, hs.span.end.offset, launch)) return std::move(e);
  }
  auto inc = loops::includeReplacement(tu, "nestor/promote.cuh");
  if (inc.getReplacementText().size())
    if (auto e = reps.add(inc)) return std::move(e);
  return reps;
}

} // namespace nestor::lb
