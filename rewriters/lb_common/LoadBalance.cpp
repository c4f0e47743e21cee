// The planner of the load-balancing templates (LoadBalance.h). Checks first,
// then edits; every refusal names the blocking construct and its line.
#include "LoadBalance.h"
#include "nestor/Papers.h"
#include "nestor/RefusalText.h"
#include "nestor/EditSet.h"
#include "ReplaySafety.h"
#include "../loop_common/LoopCommon.h"
#include "../loop_common/StmtParents.h"

#include "nestor/CudaSemantics.h"
#include "nestor/Inference.h"
#include "nestor/StatementEffects.h"

#include "nestor/AstText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace nestor::lb {
namespace {

const std::vector<std::string> kThresholds = {"32", "64", "128", "256"};

std::string lineOf(const SourceSpan &s) { return "line " + std::to_string(s.begin.line); }

/// Code that a delayed thread runs twice (before the loop) must not change
/// memory or call what might: the replay would do it again.
std::optional<std::string> impurity(const StatementEffects &fx) {
  if (!fx.atomics.empty()) return "calls " + fx.atomics.front().name;
  if (fx.memWrite) return "writes memory";
  if (fx.impureCall) return "calls a function that is not known to be pure";
  if (fx.launch) return "launches a kernel";
  if (fx.addrOfLocal) return "takes the address of a local";
  if (fx.lambda) return "defines a lambda";
  return std::nullopt;
}

struct Checked {
  const LoopSite *loop = nullptr;
  const Kernel *kernel = nullptr;
  const FunctionDecl *fd = nullptr;
  const ForStmt *fs = nullptr;
  loops::MapReduceLoop mr;
  /// A loop of independent iterations with no result (`for (e = p[v]; e <
  /// p[v + 1]; ++e) { ...stores, atomics... }`, BFS's or SSSP's relaxation):
  /// the block-mapped pass runs `body` for each delayed iteration, the owner's
  /// replay skips the loop. mr then holds the bounds and the loop variable.
  bool forEach = false;
  const Stmt *body = nullptr;
  std::vector<const CUDAKernelCallExpr *> launches;
};


LbPlan refuse(std::string why, SourceSpan at = {}) {
  LbPlan p;
  p.reason = std::move(why);
  p.blocker = std::move(at);
  return p;
}

/// The for-each form (Checked::forEach): a canonical CSR-like loop whose
/// iterations are independent (the analysis, or a valid `#pragma np parallel
/// for`), whose body leaves only through its end (no break, continue, return,
/// goto) and touches no local of the thread declared outside it.
std::optional<LbPlan> matchForEach(const AnalyzedTU &tu, const LoopSite &l, Checked &c) {
  ASTContext &ctx = tu.astContext();
  const FileModel &m = tu.model();
  auto *fs = dyn_cast_or_null<ForStmt>(tu.loopStmt(l.id));
  if (!fs) return refuse("the loop is not a for loop", l.headerSpan);
  std::string why;
  auto parts = loops::forParts(fs, ctx, why);
  if (!parts) return refuse(why, l.headerSpan);
  if (!parts->ivDeclared || parts->step != 1 || parts->inclusive)
    return refuse("the loop must be `for (T i = begin; i < end; ++i)`", l.headerSpan);
  bool pragma = l.pragma >= 0 && m.pragmas[size_t(l.pragma)].valid();
  if (!pragma && !isNpCandidate(l)) {
    if (auto blocker = npCandidateBlocker(l)) return refuse(blocker->first, blocker->second);
    return refuse("the loop neither reduces into one accumulator nor has iterations the analysis found independent "
                  "(a #pragma np parallel for would say they are)",
                  l.headerSpan);
  }
  StatementEffects fx = effectsOf(fs->getBody(), ctx);
  if (fx.ret || fx.jump || fx.barrier || fx.warp || fx.launch || fx.lambda || fx.addrOfLocal) {
    SourceSpan at = fx.firstBad.isValid() ? spanOf(SourceRange(fx.firstBad, fx.firstBad), ctx) : l.bodySpan;
    return refuse("the loop body leaves through break, continue, return or goto, synchronises, launches, defines a "
                  "lambda or takes a local's address (line " + std::to_string(at.begin.line) +
                  "): a delayed iteration runs as a function of its own",
                  at);
  }
  if (!fx.threadIds.empty())
    return refuse("the loop body reads " + *fx.threadIds.begin() + ": the block-mapped phase runs it on other threads", l.bodySpan);
  for (const VarDecl *w : fx.writes)
    if (!fx.declared.count(w) && w != parts->iv)
      return refuse("the loop body writes the thread's local '" + w->getNameAsString() +
                        "': state carried between iterations, which the block-mapped phase would not carry",
                    l.bodySpan);
  for (const VarDecl *r : fx.reads)
    if (r != parts->iv && !fx.declared.count(r) && !isa<ParmVarDecl>(r) && !r->hasAttr<CUDASharedAttr>())
      return refuse("the loop body reads the thread's local '" + r->getNameAsString() +
                        "': the block-mapped phase runs it on other threads",
                    l.bodySpan);
  for (const VarDecl *w : fx.writes)
    if (isa<ParmVarDecl>(w))
      return refuse("the loop body writes the parameter '" + w->getNameAsString() + "'", l.bodySpan);
  loops::MapReduceLoop mr;
  mr.iv = parts->iv->getNameAsString();
  mr.ivType = loops::typeText(parts->iv->getType(), ctx);
  mr.begin = textOf(parts->lower, ctx);
  mr.end = textOf(parts->upper, ctx);
  mr.acc.clear();
  mr.accType = "int"; // the block pass reduces nothing: each iteration yields 0
  mr.op = ReductionOp::Add;
  mr.beginExpr = parts->lower;
  mr.endExpr = parts->upper;
  mr.csrLike = loops::isCsrPair(parts->lower, parts->upper, ctx);
  c.mr = std::move(mr);
  c.forEach = true;
  c.body = fs->getBody();
  return std::nullopt;
}

/// Walks from the loop up to the kernel body: no enclosing loop (its carried
/// state would be lost by a delayed iteration), no switch, and everything a
/// thread executes before reaching the loop is free of side effects.
std::optional<LbPlan> checkPath(const AnalyzedTU &tu, const Checked &c, const loops::StmtParents &parents) {
  ASTContext &ctx = tu.astContext();
  const Stmt *cur = c.fs;
  const Stmt *body = c.fd->getBody();
  while (cur != body) {
    const Stmt *p = parents.parentOf(cur);
    if (!p) return refuse("the loop is not directly in the kernel's body", c.loop->headerSpan);
    if (isa<ForStmt>(p) || isa<WhileStmt>(p) || isa<DoStmt>(p) || isa<CXXForRangeStmt>(p)) {
      SourceSpan s = spanOf(p, ctx);
      return refuse("the loop is nested in the loop at " + lineOf(s) +
                        ": an outer loop may carry state between its iterations, which a delayed inner loop would lose",
                    s);
    }
    if (isa<SwitchStmt>(p)) return refuse("the loop is inside a switch", spanOf(p, ctx));
    if (auto *ifs = dyn_cast<IfStmt>(p)) {
      StatementEffects fx = effectsOf(ifs->getCond(), ctx);
      if (auto why = impurity(fx))
        return refuse("the condition at " + lineOf(spanOf(ifs->getCond(), ctx)) + " " + *why +
                          ": a delayed thread evaluates it again when it finishes its row",
                      spanOf(ifs->getCond(), ctx));
      if (ifs->getInit() || ifs->getConditionVariable())
        return refuse("the if at " + lineOf(spanOf(ifs, ctx)) + " declares a variable in its condition", spanOf(ifs, ctx));
    }
    if (auto *cs = dyn_cast<CompoundStmt>(p)) {
      for (const Stmt *s : cs->body()) {
        if (s == cur) break;
        StatementEffects fx = effectsOf(s, ctx);
        if (auto why = impurity(fx)) {
          SourceSpan sp = spanOf(s, ctx);
          return refuse("the statement at " + lineOf(sp) + " " + *why +
                            " before the loop: a delayed thread runs the code before the loop again",
                        sp);
        }
        if (fx.barrier || fx.warp)
          return refuse("the statement at " + lineOf(spanOf(s, ctx)) + " synchronises threads before the loop",
                        spanOf(s, ctx));
      }
    }
    cur = p;
  }
  for (const Expr *bound : {c.mr.beginExpr, c.mr.endExpr}) {
    StatementEffects fx = effectsOf(bound, ctx);
    if (auto why = impurity(fx)) return refuse("the loop bound " + *why, spanOf(bound, ctx));
  }
  return std::nullopt;
}

/// Every launch of the kernel in this file, and no other use of it (the
/// rewrite adds a parameter, which a launch through a pointer would miss).
std::optional<LbPlan> checkLaunches(const AnalyzedTU &tu, Checked &c, bool changesSignature) {
  const FileModel &m = tu.model();
  ASTContext &ctx = tu.astContext();
  for (const LaunchSite &ls : m.launches) {
    if (ls.child != c.kernel->name) continue;
    if (ls.deviceSide)
      return refuse("'" + c.kernel->name + "' is launched from device code at " + lineOf(ls.span) +
                        ": the passes are launched from the host",
                    ls.span);
    if (!changesSignature) continue;
    const CUDAKernelCallExpr *call = tu.launchExpr(ls.id);
    if (!call) return refuse("the launch at " + lineOf(ls.span) + " was not analysed", ls.span);
    if (!ls.stream.empty() && ls.stream != "0" && ls.stream != "nullptr" && ls.stream != "NULL")
      return refuse("the launch at " + lineOf(ls.span) + " names a stream (" + ls.stream +
                        "): the queues of a call site are shared, so its passes must be ordered on the default stream",
                    ls.span);
    for (const Expr *a : call->arguments()) {
      if (isa<CXXDefaultArgExpr>(a)) continue;
      StatementEffects fx = effectsOf(a, ctx);
      if (auto why = impurity(fx))
        return refuse("the argument `" + textOf(a, ctx) + "` of the launch at " + lineOf(ls.span) + " " + *why +
                          ": it is evaluated once per pass",
                      spanOf(a, ctx));
    }
    c.launches.push_back(call);
  }
  if (!changesSignature) return std::nullopt;
  if (c.launches.empty())
    return refuse("'" + c.kernel->name + "' is not launched in this file: the passes are launched where it is launched",
                  c.kernel->nameSpan);
  if (const FunctionDecl *prev = c.fd->getPreviousDecl())
    return refuse("'" + c.kernel->name + "' is also declared at " + lineOf(spanOf(prev->getSourceRange(), ctx)) +
                      ": the rewrite adds a parameter to the definition",
                  spanOf(prev->getSourceRange(), ctx));
  // References other than the launches' callees: a pointer launch would miss the new parameter.
  size_t refs = 0;
  SourceSpan firstRef;
  for (const Decl *d : tu.topLevelDecls()) {
    const auto *f = dyn_cast<FunctionDecl>(d);
    if (!f || !f->hasBody()) continue;
    forEachNode(f->getBody(), [&](const Stmt *s) {
      if (auto *dr = dyn_cast<DeclRefExpr>(s); dr && dr->getDecl()->getCanonicalDecl() == c.fd->getCanonicalDecl()) {
        if (!refs++) firstRef = spanOf(dr, ctx);
      }
    });
  }
  if (refs > c.launches.size())
    return refuse("'" + c.kernel->name + "' is used other than by a <<<>>> launch: the rewrite adds a parameter", firstRef);
  return std::nullopt;
}

std::optional<LbPlan> check(const AnalyzedTU &tu, const RewriteTarget &t, const LoadBalanceRewrite &which, Checked &c) {
  const FileModel &m = tu.model();
  ASTContext &ctx = tu.astContext();
  if (t.kind != RewriteTarget::Kind::Loop || t.id < 0 || size_t(t.id) >= m.loops.size())
    return refuse("no loop at this position");
  c.loop = &m.loops[size_t(t.id)];
  const LoopSite &l = *c.loop;
  if (!l.inKernel) return refuse("the loop is not inside a __global__ kernel", l.headerSpan);
  if (auto why = distributionRefusal(m, l)) return refuse(why->reason, why->span);
  if (l.tripCount != TripCountClass::Irregular)
    return refuse(std::string("the loop's trip count is ") + spelling(l.tripCount) +
                      ", not irregular: the templates balance per-thread trip counts",
                  l.headerSpan);
  if (l.gridStride) return refuse("the loop is a grid-stride loop", l.headerSpan);
  if (l.hasDeviceLaunch) return refuse("the loop launches a kernel", l.bodySpan);
  std::string why;
  SourceSpan where;
  if (auto mr = loops::matchMapReduce(tu, l, why, where)) {
    c.mr = *mr;
    if (!mr->descriptors.empty())
      return refuse("the loop body reads the thread's local '" + mr->descriptors.front().first +
                        "': the block-mapped phase evaluates it on other threads",
                    mr->mappedSpan);
    // Every part of the mapped value (f(i), a conditional update's condition and value).
    for (const Expr *part : mr->mappedParts) {
      StatementEffects mapped = effectsOf(part, ctx);
      if (!mapped.threadIds.empty())
        return refuse("the loop body reads " + *mapped.threadIds.begin() + ": the block-mapped phase runs it on other threads",
                      mr->mappedSpan);
    }
  } else if (std::optional<LbPlan> notForEach = matchForEach(tu, l, c)) {
    // Neither form: say why it is not a reduction, and why not a for-each.
    return refuse(why + "; as a loop of independent iterations: " + notForEach->reason,
                  notForEach->blocker.valid() ? notForEach->blocker : where);
  }
  if (!c.mr.csrLike)
    return refuse("the bounds `" + c.mr.begin + "` .. `" + c.mr.end +
                      "` are not a CSR-like pair (begin = p[q], end = p[q + 1]): the templates split rows of a CSR offsets array",
                  l.headerSpan);
  loops::LoopKernel lk;
  if (auto why = loops::findLoopKernel(tu, l, lk)) return refuse(why->reason, why->span);
  c.kernel = lk.kernel;
  c.fd = lk.fd;
  c.fs = lk.fs;
  const Kernel &k = *c.kernel;
  if (!k.shared.empty())
    return refuse("the kernel uses the __shared__ '" + k.shared.front().name + "' (" + lineOf(k.shared.front().span) +
                      "): the block-mapped phase runs other threads' rows, which shared memory would not follow",
                  k.shared.front().span);
  if (!k.barriers.empty())
    return refuse("the kernel calls " + k.barriers.front().name + " (" + lineOf(k.barriers.front().span) +
                      "): a replayed row runs on one thread, whose barrier the block would not reach",
                  k.barriers.front().span);
  if (!k.warpIntrinsics.empty())
    return refuse("the kernel uses " + k.warpIntrinsics.front().name + " (" + lineOf(k.warpIntrinsics.front().span) +
                      "): a replayed row runs on one thread",
                  k.warpIntrinsics.front().span);
  if (!k.cooperativeGroups.empty())
    return refuse("the kernel uses cooperative groups (" + lineOf(k.cooperativeGroups.front().span) + ")",
                  k.cooperativeGroups.front().span);
  if (k.isRecursive) return refuse("the kernel is recursive", k.nameSpan);
  for (const LaunchSite &ls : m.launches)
    if (ls.deviceSide && ls.parent == k.name)
      return refuse("the kernel launches '" + ls.child + "' at " + lineOf(ls.span) +
                        ": launch-covered loops are not handled by this rewrite yet",
                    ls.span);
  for (const ParmVarDecl *p : c.fd->parameters()) {
    if (p->getName().empty()) return refuse("a parameter of '" + k.name + "' has no name", spanOf(p->getSourceRange(), ctx));
    if (p->hasDefaultArg()) return refuse("the parameter '" + p->getNameAsString() + "' has a default argument",
                                          spanOf(p->getSourceRange(), ctx));
  }
  // The body function takes the thread identity as parameters; a function it
  // calls (any depth, any file) reads the real built-ins, which are the
  // replaying thread's, synchronises a block whose threads left at the
  // delayed row, or uses shared memory that another block's pass would not
  // see. One whose body is not visible may do any of these.
  cuda::CalleeUseQuery q;
  q.builtin = [](llvm::StringRef) { return true; };
  q.collectives = true;
  q.unknownBodies = true;
  q.shared = true;
  if (std::optional<cuda::CalleeUse> use = cuda::calleeUse(c.fd->getBody(), q)) {
    const std::string f = "'" + use->callee + "'";
    const SourceSpan call = spanOf(use->via, ctx);
    if (use->what.empty())
      return refuse("the kernel calls " + cuda::unseenCall(*use) + ": a replayed row runs on another thread", call);
    const std::string at = " (" + lineRef(spanOf(use->at, ctx), m.file) + ")"; // a named use has its place
    if (cuda::isThreadIdBuiltinName(use->what))
      return refuse("the kernel calls " + f + ", which reads " + use->what + at +
                        ": a replayed row runs on another thread",
                    call);
    return refuse("the kernel calls " + f + ", which uses " + use->what + at +
                      ": a delayed row leaves its thread early and is finished on another thread",
                  call);
  }
  const loops::StmtParents &parents = loops::parentsOf(tu.astContext(), c.fd);
  if (auto r = checkPath(tu, c, parents)) return r;
  if (c.forEach)
    if (std::optional<ReplayHazard> h = forEachReplayHazard(ctx, parents, c.fd, c.fs)) return refuse(h->reason, h->at);
  if (auto r = checkLaunches(tu, c, which.passesLaunchedByHost())) return r;
  return std::nullopt;
}

// ---------------------------------------------------------------- emitting


/// The loop's text, its continuation lines indented two more spaces (it
/// becomes the `else` branch).
std::string indentMore(std::string s) {
  for (size_t i = s.find('\n'); i != std::string::npos; i = s.find('\n', i + 3)) s.insert(i + 1, "  ");
  return s;
}

std::string bodyFunctionName(const Kernel &k) { return k.name + "_nestor_body"; }

llvm::Expected<clang::tooling::Replacements> emit(const AnalyzedTU &tu, const Checked &c, const LoadBalanceRewrite &which,
                                                   long long thr) {
  ASTContext &ctx = tu.astContext();
  const FileModel &m = tu.model();
  const LoopSite &l = *c.loop;
  const Kernel &k = *c.kernel;
  llvm::StringRef text = tu.mainFileText();
  const loops::MapReduceLoop &mr = c.mr;
  const std::string opf = std::string(loops::opFunctor(mr.op)) + "{}";
  const std::string name = which.templateName(), thrText = std::to_string(thr);

  // Parameters and arguments of the body function.
  std::string params, args;
  for (const ParmVarDecl *p : c.fd->parameters()) {
    params += (params.empty() ? "" : ", ") + textOf(p->getSourceRange(), ctx);
    args += (args.empty() ? "" : ", ") + p->getNameAsString();
  }
  const std::string identityParams = std::string(params.empty() ? "" : ", ") +
                                     "uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase";

  // The body with the loop replaced by the phase hook.
  SourceSpan bodySpan = spanOf(c.fd->getBody(), ctx);
  unsigned loopBegin = l.span.begin.offset, loopEnd = l.span.end.offset;
  if (loopEnd > 0 && text[loopEnd - 1] != '}' && text[loopEnd - 1] != ';') {
    size_t i = loopEnd;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size() && text[i] == ';') loopEnd = unsigned(i + 1);
  }
  std::string in = indentationAt(text, loopBegin);
  std::string hook =
      c.forEach
          ? "// " + name + " (" + papers::kTemplates + ", II-B): the phase delays this loop when its\n" + in +
                "// trip count is " + thrText + " or more; the block-mapped pass then runs its iterations, and the replay skips it.\n" +
                in + "if (nestor_phase.defer(" + mr.begin + ", " + mr.end + ")) return;\n" + in +
                "if (!nestor_phase.has_result())\n" + in + "  " + indentMore(text.substr(loopBegin, loopEnd - loopBegin).str())
          : "// " + name + " (" + papers::kTemplates + ", II-B): the phase delays this loop when its\n" + in +
                "// trip count is " + thrText + " or more, or hands back its block-computed reduction.\n" + in +
                "if (nestor_phase.defer(" + mr.begin + ", " + mr.end + ")) return;\n" + in +
                "if (nestor_phase.has_result()) " + mr.acc + " = " + opf + "(" + mr.acc + ", nestor_phase.template result<" +
                mr.accType + ">());\n" + in + "else\n" + in + "  " +
                indentMore(text.substr(loopBegin, loopEnd - loopBegin).str());
  // The hook is several statements: where the loop was an `if`'s branch
  // without braces, it needs its own (else only its first statement would
  // stay under the `if`).
  if (!isa_and_nonnull<CompoundStmt>(loops::parentsOf(ctx, c.fd).parentOf(c.fs)))
    hook = "{\n" + in + hook + "\n" + in + "}";
  std::string body = text.substr(bodySpan.begin.offset, loopBegin - bodySpan.begin.offset).str() + hook +
                     text.substr(loopEnd, bodySpan.end.offset - loopEnd).str();
  if (l.pragma >= 0) {
    const NpPragma &pr = m.pragmas[size_t(l.pragma)];
    if (pr.span.begin.offset >= bodySpan.begin.offset && pr.span.end.offset <= loopBegin) {
      size_t at = pr.span.begin.offset - bodySpan.begin.offset;
      body.replace(at, pr.span.end.offset - pr.span.begin.offset, "// (was: #pragma " + pr.text + ")");
    }
  }
  const std::string bodyFn = "// The body of '" + k.name + "' for the " + name +
                             " template: the thread identity is a parameter, so a\n"
                             "// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).\n"
                             "template <class NestorPhase>\n__device__ __forceinline__ void " +
                             bodyFunctionName(k) + "(" + params + identityParams + ") " + body + "\n\n";

