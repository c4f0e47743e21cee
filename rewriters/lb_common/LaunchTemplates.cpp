// The load-balancing templates on a device-side launch whose child grid
// covers an irregular loop's iterations (the thesis shape
// `child<<<deg/B+1, B>>>`; irregular-loop-and-recursion-templates.md II-B;
// LaunchTemplates.h):
//
//   - `<child>_nestor_thread(params..., threadIdx, blockIdx, blockDim,
//     gridDim)`: the child's body with its identity as parameters;
//     `<child>_nestor_launch`: a delayed launch (arguments + configuration);
//   - at the launch, a launch below lb_threshold threads runs in the parent
//     thread (dual-queue queues it as small instead); a larger one is
//       dbuf-global / dual-queue: appended to a global queue, which
//         `<child>_nestor_drain` runs after the parent grid (the parent gets a
//         defaulted queues parameter and each host launch of it becomes
//         nestor::tmpl::launch_promoted: parent grid, then the passes);
//       dbuf-shared / dpar-opt: held by the thread; the parent body moves into
//         `<parent>_nestor_body` and the kernel calls it, then lets the block
//         run the held launches (dbuf-shared) or launch
//         `<child>_nestor_dpar` once for them (dpar-opt);
//   - the launch's error check goes with the launch.
// dbuf-global, dual-queue and dbuf-shared leave no device launch: the program
// builds without -rdc / cudadevrt (the code action's title says so).
// Runtime and CDP2 semantics: nestor/promote.cuh, nestor/delayed_launches.cuh.
#include "LaunchTemplates.h"
#include "nestor/Papers.h"
#include "nestor/RefusalText.h"
#include "nestor/EditSet.h"
#include "LoadBalance.h"
#include "../dp_common/DpCommon.h"
#include "../loop_common/LoopCommon.h"

#include "nestor/CudaSemantics.h"
#include "nestor/DefUse.h"
#include "nestor/StatementEffects.h"

#include "nestor/AstText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

#include <algorithm>
#include <cctype>

namespace nestor::lb {
namespace {
using namespace dprw;

struct Plan {
  const LaunchTemplateRewrite *which = nullptr;
  LaunchStatement ls;
  ChildScan scan;
  const Kernel *child = nullptr;
  std::vector<HostLaunch> hosts;
  unsigned parentBodyBegin = 0, parentBodyEnd = 0; ///< dbuf-shared / dpar-opt: the parent body `{ ... }`
  std::optional<std::string> useful; ///< the child threads that do work (usefulThreads), a text at the launch
};

std::optional<std::string> impure(const clang::Expr *e, const clang::ASTContext &ctx) {
  StatementEffects fx = effectsOf(e, ctx);
  if (fx.memWrite || fx.impureCall || !fx.atomics.empty() || fx.launch || !fx.writes.empty() || fx.lambda)
    return "has side effects";
  return std::nullopt;
}

/// The child runs inside blocks that are not its own (the parent thread, a
/// pass's block or the parent's block): what that excludes.
Applicability checkChild(const Kernel &c) {
  if (!c.unparsed.empty())
    return Applicability::no("child " + c.name + " has code clang could not parse (" + lineOf(c.unparsed.front()) +
                                 "): whether it synchronises or shares memory is unknown (fix the parse error first)",
                             c.unparsed.front());
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
  return Applicability::yes();
}

/// After a promotion nothing may need the device runtime, or -rdc stays.
Applicability checkNoDeviceRuntimeLeft(const AnalyzedTU &tu, const Plan &p) {
  const FileModel &m = tu.model();
  const LaunchSite &site = *p.ls.site;
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
      SourceSpan sp = spanOf(call, tu.astContext());
      if (fd == p.ls.parent && sp.begin.offset >= p.ls.groupBegin && sp.end.offset <= p.ls.groupEnd) return;
      refusal = Applicability::no(fd->getNameAsString() + " calls " + cm.name + " (" + lineOf(sp) +
                                      ") from the device: the program would still need the device runtime",
                                  sp);
    });
    if (refusal) return *refusal;
  }
  return Applicability::yes();
}

