// The recursion of a kernel that launches itself (Recursion.h): which launch
// is the self-launch, what it recurses over (the children of a node in a CSR
// pair, one thread per child), under which condition, how parameters change
// from level to level (a depth), and the post-order combination (a kernel in
// the tail-launch stream, the CDP2 way to run after the children's grids).
// Everything else is refused with the construct and its line: rec-hier and
// rec-flat map the children to other threads and run the levels in another
// order, which is only the same computation for this shape.
#include "nestor/Recursion.h"
#include "nestor/AstText.h"
#include "RecursionPatterns.h"
#include "ExprPatterns.h"
#include "ModelParts.h"
#include "nestor/CudaSemantics.h"
#include "nestor/StatementEffects.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

#include <optional>
#include <set>

namespace nestor {

using namespace clang;

namespace {

using namespace recpat;

class Matcher {
public:
  Matcher(const FunctionDecl *k, const ASTContext &ctx) : ctx_(ctx) { m_.kernel = k; }

  RecursionMatch run() {
    if (!match()) m_.shape.supported = false;
    else m_.shape.supported = true;
    return std::move(m_);
  }

private:
  const ASTContext &ctx_;
  RecursionMatch m_;
  /// Locals the kernel declares before its loop over the children: the
  /// node's own values (`start = offsets[node]`, `n = offsets[node + 1] -
  /// start`), which the loop's bounds and the child's index may name.
  std::vector<const Stmt *> leading_;
  /// Locals the kernel writes anywhere (a leading local written is not the node's value).
  std::set<const VarDecl *> kernelWrites_;

  bool no(const std::string &why, SourceSpan at) {
    m_.shape.reason = why;
    m_.shape.reasonSpan = at;
    return false;
  }
  bool no(const std::string &why, const Stmt *at) { return no(why + " (" + lineText(spanOf(at, ctx_)) + ")", spanOf(at, ctx_)); }
  SourceSpan span(const Stmt *s) const { return spanOf(s, ctx_); }

  bool isSelf(const CUDAKernelCallExpr *call) const {
    const FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
    return fd && fd->getCanonicalDecl() == m_.kernel->getCanonicalDecl();
  }

  bool match() {
    const FunctionDecl *k = m_.kernel;
    auto *body = dyn_cast_or_null<CompoundStmt>(k->getBody());
    if (!body) return no("the kernel has no body", k->getBeginLoc().isValid() ? spanOf(k->getSourceRange(), ctx_) : SourceSpan{});
    // The self-launches, wherever they are.
    std::vector<const CUDAKernelCallExpr *> selfs;
    forEachNode(body, [&](const Stmt *s) {
      if (auto *c = dyn_cast<CUDAKernelCallExpr>(s); c && isSelf(c)) selfs.push_back(c);
    });
    if (selfs.empty())
      return no(k->getNameAsString() + " recurses through a call, not a launch of itself: only self-launches are mapped",
                spanOf(SourceRange(k->getLocation(), k->getLocation()), ctx_));
    if (selfs.size() > 1) return no("the kernel launches itself more than once", selfs[1]);
    m_.selfCall = selfs.front();
    StatementEffects all = effectsOf(body, ctx_);
    kernelWrites_ = all.writes;
    if (!all.deviceSyncs.empty()) return no("cudaDeviceSynchronize() in the kernel", all.deviceSyncs.front().span);
    if (!all.barriers.empty())
      return no("the kernel calls " + all.barriers.front().name + " (" + lineText(all.barriers.front().span) +
                    "): the rewrites run its threads for other children",
                all.barriers.front().span);
    if (!all.warpOps.empty())
      return no("the kernel uses " + all.warpOps.front().name + " (" + lineText(all.warpOps.front().span) +
                    "): the rewrites change which threads share a warp",
                all.warpOps.front().span);
    bool sharedFound = false;
    forEachNode(body, [&](const Stmt *s) {
      auto *ds = dyn_cast<DeclStmt>(s);
      if (!ds || sharedFound) return;
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d); vd && vd->hasAttr<CUDASharedAttr>()) {
          sharedFound = no("the kernel declares the __shared__ '" + vd->getNameAsString() +
                               "': the rewrites give each block other children",
                           s) || true;
          return;
        }
    });
    if (sharedFound) return false;

    // Top level: [post-order tail launch] slot declaration, guard, [post-order tail launch].
    std::vector<const Stmt *> top = statementsOf(body);
    std::vector<const Stmt *> perChild;
    bool haveSlot = false, haveGuard = false, earlyReturn = false;
    std::vector<const Stmt *> leading;
    for (const Stmt *s : top) {
      if (earlyReturn) { // after `if (slot >= end) return;` the rest is the per-child part
        perChild.push_back(s);
        continue;
      }
      if (auto *ifs = dyn_cast<IfStmt>(s); ifs && !ifs->getElse() && isFirstThreadOfGrid(ifs->getCond())) {
        if (!matchPost(ifs)) return false;
        continue;
      }
      if (!haveSlot && isa<DeclStmt>(s) && isa<ForStmt>(top.back()) && s != top.back()) {
        // Locals before a loop over the children: allowed only to name the
        // state a loop would carry between siblings (checkPre), see below.
        leading.push_back(s);
        continue;
      }
      if (!haveSlot && isa<ForStmt>(s)) {
        leading_ = leading;
        if (!matchChildLoop(cast<ForStmt>(s), perChild)) return false;
        haveSlot = haveGuard = true;
        continue;
      }
      if (!haveSlot) {
        if (!matchSlot(s)) return false;
        haveSlot = true;
        continue;
      }
      if (!haveGuard) {
        if (!matchGuard(s, perChild, earlyReturn)) return false;
        haveGuard = true;
        continue;
      }
      return no("statement outside the per-child part of the kernel", s);
    }
    if (!haveSlot || !haveGuard)
      return no("the self-launch is not inside a per-child part `slot = offsets[node] + global thread id; if (slot < "
                "offsets[node + 1]) {...}`: the recursion is not over CSR children",
                m_.selfCall);
    if (!matchPerChild(perChild)) return false;
    return checkLeading(leading);
  }