  // The new kernel body.
  // The work of one iteration for the block-mapped pass: f(i) of a reduction,
  // or a for-each body run for its effects (its 0 is reduced and dropped).
  std::string lambdaF = "[=](" + mr.ivType + " " + mr.iv + ") { return " + mr.mapped + "; }";
  if (c.forEach) {
    SourceSpan b = spanOf(c.body, ctx);
    lambdaF = "[=](" + mr.ivType + " " + mr.iv + ") {\n    " + text.substr(b.begin.offset, loopEnd - b.begin.offset).str() +
              "\n    return 0;\n  }";
  }
  const std::string bodyCall = "[&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {\n    " +
                               bodyFunctionName(k) + "(" + args + (args.empty() ? "" : ", ") +
                               "nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);\n  }";
  const LoopTemplateCode code{tu, k, mr.ivType, mr.accType, thrText, opf, lambdaF, bodyCall, params, args};
  const std::string kernelBody = which.kernelBody(code);

  EditSet reps(tu);
  reps.add(declStart(tu, c.fd), declStart(tu, c.fd), bodyFn + which.declarationsBeforeKernel(code));
  reps.add(bodySpan.begin.offset, bodySpan.end.offset, kernelBody);
  if (which.passesLaunchedByHost()) {
    const SourceManager &sm = ctx.getSourceManager();
    SourceLocation rp = c.fd->getFunctionTypeLoc().getRParenLoc();
    if (rp.isInvalid()) return llvm::createStringError("%s: the parameter list of '%s' has no closing parenthesis", name.c_str(), k.name.c_str());
    unsigned at = sm.getFileOffset(sm.getExpansionLoc(rp));
    std::string extra = std::string(c.fd->param_empty() ? "" : ", ") + "nestor::tmpl::launch_state nestor_ls = {}";
    reps.add(at, at, extra);
    const bool dual = which.queuesSmallRows();
    for (const CUDAKernelCallExpr *call : c.launches) {
      const LaunchSite *ls = nullptr;
      for (const LaunchSite &s : m.launches)
        if (tu.launchExpr(s.id) == call) ls = &s;
      if (!ls) continue;
      std::string callArgs;
      for (const Expr *a : call->arguments()) {
        if (isa<CXXDefaultArgExpr>(a)) continue;
        callArgs += (callArgs.empty() ? "" : ", ") + textOf(a, ctx);
      }
      std::string li = indentationAt(text, ls->span.begin.offset);
      std::string launch = "nestor::tmpl::launch_templates(" + std::string(dual ? "true" : "false") + ", " + ls->grid + ", " +
                           ls->block + ", " + (ls->sharedMem.empty() ? "0" : ls->sharedMem) + ", " + thrText +
                           ", [&](dim3 nestor_g, dim3 nestor_b, size_t nestor_sh, const nestor::tmpl::launch_state &nestor_ls) {\n" +
                           li + "  " + k.name + "<<<nestor_g, nestor_b, nestor_sh>>>(" + callArgs +
                           (callArgs.empty() ? "" : ", ") + "nestor_ls);\n" + li + "})";
      reps.add(ls->span.begin.offset, ls->span.end.offset, launch);
    }
  }
  auto inc = loops::includeReplacement(tu, "nestor/templates.cuh");
  reps.addInclude(inc);
  return reps.replacements();
}

} // namespace