/// dbuf-global / dual-queue: the parent's host launches pass the queues.
Applicability checkHostLaunches(const AnalyzedTU &tu, Plan &p) {
  const clang::ASTContext &ctx = tu.astContext();
  const LaunchSite &site = *p.ls.site;
  Applicability a = hostLaunchesOf(tu, site.parent, p.hosts);
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

/// dbuf-shared / dpar-opt: the parent body moves into a function and is
/// followed by a phase of the whole block.
Applicability checkParentBlockPhase(const AnalyzedTU &tu, Plan &p) {
  const FileModel &m = tu.model();
  const clang::ASTContext &ctx = tu.astContext();
  const LaunchSite &site = *p.ls.site;
  const Kernel *parent = m.findKernel(site.parent);
  if (!parent || !parent->isGlobal)
    return Applicability::no(site.parent + " is not a __global__ kernel: the held launches are run by the block of a parent grid",
                             site.span);
  // A thread that returns early reaches the block phase's barriers while the
  // others wait at the parent's own: the barriers would pair up wrongly.
  if (!parent->barriers.empty())
    return Applicability::no("parent " + parent->name + " calls " + parent->barriers.front().name + " (" +
                                 lineOf(parent->barriers.front().span) +
                                 "): the block phase after its body has barriers of its own, which threads that leave the body early would pair with it",
                             parent->barriers.front().span);
  if (!parent->cooperativeGroups.empty())
    return Applicability::no("parent " + parent->name + " uses cooperative groups (" + lineOf(parent->cooperativeGroups.front().span) +
                                 "): the block phase after its body has barriers of its own",
                             parent->cooperativeGroups.front().span);
  const clang::Stmt *body = p.ls.parent->getBody();
  // The same for a barrier in a function the parent calls (any depth, any
  // file), or in one whose body is not visible.
  cuda::CalleeUseQuery q;
  q.collectives = true;
  q.unknownBodies = true;
  if (std::optional<cuda::CalleeUse> use = cuda::calleeUse(body, q))
    return Applicability::no("parent " + parent->name + " calls " +
                                 (use->what.empty() ? cuda::unseenCall(*use)
                                                    : "'" + use->callee + "', which calls " + use->what + " (" +
                                                          lineRef(spanOf(use->at, ctx), m.file) + ")") +
                                 ": the block phase after its body has barriers of its own",
                             spanOf(use->via, ctx));
  SourceSpan bs = spanOf(body, ctx);
  if (!bs.valid() || bs.end.offset <= bs.begin.offset || p.ls.groupBegin < bs.begin.offset || p.ls.groupEnd > bs.end.offset)
    return Applicability::no("the body of " + site.parent + " is not plain text of this file (a macro?)", site.span);
  p.parentBodyBegin = bs.begin.offset;
  p.parentBodyEnd = bs.end.offset;
  for (const clang::ParmVarDecl *pv : p.ls.parent->parameters())
    if (pv->getName().empty() || pv->getName().starts_with("nestor_"))
      return Applicability::no("a parameter of parent " + site.parent + " is unnamed or named nestor_*", parent->nameSpan);
  if (tu.functionDecl(site.parent + "_nestor_body") || tu.mainFileText().contains(site.parent + "_nestor_body"))
    return Applicability::no(site.parent + "_nestor_body exists already: a template was applied to this parent", site.span);
  return Applicability::yes();
}

Applicability check(const AnalyzedTU &tu, const RewriteTarget &t, Plan &p) {
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
  a = checkChild(c);
  if (!a.applies) return a;
  // What the child's callees do counts too (judgeLaunches follows them): a
  // barrier in a __device__ helper it calls is a barrier of the child.
  if (!site.serializable)
    return Applicability::no("child " + c.name + " cannot run its threads one after another: " + site.reasons.front(),
                             site.reasonSpans.empty() ? site.span : site.reasonSpans.front());
  if (p.which->removesDeviceLaunch()) {
    a = checkNoDeviceRuntimeLeft(tu, p);
    if (!a.applies) return a;
  }
  a = scanChild(tu, p.ls.child, p.scan);
  if (!a.applies) return a;
  if (spanOf(p.ls.child->getSourceRange(), ctx).begin.offset > spanOf(p.ls.parent->getSourceRange(), ctx).begin.offset)
    return Applicability::no("child " + c.name + " is defined after its parent " + site.parent +
                                 ": the delayed-launch record is declared with the child",
                             c.nameSpan);
  for (const std::string suffix : {"_nestor_thread", "_nestor_launch", "_nestor_drain", "_nestor_dpar"})
    if (tu.functionDecl(c.name + suffix) || tu.mainFileText().contains(c.name + suffix))
      return Applicability::no(c.name + suffix + " exists already: the rewrite was applied", site.span);
  for (const clang::ParmVarDecl *pv : p.ls.child->parameters())
    if (pv->getName().empty() || pv->getName().starts_with("nestor_"))
      return Applicability::no("a parameter of child " + c.name + " is unnamed or named nestor_*", c.nameSpan);
  if (std::string why = recordFieldProblem(p.ls.child, ctx); !why.empty()) return Applicability::no(why, c.nameSpan);
  for (const clang::Expr *arg : p.ls.call->arguments())
    if (auto why = impure(arg, ctx))
      return Applicability::no("the launch argument `" + textOf(arg, ctx) + "` " + *why + ": it is evaluated once per child thread run in the parent",
                               spanOf(arg, ctx));
  a = p.which->holdsInBlock() ? checkParentBlockPhase(tu, p) : checkHostLaunches(tu, p);
  if (!a.applies) return a;
  return p.which->checkTemplate(tu, site);
}

/// The child threads of a launch that do work, as a text evaluated at the
/// launch (issue #21: lb_threshold compares the launch's useful work, not grid
/// x block, which a 1024-thread block always exceeds and a 1x128 launch with 8
/// useful threads never reaches). From the guard at the top of the child
/// (`if (id >= n) return;`, or the body in `if (id < n) { ... }`, with `id`
/// the global thread index, or threadIdx.x under a one-block grid, through
/// locals (nestor/DefUse.h), and `n` a parameter), its argument; else the
/// model's thread count when it is the numerator of the grid's ceiling
/// division. nullopt when neither is known: grid x block decides.
std::optional<std::string> usefulThreads(const Plan &p, const clang::ASTContext &ctx) {
  auto norm = [](std::string t) {
    t.erase(std::remove_if(t.begin(), t.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')'; }),
            t.end());
    return t;
  };
  const LaunchSite &site = *p.ls.site;
  auto isIndex = [&](const clang::Expr *e) {
    std::string t = norm(textOf(seeThroughLocals(e), ctx));
    for (const char *g : {"blockIdx.x*blockDim.x+threadIdx.x", "threadIdx.x+blockIdx.x*blockDim.x",
                          "blockDim.x*blockIdx.x+threadIdx.x", "threadIdx.x+blockDim.x*blockIdx.x"})
      if (t == g) return true;
    return t == "threadIdx.x" && site.gridValue && *site.gridValue == 1;
  };
  auto bound = [&](const clang::Expr *e) -> std::optional<std::string> {
    const clang::Expr *b = seeThroughLocals(e)->IgnoreParenImpCasts();
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(b))
      if (auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(dr->getDecl()))
        if (pv->getFunctionScopeIndex() < p.ls.argTexts.size()) return p.ls.argTexts[pv->getFunctionScopeIndex()];
    return std::nullopt;
  };
  const auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(p.ls.child->getBody());
  if (body) {
    for (const clang::Stmt *s : body->body()) {
      if (llvm::isa<clang::DeclStmt>(s)) continue;
      const auto *ifs = llvm::dyn_cast<clang::IfStmt>(s);
      const auto *cmp = ifs ? llvm::dyn_cast<clang::BinaryOperator>(ifs->getCond()->IgnoreParenImpCasts()) : nullptr;
      if (!cmp || ifs->getInit() || ifs->getConditionVariable() || ifs->getElse()) break;
      const bool exits = llvm::isa<clang::ReturnStmt>(ifs->getThen()) ||
                         (llvm::isa<clang::CompoundStmt>(ifs->getThen()) &&
                          llvm::cast<clang::CompoundStmt>(ifs->getThen())->size() == 1 &&
                          llvm::isa<clang::ReturnStmt>(*llvm::cast<clang::CompoundStmt>(ifs->getThen())->body_begin()));
      const clang::Expr *idx = nullptr, *lim = nullptr;
      if (exits && cmp->getOpcode() == clang::BO_GE) idx = cmp->getLHS(), lim = cmp->getRHS();
      if (exits && cmp->getOpcode() == clang::BO_LE) idx = cmp->getRHS(), lim = cmp->getLHS();
      // The whole rest of the body under `if (id < n)`.
      if (!exits && s == body->body_back() && cmp->getOpcode() == clang::BO_LT) idx = cmp->getLHS(), lim = cmp->getRHS();
      if (!exits && s == body->body_back() && cmp->getOpcode() == clang::BO_GT) idx = cmp->getRHS(), lim = cmp->getLHS();
      if (idx && isIndex(idx))
        if (auto n = bound(lim)) return *n;
      break;
    }
  }
  if (site.threadsByCeilingDivision && p.ls.grid && !impure(p.ls.grid, ctx))
    return *site.threads;
  return std::nullopt;
}