  /// The terms of a child slot `offsets[node] [+ blockIdx.x * blockDim.x +
  /// threadIdx.x]`, each at most once; `other`: any further term; `minus`:
  /// a subtraction or a '-' anywhere in it (both forms refuse those).
  struct SlotTerms {
    const ParmVarDecl *off = nullptr, *node = nullptr;
    bool tid = false, boff = false, other = false, minus = false;
  };
  SlotTerms slotTerms(const Expr *init) {
    SlotTerms st;
    std::vector<const Expr *> terms;
    additiveTerms(init, terms);
    for (const Expr *t : terms) {
      const Expr *idx = nullptr;
      if (const ParmVarDecl *p = subscriptParam(t, &idx); p && !st.off) {
        st.off = p;
        st.node = dyn_cast_or_null<ParmVarDecl>(varOf(idx));
      } else if (isComponent(t, "threadIdx") && !st.tid) st.tid = true;
      else if (isBlockOffset(t) && !st.boff) st.boff = true;
      else st.other = true;
    }
    st.minus = textOf(init, ctx_).find('-') != std::string::npos;
    forEachNode(init, [&](const Stmt *n) {
      if (auto *bo = dyn_cast<BinaryOperator>(n); bo && bo->getOpcode() == BO_Sub) st.minus = true;
    });
    return st;
  }
  void recordSlot(const VarDecl *vd, const SlotTerms &st) {
    m_.slot = vd;
    m_.offsets = st.off;
    m_.node = st.node;
    m_.shape.slotVar = vd->getNameAsString();
    m_.shape.offsets = st.off->getNameAsString();
    m_.shape.nodeParam = st.node->getNameAsString();
  }

  /// `for (T s = offsets[node] [+ global id]; s < offsets[node + 1]; s += step)`.
  bool matchChildLoop(const ForStmt *fs, std::vector<const Stmt *> &perChild) {
    auto *ds = dyn_cast_or_null<DeclStmt>(fs->getInit());
    auto *vd = ds && ds->isSingleDecl() ? dyn_cast<VarDecl>(ds->getSingleDecl()) : nullptr;
    const std::string notCsr = ": the recursion is not over CSR children";
    if (!vd || !vd->getInit()) return no("the loop does not declare its slot `s = offsets[node]`" + notCsr, fs);
    SlotTerms st = slotTerms(vd->getInit());
    bool strided = st.tid && st.boff;
    // Counting the children from 0 (Li, Wu and Becchi's recursive BFS):
    // `for (c = threadIdx.x; c < offsets[node + 1] - offsets[node]; c += blockDim.x)`.
    if (!st.off && st.tid && !st.other && !st.minus) return matchRelativeLoop(fs, vd, st.boff, perChild);
    if (!st.off || !st.node || st.other || st.tid != st.boff || st.minus)
      return no("the loop's start `" + textOf(vd->getInit(), ctx_) + "` is not offsets[node] (+ the global thread id)" + notCsr, fs);
    recordSlot(vd, st);
    auto *cmp = dyn_cast_or_null<BinaryOperator>(bare(fs->getCond()));
    if (!cmp || cmp->getOpcode() != BO_LT || varOf(cmp->getLHS()) != vd || !isEnd(cmp->getRHS()))
      return no("the loop's condition is not `" + m_.shape.slotVar + " < " + m_.shape.offsets + "[" + m_.shape.nodeParam +
                    " + 1]`" + notCsr,
                fs);
    const Expr *inc = bare(dyn_cast_or_null<Expr>(fs->getInc()));
    bool stepOk = false;
    if (auto *uo = dyn_cast_or_null<UnaryOperator>(inc); uo && uo->isIncrementOp() && varOf(uo->getSubExpr()) == vd)
      stepOk = !strided;
    else if (auto *ca = dyn_cast_or_null<CompoundAssignOperator>(inc);
             ca && ca->getOpcode() == BO_AddAssign && varOf(ca->getLHS()) == vd) {
      auto *lit = dyn_cast<IntegerLiteral>(bare(ca->getRHS()));
      auto *mul = dyn_cast<BinaryOperator>(bare(ca->getRHS()));
      bool gridStride = mul && mul->getOpcode() == BO_Mul &&
                        ((isComponent(mul->getLHS(), "blockDim") && isComponent(mul->getRHS(), "gridDim")) ||
                         (isComponent(mul->getLHS(), "gridDim") && isComponent(mul->getRHS(), "blockDim")));
      stepOk = strided ? gridStride : (lit && lit->getValue() == 1);
    }
    if (!stepOk)
      return no(std::string("the loop's step is not ") + (strided ? "blockDim.x * gridDim.x" : "1") +
                    ": threads would visit some children twice or not at all",
                fs);
    m_.serialLoop = !strided;
    perChild = statementsOf(fs->getBody());
    return true;
  }