LbPlan planLoadBalance(const AnalyzedTU &tu, const RewriteTarget &t, const LoadBalanceRewrite &which, long long threshold,
                       bool emitEdits) {
  Checked c;
  if (auto r = check(tu, t, which, c)) return *r;
  LbPlan p;
  p.ok = true;
  if (!emitEdits) return p;
  auto edits = emit(tu, c, which, threshold);
  if (!edits) {
    p.ok = false;
    p.reason = llvm::toString(edits.takeError());
    return p;
  }
  p.edits = std::move(*edits);
  return p;
}

std::string hostPassesKernelBody(const LoopTemplateCode &c, const std::string &comment) {
  return "{\n  // " + comment + "\n  nestor::tmpl::dispatch<" + c.accType + ">(nestor_ls, " + c.rowWork + ", " + c.op + ",\n  " +
         c.bodyCall + ");\n}";
}

std::vector<ParamSpec> thresholdParams() {
  return {{"lb_threshold", kThresholds, "64",
           "the paper's lb_THRES: rows whose loop has at least this many iterations are large (block-mapped)"}};
}

std::vector<RewriteParams> thresholdVariants() {
  std::vector<RewriteParams> v;
  for (const std::string &t : kThresholds) v.push_back({{"lb_threshold", t}});
  return v;
}

long long thresholdOf(const RewriteParams &p) {
  auto it = p.find("lb_threshold");
  if (it == p.end() || it->second.empty()) return 64;
  return std::stoll(it->second);
}

unsigned declStart(const AnalyzedTU &tu, const FunctionDecl *fd) {
  const SourceManager &sm = tu.astContext().getSourceManager();
  SourceLocation b = sm.getExpansionLoc(fd->getBeginLoc());
  for (const Attr *a : fd->attrs())
    if (a->getLocation().isValid()) {
      SourceLocation al = sm.getExpansionLoc(a->getLocation());
      if (sm.isBeforeInTranslationUnit(al, b) && sm.getFileID(al) == sm.getFileID(b)) b = al;
    }
  unsigned off = sm.getFileOffset(b);
  llvm::StringRef text = tu.mainFileText();
  while (off > 0 && text[off - 1] != '\n') --off; // the start of its line
  return off;
}

} // namespace nestor::lb