/// The text that replaces the launch statement and its bookkeeping: a launch
/// below the threshold runs in this thread; a larger one is queued or held.
std::string launchReplacement(const Plan &p, const LaunchTemplateCode &code) {
  const LaunchTemplateRewrite &w = *p.which;
  const std::string &threshold = code.threshold;
  const std::string child = p.ls.site->child, rec = child + "_nestor_launch", thread = child + "_nestor_thread";
  const std::string in = p.ls.indent + "  ";
  std::string g = "{\n" + in + "// " + w.templateName() + ", lb_threshold " + threshold +
                  " (" + papers::kTemplates + ", II-B)" + w.launchComment(code);
  g += in + "const dim3 nestor_grid(" + p.ls.gridText + "), nestor_block(" + p.ls.blockText + ");\n";
  if (!p.ls.counterText.empty()) g += in + p.ls.counterText + "\n";
  g += in + rec + " nestor_item;\n";
  for (size_t i = 0; i < p.ls.argTexts.size() && i < size_t(p.ls.child->getNumParams()); ++i)
    g += in + "nestor_item." + p.ls.child->getParamDecl(unsigned(i))->getNameAsString() + " = " + p.ls.argTexts[i] + ";\n";
  g += in + "nestor_item.nestor_grid = nestor_grid;\n" + in + "nestor_item.nestor_block = nestor_block;\n";
  // Small: fewer than lb_threshold child threads, or fewer that do work (usefulThreads).
  std::string small = "nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < " + threshold + "ull";
  if (p.useful) small = "(" + small + " ||\n" + in + "     (unsigned long long)(" + *p.useful + ") < " + threshold + "ull)";
  if (w.holdsInBlock())
    g += in + "if (" + small + " ||\n" + in + "    !nestor_held.hold(nestor_item))\n";
  else if (w.queuesSmallLaunches())
    g += in + "if (!nestor::tmpl::push_launch(" + small + " ? nestor_lq.small : nestor_lq.large, nestor_item))\n";
  else
    g += in + "if (" + small + " ||\n" + in + "    !nestor::tmpl::push_launch(nestor_lq.large, nestor_item))\n";
  // The lambda's parameters are spelled in our namespace: the launch's
  // argument texts are the user's and may name a local `t` or `b` (the
  // eleventh held-out set's gossip round passed `t - 1`, which a parameter
  // `uint3 t` captured: the variant did not compile).
  g += in + "  nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,\n" + in +
       "      [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {\n" + in + "    " + thread + "(" +
       joinArgs(p.ls.argTexts, "nestor_t, nestor_b, nestor_bd, nestor_gd") + ");\n" + in + "  });\n" + p.ls.indent + "}";
  return g;
}

} // namespace