  /// `e`, or the initialiser of the leading local it names (declared before
  /// the loop over the children, written nowhere in the kernel), followed
  /// through at most four such locals.
  const Expr *throughLeading(const Expr *e) const {
    e = bare(e);
    for (int depth = 0; depth < 4; ++depth) {
      const VarDecl *v = varOf(e);
      if (!v || isa<ParmVarDecl>(v) || !v->getInit() || kernelWrites_.count(v)) break;
      bool declaredThere = false;
      for (const Stmt *s : leading_)
        if (auto *ds = dyn_cast<DeclStmt>(s))
          for (const Decl *d : ds->decls())
            if (d == v) declaredThere = true;
      if (!declaredThere) break;
      e = bare(v->getInit());
    }
    return e;
  }
  /// `offsets[node]`, directly or through leading locals; the first match
  /// fixes which parameters are the offsets and the node.
  bool isStartOfNode(const Expr *e) {
    e = throughLeading(e);
    const Expr *idx = nullptr;
    const ParmVarDecl *off = subscriptParam(e, &idx);
    auto *node = idx ? dyn_cast_or_null<ParmVarDecl>(varOf(idx)) : nullptr;
    if (!off || !node) return false;
    if (m_.offsets && (off != m_.offsets || node != m_.node)) return false;
    m_.offsets = off;
    m_.node = node;
    return true;
  }
  /// `offsets[node + 1] - offsets[node]`, each part directly or through leading locals.
  bool isChildCount(const Expr *e) {
    auto *sub = dyn_cast<BinaryOperator>(throughLeading(e));
    return sub && sub->getOpcode() == BO_Sub && isStartOfNode(sub->getRHS()) && isEnd(throughLeading(sub->getLHS()));
  }

  /// `for (T c = threadIdx.x; c < count; c += blockDim.x)` (one block per
  /// node, its threads striding over the children) or the grid-stride form
  /// `c = blockIdx.x * blockDim.x + threadIdx.x; ...; c += blockDim.x *
  /// gridDim.x`, where count is offsets[node + 1] - offsets[node] and the
  /// child is children[offsets[node] + c] (checked in matchPerChild).
  bool matchRelativeLoop(const ForStmt *fs, const VarDecl *vd, bool gridStride, std::vector<const Stmt *> &perChild) {
    const std::string notCsr = ": the recursion is not over CSR children";
    auto *cmp = dyn_cast_or_null<BinaryOperator>(bare(fs->getCond()));
    if (!cmp || cmp->getOpcode() != BO_LT || varOf(cmp->getLHS()) != vd)
      return no("the loop's condition is not `" + vd->getNameAsString() + " < <number of children>`" + notCsr, fs);
    if (!isChildCount(cmp->getRHS()))
      return no("the loop counts from `" + textOf(vd->getInit(), ctx_) + "` up to `" + textOf(cmp->getRHS(), ctx_) +
                    "`, which is not the node's child count offsets[node + 1] - offsets[node]" + notCsr,
                fs);
    const Expr *inc = bare(dyn_cast_or_null<Expr>(fs->getInc()));
    auto *ca = dyn_cast_or_null<CompoundAssignOperator>(inc);
    const Expr *step = ca && ca->getOpcode() == BO_AddAssign && varOf(ca->getLHS()) == vd ? bare(ca->getRHS()) : nullptr;
    auto *mul = dyn_cast_or_null<BinaryOperator>(step);
    bool stepOk = gridStride ? mul && mul->getOpcode() == BO_Mul &&
                                   ((isComponent(mul->getLHS(), "blockDim") && isComponent(mul->getRHS(), "gridDim")) ||
                                    (isComponent(mul->getLHS(), "gridDim") && isComponent(mul->getRHS(), "blockDim")))
                             : step && isComponent(step, "blockDim");
    if (!stepOk)
      return no(std::string("the loop's step is not ") + (gridStride ? "blockDim.x * gridDim.x" : "blockDim.x") +
                    ": threads would visit some children twice or not at all",
                fs);
    m_.slot = vd;
    m_.shape.slotVar = vd->getNameAsString();
    m_.shape.offsets = m_.offsets->getNameAsString();
    m_.shape.nodeParam = m_.node->getNameAsString();
    m_.oneBlockPerNode = !gridStride;
    m_.slotRelative = true;
    perChild = statementsOf(fs->getBody());
    return true;
  }

  /// Locals before the loop over the children hold the node's own values:
  /// pure, and read by nothing the rewrites run per child.
  bool checkLeading(const std::vector<const Stmt *> &leading) {
    std::set<const VarDecl *> vars;
    for (const Stmt *s : leading) {
      StatementEffects fx = effectsOf(s, ctx_);
      if (fx.memWrite || fx.impureCall || !fx.atomics.empty() || fx.launch || !fx.threadIds.empty())
        return no("the kernel computes a local before its loop over the children with side effects or thread ids: "
                  "the rewrites run each child without it",
                  s);
      vars.insert(fx.declared.begin(), fx.declared.end());
    }
    std::vector<const Stmt *> perChildParts(m_.pre.begin(), m_.pre.end());
    if (m_.condition) perChildParts.push_back(m_.condition);
    for (const Expr *a : m_.selfCall->arguments()) perChildParts.push_back(a);
    for (const Stmt *s : perChildParts)
      for (const VarDecl *v : effectsOf(s, ctx_).reads)
        if (vars.count(v))
          return no("the child's statements read '" + v->getNameAsString() +
                        "', which the kernel computes once per node before its loop: the rewrites run each child "
                        "without it",
                    s);
    return true;
  }

  /// The self-launch ends every path of the per-child statements that
  /// reaches it: it is the last statement of each block around it, with
  /// only `if`s (without the launch in an `else`) in between. rec-flat
  /// then replays the child's statements with `return true` for the launch.
  bool launchEndsItsPath(const Stmt *s) {
    if (launchIn(s) == m_.selfCall) return true;
    if (auto *cs = dyn_cast<CompoundStmt>(s)) {
      if (cs->body_empty()) return false;
      for (const Stmt *c : cs->body())
        if (c != cs->body_back() && mentionsLaunch(c))
          return no("statement after the self-launch needs the child's results before its grid has finished (CDP2 "
                    "gives no such point): move it into a kernel launched into cudaStreamTailLaunch",
                    cs->body_back());
      return launchEndsItsPath(cs->body_back());
    }
    if (auto *ifs = dyn_cast<IfStmt>(s)) {
      if (ifs->getInit() || ifs->getConditionVariable()) return no("an `if` around the self-launch declares a variable", ifs);
      if (mentionsLaunch(ifs->getCond())) return no("the self-launch is in an `if`'s condition", ifs);
      if (ifs->getElse() && mentionsLaunch(ifs->getElse()))
        return no("the self-launch is in an `else` branch: only `if` branches around it are mapped", ifs);
      return launchEndsItsPath(ifs->getThen());
    }
    const char *what = isa<clang::ForStmt>(s) || isa<clang::WhileStmt>(s) || isa<clang::DoStmt>(s) ||
                               isa<clang::CXXForRangeStmt>(s)
                           ? "loop"
                       : isa<clang::SwitchStmt>(s) ? "switch"
                                                   : "statement the rewrites cannot map";
    return no(std::string("the self-launch is inside a ") + what +
                  " of the child's statements: only `if`s and blocks may lie between them and the launch",
              s);
  }

  bool matchPost(const IfStmt *ifs) {
    if (m_.postCall) return no("a second post-order launch", ifs);
    const CUDAKernelCallExpr *call = launchIn(single(ifs->getThen()));
    if (!call) return no("the first thread of the grid does something other than one tail launch", ifs);
    if (isSelf(call)) return no("the first thread of the grid launches the kernel itself", ifs);
    const Expr *stream = configArg(call, 3);
    bool tail = stream && textOf(stream, ctx_) == "cudaStreamTailLaunch";
    if (!tail) return no("the launch of the first thread is not into cudaStreamTailLaunch: it would not wait for the children", ifs);
    if (!launchesOneThread(call))
      return no("the post-order launch is not <<<1, 1, ...>>>: its threads would be replayed by one", ifs);
    m_.postCall = call;
    m_.postKernel = calleeDef(call);
    if (!m_.postKernel) return no("the post-order kernel's definition is not visible", ifs);
    m_.shape.postOrderKernel = m_.postKernel->getNameAsString();
    StatementEffects fx = effectsOf(m_.postKernel->getBody(), ctx_);
    if (fx.launch || !fx.barriers.empty() || !fx.warpOps.empty() || !fx.threadIds.empty() || !fx.deviceSyncs.empty())
      return no("the post-order kernel " + m_.shape.postOrderKernel +
                    " launches, synchronises or reads thread ids: it is replayed as a plain call",
                spanOf(m_.postKernel->getSourceRange(), ctx_));
    if (std::string why = identityInCallees(m_.postKernel->getBody()); !why.empty())
      return no("the post-order kernel " + m_.shape.postOrderKernel + " " + why + ": it is replayed as a plain call",
                spanOf(m_.postKernel->getSourceRange(), ctx_));
    for (const Expr *a : call->arguments()) {
      bool ok = true;
      forEachNode(a, [&](const Stmt *n) {
        if (auto *dre = dyn_cast<DeclRefExpr>(n))
          if (auto *vd = dyn_cast<VarDecl>(dre->getDecl()); vd && isLocalVar(vd) && !isa<ParmVarDecl>(vd)) ok = false;
      });
      StatementEffects ax = effectsOf(a, ctx_);
      if (!ok || ax.memWrite || ax.impureCall || !ax.atomics.empty())
        return no("the post-order launch argument `" + textOf(a, ctx_) + "` is not a pure expression of the parameters", a);
    }
    return true;
  }