Applicability prepareLaunchTemplate(const AnalyzedTU &tu, const RewriteTarget &t, const LaunchTemplateRewrite &which) {
  Plan p;
  p.which = &which;
  return check(tu, t, p);
}

llvm::Expected<clang::tooling::Replacements> applyLaunchTemplate(const AnalyzedTU &tu, const RewriteTarget &t,
                                                                 const LaunchTemplateRewrite &which, long long threshold) {
  const char *rw = which.id();
  Plan p;
  p.which = &which;
  Applicability a = check(tu, t, p);
  if (!a.applies) return llvm::createStringError("%s: %s", rw, a.reason.c_str());
  const clang::ASTContext &ctx = tu.astContext();
  const clang::SourceManager &sm = tu.sourceManager();
  llvm::StringRef text = tu.mainFileText();
  const LaunchSite &site = *p.ls.site;
  const std::string child = site.child, parent = site.parent;
  const std::string thr = std::to_string(threshold), name = which.templateName();
  const bool dual = which.queuesSmallLaunches();
  const std::string rec = child + "_nestor_launch", thread = child + "_nestor_thread", drain = child + "_nestor_drain";
  const std::string queueType = "nestor::tmpl::launch_queue<" + rec + ">", queuesType = "nestor::tmpl::launch_queues<" + rec + ">";
  EditSet reps(tu);

  // 1. After the child: its body with the identity as parameters, the record
  // and the kernel that runs delayed launches (the pass, or dpar-opt's child).
  std::vector<std::string> decls = parameterDecls(tu, p.ls.child);
  std::string fields, fromItem;
  for (const clang::ParmVarDecl *pv : p.ls.child->parameters()) fromItem += "a." + pv->getNameAsString() + ", ";
  for (const std::string &d : decls) fields += "  " + d + ";\n";
  std::string body = text.substr(p.scan.bodyBegin, p.scan.bodyEnd - p.scan.bodyBegin).str();
  const std::string threadLambda = "[](const " + rec + " &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {\n    " + thread + "(" + fromItem +
                                   "t, b, bd, gd);\n  }";
  const std::string heldType = "nestor::tmpl::held_launch<" + rec + ">";
  std::string parentArgs;
  for (const clang::ParmVarDecl *pv : p.ls.parent->parameters()) parentArgs += pv->getNameAsString() + ", ";
  const LaunchTemplateCode code{child, parent, thr, p.ls.indent + "  ", rec, threadLambda, heldType, parentArgs};
  const std::string runBy = which.runsDelayedLaunches(code);
  std::string after =
      "\n\n// " + child + " with its thread identity as parameters (" + rw + "): run by the parent thread\n"
      "// or by " + runBy + " for delayed launches.\n"
      "__device__ __forceinline__ void " + thread + "(" + joinArgs(decls, "uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim") +
      ") " + body + "\n\n// A delayed launch of " + child + ": its arguments and configuration.\nstruct " + rec + " {\n" + fields +
      "  dim3 nestor_grid, nestor_block;\n};";
  if (!which.holdsInBlock())
    after += "\n\n// The pass over delayed launches (" + papers::kTemplates + ", II-B, " + name + "): block-mapped,\n"
             "// one block per launch striding over its child threads" +
             (dual ? ", or thread-mapped for the small queue, one thread\n// per launch running all its child threads.\n" : ".\n") +
             "__global__ void " + drain + "(" + queueType + " nestor_lq, bool nestor_block_mapped) {\n"
             "  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, " + threadLambda + ");\n}";
  after += which.declarationsAfterChild(code);
  p.useful = usefulThreads(p, ctx);
  const std::string group = launchReplacement(p, code);

  if (!which.holdsInBlock()) {
    reps.add(p.scan.declEnd, p.scan.declEnd, after);
    // 2. The launch in the parent.
    reps.add(p.ls.groupBegin, p.ls.groupEnd, group);
    // 3. The parent's queues parameter and its host launches.
    clang::SourceLocation rp = p.ls.parent->getFunctionTypeLoc().getRParenLoc();
    if (rp.isInvalid()) return llvm::createStringError("%s: cannot find the parameter list of %s", rw, parent.c_str());
    unsigned at = sm.getFileOffset(sm.getExpansionLoc(rp));
    reps.add(at, at, std::string(p.ls.parent->param_empty() ? "" : ", ") + queuesType + " nestor_lq = {}");
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
      reps.add(hs.span.begin.offset, hs.span.end.offset, launch);
    }
    auto inc = loops::includeReplacement(tu, "nestor/promote.cuh");
    reps.addInclude(inc);
    return reps.replacements();
  }

  // dbuf-shared / dpar-opt. 2. The parent body, with the launch replaced,
  // moves into <parent>_nestor_body, which keeps the held launch in a
  // reference parameter; an early `return` there still reaches the block phase.
  std::string parentBody = text.substr(p.parentBodyBegin, p.ls.groupBegin - p.parentBodyBegin).str() + group +
                           text.substr(p.ls.groupEnd, p.parentBodyEnd - p.ls.groupEnd).str();
  std::vector<std::string> parentDecls = parameterDecls(tu, p.ls.parent);
  std::string bodyFn = "// The body of " + parent + " for " + rw + ": a large launch is held in nestor_held, which\n// " + parent +
                       "'s block " + which.blockPhaseVerb() +
                       " after every thread has left this body.\n__device__ __forceinline__ void " + parent + "_nestor_body(" +
                       joinArgs(parentDecls, heldType + " &nestor_held") + ") " + parentBody + "\n\n";
  // The child's code, then the parent's body (both may go to one offset:
  // EditSet keeps them in this order).
  unsigned before = declStart(tu, p.ls.parent);
  reps.add(p.scan.declEnd, p.scan.declEnd, before == p.scan.declEnd ? after + "\n\n" : after);
  reps.add(before, before, bodyFn);
  // 3. The kernel: the body, then the block phase.
  const std::string k = which.blockPhaseKernelBody(code);
  reps.add(p.parentBodyBegin, p.parentBodyEnd, k);
  auto inc = loops::includeReplacement(tu, "nestor/delayed_launches.cuh");
  reps.addInclude(inc);
  return reps.replacements();
}

} // namespace nestor::lb