  bool matchSlot(const Stmt *s) {
    auto *ds = dyn_cast<DeclStmt>(s);
    auto *vd = ds && ds->isSingleDecl() ? dyn_cast<VarDecl>(ds->getSingleDecl()) : nullptr;
    if (!vd || !vd->getInit())
      return no("expected the child slot `slot = offsets[node] + blockIdx.x * blockDim.x + threadIdx.x` first: the "
                "recursion is not over CSR children",
                s);
    SlotTerms st = slotTerms(vd->getInit());
    if (st.minus || !st.off || !st.node || !st.tid || !st.boff || st.other)
      return no("the slot `" + textOf(vd->getInit(), ctx_) +
                    "` is not offsets[node] + blockIdx.x * blockDim.x + threadIdx.x: the recursion is not over CSR children",
                s);
    recordSlot(vd, st);
    return true;
  }

  /// `offsets[node + 1]` (or `offsets[1 + node]`).
  bool isEnd(const Expr *e) const {
    const Expr *idx = nullptr;
    if (subscriptParam(e, &idx) != m_.offsets) return false;
    auto *bo = dyn_cast<BinaryOperator>(bare(idx));
    if (!bo || bo->getOpcode() != BO_Add) return false;
    auto one = [](const Expr *x) {
      auto *lit = dyn_cast<IntegerLiteral>(bare(x));
      return lit && lit->getValue() == 1;
    };
    return (varOf(bo->getLHS()) == m_.node && one(bo->getRHS())) || (varOf(bo->getRHS()) == m_.node && one(bo->getLHS()));
  }

  bool matchGuard(const Stmt *s, std::vector<const Stmt *> &perChild, bool &earlyReturn) {
    auto *ifs = dyn_cast<IfStmt>(s);
    auto *cmp = ifs ? dyn_cast<BinaryOperator>(bare(ifs->getCond())) : nullptr;
    if (!cmp || ifs->getElse())
      return no("expected the guard `if (slot < offsets[node + 1])` after the slot", s);
    if (cmp->getOpcode() == BO_LT && varOf(cmp->getLHS()) == m_.slot && isEnd(cmp->getRHS())) {
      perChild = statementsOf(ifs->getThen());
      return true;
    }
    if (cmp->getOpcode() == BO_GE && varOf(cmp->getLHS()) == m_.slot && isEnd(cmp->getRHS()) &&
        isa<ReturnStmt>(single(ifs->getThen()))) {
      earlyReturn = true; // the rest of the body follows
      return true;
    }
    return no("the guard `" + textOf(ifs->getCond(), ctx_) + "` does not bound the slot by " + m_.shape.offsets + "[" +
                  m_.shape.nodeParam + " + 1]: the recursion is not over the children of " + m_.shape.nodeParam,
              s);
  }

  bool matchPerChild(const std::vector<const Stmt *> &stmts) {
    if (stmts.empty()) return no("the per-child part is empty", m_.selfCall);
    // T child = children[slot];
    auto *ds = dyn_cast<DeclStmt>(stmts.front());
    auto *vd = ds && ds->isSingleDecl() ? dyn_cast<VarDecl>(ds->getSingleDecl()) : nullptr;
    const Expr *idx = nullptr;
    const ParmVarDecl *kids = vd && vd->getInit() ? subscriptParam(vd->getInit(), &idx) : nullptr;
    bool indexOk = kids && varOf(idx) == m_.slot;
    if (kids && m_.slotRelative) {
      // children[offsets[node] + c] (either order).
      std::vector<const Expr *> terms;
      additiveTerms(idx, terms);
      indexOk = terms.size() == 2 && ((varOf(terms[0]) == m_.slot && isStartOfNode(terms[1])) ||
                                      (varOf(terms[1]) == m_.slot && isStartOfNode(terms[0])));
      if (!indexOk)
        return no("the per-child part does not start with `child = " + kids->getNameAsString() + "[" +
                      m_.offsets->getNameAsString() + "[" + m_.node->getNameAsString() + "] + " + m_.shape.slotVar +
                      "]`: the recursion is not over CSR children",
                  stmts.front());
    }
    if (!indexOk)
      return no("the per-child part does not start with `child = children[slot]`: the recursion is not over CSR children",
                stmts.front());
    m_.child = vd;
    m_.children = kids;
    m_.shape.childVar = vd->getNameAsString();
    m_.shape.children = kids->getNameAsString();
    const std::string range = m_.shape.children + "[" + m_.shape.offsets + "[" + m_.shape.nodeParam + "] .. " +
                              m_.shape.offsets + "[" + m_.shape.nodeParam + " + 1])";
    m_.shape.mapping = m_.serialLoop ? "one thread (a <<<1, 1>>> grid) loops over " + range
                       : m_.oneBlockPerNode
                           ? "one block per node, its threads striding over " + range + " (" + m_.shape.slotVar +
                                 " from threadIdx.x by blockDim.x)"
                           : "one thread per child: " + m_.shape.slotVar + " = " + m_.shape.offsets + "[" +
                                 m_.shape.nodeParam + "] + global thread id over " + range;
    // Find the statement that holds the self-launch: the last one.
    size_t selfAt = stmts.size();
    for (size_t i = 1; i < stmts.size(); ++i)
      if (mentionsLaunch(stmts[i])) {
        selfAt = i;
        break;
      }
    if (selfAt == stmts.size()) return no("the self-launch is not a statement of the per-child part", m_.selfCall);
    if (selfAt + 1 != stmts.size())
      return no("statement after the self-launch needs the child's results before its grid has finished (CDP2 gives no "
                "such point): move it into a kernel launched into cudaStreamTailLaunch",
                stmts[selfAt + 1]);
    const Stmt *st = stmts[selfAt];
    m_.selfStmt = st;
    auto *plainIf = dyn_cast<IfStmt>(st);
    if (plainIf && launchIn(single(plainIf->getThen())) != m_.selfCall) plainIf = nullptr; // the launch is deeper
    if (auto *ifs = plainIf) {
      if (ifs->getElse()) return no("the recursion's `if` has an else branch", ifs->getElse());
      if (ifs->getInit() || ifs->getConditionVariable()) return no("the recursion's `if` declares a variable", ifs);
      m_.condition = ifs->getCond();
      m_.shape.condition = textOf(m_.condition, ctx_);
    } else if (launchIn(st) != m_.selfCall) {
      // The launch inside the child's own statements (Li, Wu and Becchi's
      // BFS: `if (improved) { n = ...; if (n != 0) K<<<1, n>>>(...); }`):
      // whether the child recurses is only known at the launch.
      if (!launchEndsItsPath(st)) return false;
      m_.launchInChildStatements = true;
    }
    for (size_t i = 1; i < selfAt; ++i) m_.pre.push_back(stmts[i]);
    if (m_.launchInChildStatements) m_.pre.push_back(st);
    if (std::optional<int64_t> grid = configValue(m_.selfCall, 0); m_.oneBlockPerNode && grid != 1)
      // The config call's arguments do not keep the spelling's locations: say the value.
      return no("the loop strides over the children by blockDim.x from threadIdx.x, but the self-launch's grid is " +
                    (grid ? std::to_string(*grid) + " blocks" : std::string("not a constant")) +
                    ", not one block: every block would visit every child",
                m_.selfCall);
    if (m_.serialLoop && !launchesOneThread(m_.selfCall))
      return no("the loop over the children runs in every thread of the self-launch's grid: each child would be visited "
                "once per thread (only a <<<1, 1>>> launch loops over them once)",
                m_.selfCall);
    if (!checkPre()) return false;
    if (!checkCondition()) return false;
    return checkSelfArgs();
  }

  /// Argument i of a launch's configuration (0 grid, 1 block, 2 shared
  /// memory, 3 stream) as written; null when absent or defaulted. Device-side
  /// launches configure through cudaLaunchDevice(buf, fn, grid, block, shmem, stream).
  const Expr *configArg(const CUDAKernelCallExpr *call, unsigned i) const {
    const CallExpr *cfg = call->getConfig();
    if (!cfg) return nullptr;
    i += cuda::calleeName(cfg) == "cudaLaunchDevice" ? 2 : 0;
    if (i >= cfg->getNumArgs() || isa<CXXDefaultArgExpr>(cfg->getArg(i))) return nullptr;
    return stripConversions(cfg->getArg(i));
  }
  /// Its value, when it is a constant.
  std::optional<int64_t> configValue(const CUDAKernelCallExpr *call, unsigned i) const {
    const Expr *e = configArg(call, i);
    Expr::EvalResult r;
    if (!e || e->isValueDependent() || !e->EvaluateAsInt(r, ctx_)) return std::nullopt;
    return r.Val.getInt().getExtValue();
  }
  /// A launch <<<1, 1, ...>>>.
  bool launchesOneThread(const CUDAKernelCallExpr *call) const {
    return configValue(call, 0) == 1 && configValue(call, 1) == 1;
  }

  bool mentionsLaunch(const Stmt *s) const {
    bool found = false;
    forEachNode(s, [&](const Stmt *n) {
      if (auto *c = dyn_cast<CUDAKernelCallExpr>(n); c && c == m_.selfCall) found = true;
    });
    return found;
  }

  /// A function `s` calls (any depth, any file) that reads the thread's
  /// identity or synchronises, or whose body is not visible: the rewrites
  /// run `s` in another thread, and a callee's built-ins cannot be renamed.
  /// Returns the refusal's text, or "" when there is none.
  std::string identityInCallees(const Stmt *s) const {
    cuda::CalleeUseQuery q;
    q.builtin = [](llvm::StringRef) { return true; };
    q.collectives = true;
    q.unknownBodies = true;
    std::optional<cuda::CalleeUse> use = cuda::calleeUse(s, q);
    if (!use) return "";
    const std::string f = "'" + use->callee + "'";
    if (use->what.empty()) return "calls " + cuda::unseenCall(*use);
    return "calls " + f + ", which " + (cuda::isThreadIdBuiltinName(use->what) ? "reads " : "calls ") + use->what;
  }

  bool checkPre() {
    std::set<const VarDecl *> declaredHere{m_.child};
    for (const Stmt *s : m_.pre) {
      StatementEffects fx = effectsOf(s, ctx_);
      bool otherLaunch = false;
      forEachNode(s, [&](const Stmt *n) {
        if (auto *c = dyn_cast<CUDAKernelCallExpr>(n); c && c != m_.selfCall) otherLaunch = true;
      });
      if (otherLaunch || (fx.launch && !mentionsLaunch(s))) return no("a pre-order statement launches a kernel", s);
      if (fx.ret || fx.jump) return no("a pre-order statement leaves the per-child part early", s);
      if (fx.lambda) return no("a pre-order statement defines a lambda", s);
      if (!fx.threadIds.empty())
        return no("a pre-order statement reads " + *fx.threadIds.begin() +
                      ": the rewrites run each child's statements in another thread",
                  s);
      if (std::string why = identityInCallees(s); !why.empty())
        return no("a pre-order statement " + why + ": the rewrites run each child's statements in another thread", s);
      // The slot read (the child's position among its siblings) is passed
      // to the child's statements; written, it would change which child the
      // next statements see.
      if (fx.writes.count(m_.slot))
        return no("a pre-order statement writes the slot '" + m_.shape.slotVar + "'", s);
      if (fx.reads.count(m_.slot)) m_.preReadsSlot = true;
      for (const VarDecl *w : fx.writes)
        if (!declaredHere.count(w) && !fx.declared.count(w))
          return no("a pre-order statement writes '" + w->getNameAsString() +
                        "', declared outside the per-child part: state carried between siblings",
                    s);
      declaredHere.insert(fx.declared.begin(), fx.declared.end());
    }
    return true;
  }

  bool checkCondition() {
    if (m_.launchInChildStatements) {
      m_.conditionOnTreeOnly = false;
      m_.conditionNotOnTree = "the self-launch is inside the child's statements (" + lineText(span(m_.selfCall)) +
                              "): whether a child recurses is known only after them";
      m_.shape.condition = "decided inside the child's statements (" + lineText(span(m_.selfCall)) + ")";
      return true;
    }
    if (!m_.condition) {
      m_.conditionOnTreeOnly = true;
      return true;
    }
    StatementEffects fx = effectsOf(m_.condition, ctx_);
    if (fx.launch) return no("the recursion condition `" + m_.shape.condition + "` launches a kernel", m_.condition);
    if (std::string why = identityInCallees(m_.condition); !why.empty())
      return no("the recursion condition `" + m_.shape.condition + "` " + why +
                    ": the rewrites evaluate it in another thread",
                m_.condition);
    if (fx.memWrite || fx.impureCall || !fx.atomics.empty() || !fx.writes.empty()) {
      // Evaluated once per child, after its pre-order statements (rec-flat
      // keeps that); never ahead of them (rec-hier refuses).
      m_.conditionOnTreeOnly = false;
      m_.conditionNotOnTree = "the recursion condition `" + m_.shape.condition + "` has side effects";
      return true;
    }
    if (!fx.threadIds.empty() || fx.reads.count(m_.slot))
      return no("the recursion condition `" + m_.shape.condition + "` reads the thread's identity", m_.condition);
    collectWrittenParams(m_.kernel->getBody(), m_.writtenParams);
    if (m_.postKernel) {
      // The post-order kernel writes through its own parameters: map them to the arguments.
      std::vector<const VarDecl *> postWritten;
      collectWrittenParams(m_.postKernel->getBody(), postWritten);
      for (const VarDecl *pw : postWritten)
        for (unsigned i = 0; i < m_.postKernel->getNumParams() && i < m_.postCall->getNumArgs(); ++i)
          if (m_.postKernel->getParamDecl(i) == pw)
            forEachNode(m_.postCall->getArg(i), [&](const Stmt *n) {
              if (auto *dre = dyn_cast<DeclRefExpr>(n))
                if (auto *p = dyn_cast<ParmVarDecl>(dre->getDecl()))
                  if (std::find(m_.writtenParams.begin(), m_.writtenParams.end(), p) == m_.writtenParams.end())
                    m_.writtenParams.push_back(p);
            });
    }
    // Does the condition depend on the tree only? Follow the locals it reads
    // back to their initialisers in the pre-order statements.
    std::set<const VarDecl *> todo(fx.reads.begin(), fx.reads.end()), seen;
    m_.conditionOnTreeOnly = true;
    auto fail = [&](const std::string &why) {
      if (m_.conditionOnTreeOnly) m_.conditionNotOnTree = why;
      m_.conditionOnTreeOnly = false;
    };
    std::vector<const Expr *> exprs{m_.condition};
    while (!todo.empty()) {
      const VarDecl *v = *todo.begin();
      todo.erase(todo.begin());
      if (!seen.insert(v).second || v == m_.child || isa<ParmVarDecl>(v)) continue;
      const Stmt *decl = nullptr;
      for (const Stmt *s : m_.pre)
        if (auto *ds = dyn_cast<DeclStmt>(s))
          for (const Decl *d : ds->decls())
            if (d == v) decl = s;
      if (!decl || !v->getInit()) {
        fail("the recursion condition reads '" + v->getNameAsString() + "', which is not initialised from the tree");
        continue;
      }
      StatementEffects lx = effectsOf(v->getInit(), ctx_);
      for (const Stmt *s : m_.pre)
        if (effectsOf(s, ctx_).writes.count(v) && s != decl)
          fail("the recursion condition reads '" + v->getNameAsString() + "', which a pre-order statement changes");
      if (lx.memWrite || lx.impureCall || !lx.atomics.empty())
        fail("the recursion condition reads '" + v->getNameAsString() + "', whose initialiser has side effects");
      todo.insert(lx.reads.begin(), lx.reads.end());
      exprs.push_back(v->getInit());
    }
    for (const Expr *e : exprs)
      forEachNode(e, [&](const Stmt *n) {
        if (auto *dre = dyn_cast<DeclRefExpr>(n))
          if (auto *p = dyn_cast<ParmVarDecl>(dre->getDecl()))
            if (std::find(m_.writtenParams.begin(), m_.writtenParams.end(), p) != m_.writtenParams.end())
              fail("the recursion condition reads '" + p->getNameAsString() + "', which the kernel writes");
        if (isa<CallExpr>(n) && !cuda::classifyCall(cast<CallExpr>(n)).pure)
          fail("the recursion condition calls " + cuda::calleeName(cast<CallExpr>(n)));
      });
    return true;
  }

  bool checkSelfArgs() {
    const CUDAKernelCallExpr *c = m_.selfCall;
    const FunctionDecl *k = m_.kernel;
    if (c->getNumArgs() != k->getNumParams()) return no("the self-launch passes a different number of arguments", c);
    bool nodeSeen = false;
    for (unsigned i = 0; i < k->getNumParams(); ++i) {
      const ParmVarDecl *p = k->getParamDecl(i);
      const Expr *a = c->getArg(i);
      if (p == m_.node) {
        if (varOf(a) != m_.child)
          return no("the self-launch passes `" + textOf(a, ctx_) + "` for '" + p->getNameAsString() +
                        "', not the child: the recursion is not over the children",
                    a);
        nodeSeen = true;
        continue;
      }
      if (varOf(a) == p) continue;
      if (p == m_.offsets || p == m_.children)
        return no("the self-launch passes `" + textOf(a, ctx_) + "` for '" + p->getNameAsString() +
                      "': the children must stay in the same CSR arrays",
                  a);
      StatementEffects ax = effectsOf(a, ctx_);
      if (ax.memWrite || ax.impureCall || !ax.atomics.empty() || !ax.threadIds.empty() || ax.reads.count(m_.slot))
        return no("the self-launch argument `" + textOf(a, ctx_) + "` is not a pure expression of the parameters and the child", a);
      for (const VarDecl *r : ax.reads)
        if (!isa<ParmVarDecl>(r) && r != m_.child)
          return no("the self-launch argument `" + textOf(a, ctx_) + "` reads the local '" + r->getNameAsString() + "'", a);
      m_.shape.varyingParams.push_back(p->getNameAsString() + " = " + textOf(a, ctx_));
      // p + 1: the recursion depth.
      if (auto *bo = dyn_cast<BinaryOperator>(bare(a)); bo && bo->getOpcode() == BO_Add && varOf(bo->getLHS()) == p)
        if (auto *lit = dyn_cast<IntegerLiteral>(bare(bo->getRHS())); lit && lit->getValue() == 1) {
          m_.shape.depthParam = p->getNameAsString();
          if (m_.condition && mentionsVar(m_.condition, p)) m_.shape.depthBound = m_.shape.condition;
        }
    }
    if (!nodeSeen) return no("the node is not a parameter", c);
    return true;
  }
};

} // namespace

RecursionMatch matchRecursion(const FunctionDecl *kernel, const ASTContext &ctx) { return Matcher(kernel, ctx).run(); }

void addRecursion(AnalyzedTU &tu) {
  FileModel &m = tu.model();
  const ASTContext &ctx = tu.astContext();
  for (Kernel &k : m.kernels) {
    if (!k.isRecursive) continue;
    const FunctionDecl *fd = tu.functionDecl(k.name);
    if (!fd || !fd->hasBody()) continue;
    RecursionMatch rm = matchRecursion(fd, ctx);
    RecursionShape &r = rm.shape;
    auto idOf = [&](const CUDAKernelCallExpr *call) {
      if (!call) return -1;
      unsigned off = spanOf(call, ctx).begin.offset;
      for (const LaunchSite &l : m.launches)
        if (l.span.begin.offset == off) return l.id;
      return -1;
    };
    r.selfLaunch = idOf(rm.selfCall);
    r.postOrderLaunch = idOf(rm.postCall);
    for (int id : k.launchedBy)
      if (!m.launches[size_t(id)].deviceSide) r.hostLaunches.push_back(id);
    // A loop over the children in every thread visits each child once only in a <<<1, 1>>> grid.
    if (r.supported && rm.serialLoop)
      for (int id : r.hostLaunches) {
        const LaunchSite &l = m.launches[size_t(id)];
        if (l.gridValue == std::optional<uint64_t>(1) && l.blockValue == std::optional<uint64_t>(1)) continue;
        r.supported = false;
        r.reason = "the host launch at " + lineText(l.span) + " starts " + k.name +
                   " with more than one thread: each would loop over every child of the root";
        r.reasonSpan = l.span;
        break;
      }
    // Launched from another kernel too: the rewrites replace the host launches only.
    for (int id : k.launchedBy) {
      const LaunchSite &l = m.launches[size_t(id)];
      if (r.supported && l.deviceSide && l.parent != k.name) {
        r.supported = false;
        r.reason = k.name + " is also launched from " + l.parent + " (" + lineText(l.span) +
                   "): only its host launches start the recursion";
        r.reasonSpan = l.span;
      }
    }
    k.recursion = std::move(r);
  }
}

} // namespace nestor
