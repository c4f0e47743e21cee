// Memory dependences of a loop (LoopDependence.h). Every access of the body
// to memory that outlives an iteration is collected with its root (the array
// or pointer it goes through), its index split into additive terms, how it is
// used (read, write, read-modify-write, atomic, address escaping) and the
// branches around it. Then each written root is judged against every access
// of the roots it may alias. What is not proven safe is a dependence: the
// analysis never answers "independent" because it could not see a write.
#include "LoopDependence.h"
#include "nestor/AstText.h"
#include "ExprPatterns.h"
#include "nestor/CudaSemantics.h"
#include "nestor/StatementEffects.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

namespace nestor {

using namespace clang;

namespace {

enum class Use { Read, Write, ReadWrite, Escape };

/// One additive term of an index: `neg ? -1 : 1` times `e` (times `factor`
/// when a product was distributed: `(y + j) * w` is `y*w + j*w`).
struct Term {
  const Expr *e = nullptr;
  bool neg = false;
  const Expr *factor = nullptr;
};

/// The additive terms of `e`, through parentheses and casts, distributing a
/// product of a sum by one factor.
void splitTerms(const Expr *e, bool neg, const Expr *factor, std::vector<Term> &out, int depth = 0) {
  const Expr *x = e->IgnoreParenImpCasts();
  if (auto *ce = dyn_cast<CStyleCastExpr>(x); ce && ce->getType()->isIntegerType())
    x = ce->getSubExpr()->IgnoreParenImpCasts();
  if (depth < 6)
    if (auto *bo = dyn_cast<BinaryOperator>(x)) {
      if (bo->getOpcode() == BO_Add || bo->getOpcode() == BO_Sub) {
        splitTerms(bo->getLHS(), neg, factor, out, depth + 1);
        splitTerms(bo->getRHS(), bo->getOpcode() == BO_Sub ? !neg : neg, factor, out, depth + 1);
        return;
      }
      if (bo->getOpcode() == BO_Mul && !factor) {
        const Expr *l = bo->getLHS()->IgnoreParenImpCasts(), *r = bo->getRHS()->IgnoreParenImpCasts();
        auto isSum = [](const Expr *y) {
          auto *b = dyn_cast<BinaryOperator>(y);
          return b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub);
        };
        if (isSum(l)) { splitTerms(l, neg, r, out, depth + 1); return; }
        if (isSum(r)) { splitTerms(r, neg, l, out, depth + 1); return; }
      }
    }
  out.push_back({x, neg, factor});
}

/// The array or pointer an access goes through.
struct Root {
  std::string key;              ///< identity (canonical text)
  std::string text;             ///< as written, for messages
  const VarDecl *var = nullptr; ///< the variable behind it, when there is one
  bool pointer = false;         ///< a pointer or reference: may point into other roots
  bool restrict = false;        ///< `__restrict__`
  bool privateArray = false;    ///< an array of this thread (local, not `__shared__`)
  bool unstable = false;        ///< the pointer itself changes in the loop: index unknown
  bool unknown = false;         ///< not a name Nestor can follow
  /// A pointer to const: taken as memory the kernel only reads, which does
  /// not overlap what it writes (the stated assumption; drop the const to
  /// say otherwise).
  bool readOnly = false;
  QualType elem;                ///< element type, for the aliasing rule
};

struct Access {
  Root root;
  std::vector<std::vector<Term>> dims; ///< index per dimension, additive terms
  std::string field;                   ///< `.f` / `->f` below the element
  Use use = Use::Read;
  bool atomic = false;
  bool commutativeAtomic = false;
  const Expr *stored = nullptr;        ///< the value of a plain `=` store
  const Expr *at = nullptr;
  const IfStmt *conditionOf = nullptr; ///< the `if` whose condition holds this access
  std::vector<const IfStmt *> thenOf;  ///< the `if`s whose then-branch holds it
};

bool isCommutativeAtomic(llvm::StringRef n) {
  n.consume_front("__");
  for (llvm::StringRef op : {"atomicAdd", "atomicSub", "atomicMin", "atomicMax", "atomicInc", "atomicDec",
                             "atomicAnd", "atomicOr", "atomicXor", "atomic_fetch_add", "atomic_fetch_sub",
                             "atomic_fetch_min", "atomic_fetch_max", "atomic_fetch_and", "atomic_fetch_or",
                             "atomic_fetch_xor"})
    if (n == op || n.starts_with((op + "_").str())) return true;
  return false;
}

/// Functions declared in a system header (the CUDA and C++ headers) that
/// take nothing by non-const reference or non-const pointer: `__ldg`,
/// conversions, math. They read at most what they are given.
bool isReadOnlySystemFunction(const FunctionDecl *fd, const SourceManager &sm) {
  if (!fd || !sm.isInSystemHeader(fd->getLocation())) return false;
  if (isa<CXXMethodDecl>(fd) && !cast<CXXMethodDecl>(fd)->isConst() && !cast<CXXMethodDecl>(fd)->isStatic())
    return false;
  for (const ParmVarDecl *p : fd->parameters()) {
    QualType t = p->getType();
    if (isNonConstReference(t)) return false;
    if (t->isPointerType() && !t->getPointeeType().isConstQualified()) return false;
  }
  return !fd->isVariadic();
}

class DependenceAnalysis {
public:
  DependenceAnalysis(const Stmt *body, const VarDecl *iv, const std::set<const VarDecl *> &inner, ASTContext &ctx,
                     LoopSite &loop)
      : body_(body), iv_(iv), inner_(inner), ctx_(ctx), sm_(ctx.getSourceManager()), loop_(loop) {}

  void run() {
    collectWrittenVars(body_);
    collectInnerLoops(body_);
    visit(body_, Use::Read);
    judge();
  }

private:
  // ------------------------------------------------------------- variables

  bool isInner(const VarDecl *vd) const { return inner_.count(vd) != 0; }

  /// Locals and parameters the body assigns, increments, takes the address
  /// of or hands to a non-const reference: their value is not the same in
  /// every iteration.
  void collectWrittenVars(const Stmt *s) {
    forEachNode(s, [&](const Stmt *n) {
      auto note = [&](const Expr *e) {
        if (!e) return;
        e = e->IgnoreParenImpCasts();
        while (auto *me = dyn_cast<MemberExpr>(e)) {
          if (me->isArrow()) return;
          e = me->getBase()->IgnoreParenImpCasts();
        }
        if (auto *vd = referencedVar(e)) written_.insert(vd);
      };
      if (auto *bo = dyn_cast<BinaryOperator>(n); bo && bo->isAssignmentOp()) note(bo->getLHS());
      if (auto *uo = dyn_cast<UnaryOperator>(n); uo && (uo->isIncrementDecrementOp() || uo->getOpcode() == UO_AddrOf))
        note(uo->getSubExpr());
      if (auto *oc = dyn_cast<CXXOperatorCallExpr>(n); oc && oc->getNumArgs() > 0 && writesFirstOperand(oc))
        note(oc->getArg(0));
      if (auto *mc = dyn_cast<CXXMemberCallExpr>(n))
        if (auto *md = mc->getMethodDecl(); md && !md->isConst()) note(mc->getImplicitObjectArgument());
      if (auto *ce = dyn_cast<CallExpr>(n)) {
        const FunctionDecl *fd = ce->getDirectCallee();
        for (unsigned i = 0; fd && i < ce->getNumArgs() && i < fd->getNumParams(); ++i) {
          QualType t = fd->getParamDecl(i)->getType();
          if (isNonConstReference(t)) note(ce->getArg(i));
        }
      }
      if (auto *ds = dyn_cast<DeclStmt>(n))
        for (const Decl *d : ds->decls())
          if (auto *vd = dyn_cast<VarDecl>(d); vd && vd->hasInit() && isNonConstReference(vd->getType()))
            note(vd->getInit());
    });
  }

  /// `for (int j = 0; j < M; ++j)` inside the body: j stays in [0, M), so
  /// `i * M + j` is one-to-one in i.
  void collectInnerLoops(const Stmt *s) {
    forEachNode(s, [&](const Stmt *n) {
      auto *fs = dyn_cast<ForStmt>(n);
      if (!fs) return;
      auto *ds = dyn_cast_or_null<DeclStmt>(fs->getInit());
      if (!ds || !ds->isSingleDecl()) return;
      auto *j = dyn_cast<VarDecl>(ds->getSingleDecl());
      if (!j || !j->hasInit()) return;
      Expr::EvalResult lo;
      if (j->getInit()->isValueDependent() || !j->getInit()->EvaluateAsInt(lo, ctx_) || lo.Val.getInt().isNegative())
        return;
      auto *cond = dyn_cast_or_null<BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
      if (!cond || cond->getOpcode() != BO_LT || referencedVar(cond->getLHS()) != j) return;
      auto *inc = dyn_cast_or_null<UnaryOperator>(fs->getInc() ? fs->getInc()->IgnoreParenImpCasts() : nullptr);
      if (!inc || !inc->isIncrementOp() || referencedVar(inc->getSubExpr()) != j) return;
      // j itself must change only in the header.
      unsigned writes = 0;
      forEachNode(fs, [&](const Stmt *m) {
        if (auto *bo = dyn_cast<BinaryOperator>(m); bo && bo->isAssignmentOp() && referencedVar(bo->getLHS()) == j) ++writes;
        if (auto *uo = dyn_cast<UnaryOperator>(m); uo && (uo->isIncrementDecrementOp() || uo->getOpcode() == UO_AddrOf) &&
                                                   referencedVar(uo->getSubExpr()) == j)
          ++writes;
      });
      if (writes != 1) return;
      innerLoopBound_[j] = cond->getRHS();
    });
  }

  /// An inner variable assigned once, by its initialiser.
  const Expr *singleAssignmentInit(const VarDecl *vd) const {
    if (!vd || !isInner(vd) || !vd->hasInit() || written_.count(vd) || vd->getType()->isReferenceType()) return nullptr;
    return vd->getInit();
  }

  // ---------------------------------------------------------- canonical text

  /// A canonical spelling: variables by identity, literals by value, so that
  /// two accesses compare equal exactly when they name the same element.
  std::string canon(const Expr *e, int depth = 0) const {
    if (!e) return "?";
    e = e->IgnoreParenImpCasts();
    if (auto *ce = dyn_cast<CastExpr>(e)) e = ce->getSubExpr()->IgnoreParenImpCasts();
    if (depth > 8) return textOf(e, ctx_);
    if (auto c = builtinText(e)) return *c;
    if (auto *dr = dyn_cast<DeclRefExpr>(e)) {
      if (auto *vd = dyn_cast<VarDecl>(dr->getDecl())) {
        if (const Expr *init = singleAssignmentInit(vd)) return "(" + canon(init, depth + 1) + ")";
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "#%p", static_cast<const void *>(dr->getDecl()->getCanonicalDecl()));
      return dr->getDecl()->getNameAsString() + buf;
    }
    if (auto *il = dyn_cast<IntegerLiteral>(e)) return llvm::toString(il->getValue(), 10, true);
    if (auto *bo = dyn_cast<BinaryOperator>(e))
      return "(" + canon(bo->getLHS(), depth + 1) + " " + bo->getOpcodeStr().str() + " " + canon(bo->getRHS(), depth + 1) + ")";
    if (auto *uo = dyn_cast<UnaryOperator>(e))
      return std::string(UnaryOperator::getOpcodeStr(uo->getOpcode())) + "(" + canon(uo->getSubExpr(), depth + 1) + ")";
    if (auto *as = dyn_cast<ArraySubscriptExpr>(e))
      return canon(as->getBase(), depth + 1) + "[" + canon(as->getIdx(), depth + 1) + "]";
    if (auto *me = dyn_cast<MemberExpr>(e))
      return canon(me->getBase(), depth + 1) + (me->isArrow() ? "->" : ".") + me->getMemberDecl()->getNameAsString();
    return textOf(e, ctx_);
  }

  static std::optional<std::string> builtinText(const Expr *e) {
    if (auto b = cuda::builtinComponent(e)) return b->builtin + "." + std::string(1, b->axis);
    return std::nullopt;
  }

  // ------------------------------------------------------------ invariance

  /// The same value in every iteration: no induction variable, no variable
  /// the body changes, no load of memory the body writes, no call with
  /// effects or a per-call result.
  bool invariant(const Expr *e, int depth = 0) const {
    if (!e) return true;
    if (depth > 8) return false;
    bool ok = true;
    std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
      if (!s || !ok) return;
      if (auto *ex = dyn_cast<Expr>(s); ex && builtinText(ex)) return;
      if (auto *dr = dyn_cast<DeclRefExpr>(s)) {
        auto *vd = dyn_cast<VarDecl>(dr->getDecl());
        if (!vd) return;
        if (vd == iv_ || written_.count(vd)) { ok = false; return; }
        if (isInner(vd)) {
          const Expr *init = singleAssignmentInit(vd);
          if (!init || !invariant(init, depth + 1)) ok = false;
          return;
        }
        if (!vd->hasLocalStorage() && !isa<ParmVarDecl>(vd) && !vd->getType().isConstQualified() &&
            !vd->isConstexpr() && !cuda::isThreadIdBuiltin(vd) && writtenRootKeys_.count(vd->getNameAsString()))
          ok = false;
        return;
      }
      if (auto *as = dyn_cast<ArraySubscriptExpr>(s)) {
        std::vector<const Expr *> idx;
        const Expr *base = arrayRoot(as, idx);
        if (mayLoadWritten(base)) { ok = false; return; }
      }
      if (auto *uo = dyn_cast<UnaryOperator>(s)) {
        if (uo->isIncrementDecrementOp()) { ok = false; return; }
        if (uo->getOpcode() == UO_Deref && mayLoadWritten(uo->getSubExpr())) { ok = false; return; }
      }
      if (auto *me = dyn_cast<MemberExpr>(s); me && me->isArrow() && mayLoadWritten(me->getBase())) { ok = false; return; }
      if (auto *bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) { ok = false; return; }
      if (auto *ce = dyn_cast<CallExpr>(s)) {
        cuda::CallMeaning m = cuda::classifyCall(ce);
        if (m.threadVarying || m.atomic || m.warp || m.barrier) { ok = false; return; }
        if (!m.pure && !isReadOnlySystemFunction(ce->getDirectCallee(), sm_) && !pureUser(ce)) { ok = false; return; }
      }
      if (auto *po = dyn_cast<PseudoObjectExpr>(s)) { walk(po->getSyntacticForm()); return; }
      for (const Stmt *c : s->children()) walk(c);
    };
    walk(e);
    return ok;
  }

  bool pureUser(const CallExpr *ce) const {
    StatementEffects fx = effectsOf(ce, ctx_);
    return !fx.impureCall && !fx.memWrite && fx.atomics.empty() && !fx.warp && !fx.barrier && !fx.launch;
  }

  /// Whether a load through `base` may read memory the loop writes. Before
  /// the accesses are collected (first pass) everything may.
  bool mayLoadWritten(const Expr *base) const {
    if (!judging_) return true;
    std::vector<std::vector<Term>> dims(1);
    std::string field;
    Root r = resolve(base, dims, field, 0);
    if (iterationsOwnArray(r)) return false;
    for (const Access &a : accesses_)
      if (a.use != Use::Read && mayAlias(r, a.root)) return true;
    return false;
  }

  // ------------------------------------------------------------------ roots

  static bool isWmmaObject(QualType t) {
    const CXXRecordDecl *rd = t.getNonReferenceType()->getAsCXXRecordDecl();
    for (const DeclContext *dc = rd ? rd->getDeclContext() : nullptr; dc; dc = dc->getParent())
      if (auto *ns = dyn_cast<NamespaceDecl>(dc); ns && ns->getName() == "wmma") return true;
    return false;
  }

  static QualType elementOf(QualType t) {
    // Invalid code (a recovery expression, an undeclared name) can leave an
    // expression without a type: no element type, and no crash.
    if (t.isNull()) return t;
    t = t.getNonReferenceType();
    while (true) {
      if (t->isPointerType()) t = t->getPointeeType();
      else if (const ArrayType *at = t->getAsArrayTypeUnsafe()) t = at->getElementType();
      else break;
    }
    return t.getUnqualifiedType().getCanonicalType();
  }

  Root rootOfVar(const VarDecl *vd, const Expr *ref) const {
    Root r;
    r.var = vd;
    r.text = vd->getNameAsString();
    r.key = canon(ref);
    QualType t = vd->getType();
    r.pointer = t->isPointerType() || t->isReferenceType();
    r.restrict = t->isPointerType() && t.isRestrictQualified();
    r.readOnly = t->isPointerType() && t->getPointeeType().isConstQualified();
    r.privateArray = t->isArrayType() && vd->hasLocalStorage() && !vd->hasAttr<CUDASharedAttr>();
    r.unstable = r.pointer && written_.count(vd);
    r.elem = elementOf(t);
    return r;
  }

  /// The root of an address expression; pointer arithmetic and `&a[k]` fold
  /// into the index (`dims`, outermost first; dims[0] is the element the
  /// address itself points at).
  Root resolve(const Expr *e, std::vector<std::vector<Term>> &dims, std::string &field, int depth) const {
    Root unknown;
    unknown.unknown = true;
    unknown.pointer = true;
    if (!e || depth > 6) return unknown;
    e = e->IgnoreParenImpCasts();
    if (auto *ce = dyn_cast<CStyleCastExpr>(e)) return resolve(ce->getSubExpr(), dims, field, depth + 1);
    unknown.key = canon(e);
    unknown.text = textOf(e, ctx_);
    unknown.elem = elementOf(e->getType());
    if (auto *dr = dyn_cast<DeclRefExpr>(e)) {
      auto *vd = dyn_cast<VarDecl>(dr->getDecl());
      if (!vd) return unknown;
      if (isInner(vd)) {
        if (vd->getType()->isArrayType()) {
          Root r = rootOfVar(vd, dr);
          r.privateArray = !vd->hasAttr<CUDASharedAttr>();
          return r;
        }
        if (const Expr *init = singleAssignmentInit(vd)) return resolve(init, dims, field, depth + 1);
        return unknown;
      }
      return rootOfVar(vd, dr);
    }
    if (auto *bo = dyn_cast<BinaryOperator>(e); bo && (bo->getOpcode() == BO_Add || bo->getOpcode() == BO_Sub)) {
      const Expr *ptr = bo->getLHS(), *off = bo->getRHS();
      if (!ptr->getType()->isPointerType() && !ptr->getType()->isArrayType()) std::swap(ptr, off);
      if (!ptr->getType()->isPointerType() && !ptr->getType()->isArrayType()) return unknown;
      // `p + k`: the element k past p; `p - k`: negated.
      splitTerms(off, bo->getOpcode() == BO_Sub, nullptr, dims[0]);
      return resolve(ptr, dims, field, depth + 1);
    }
    if (auto *uo = dyn_cast<UnaryOperator>(e); uo && uo->getOpcode() == UO_AddrOf) {
      const Expr *sub = uo->getSubExpr()->IgnoreParenImpCasts();
      if (auto *as = dyn_cast<ArraySubscriptExpr>(sub)) {
        std::vector<const Expr *> idx;
        const Expr *base = arrayRoot(as, idx);
        std::vector<std::vector<Term>> inner(1);
        std::string innerField;
        Root r = resolve(base, inner, innerField, depth + 1);
        // &a[i][k] + j == &a[i][k + j]: the outer offset joins the last index.
        std::vector<std::vector<Term>> merged;
        for (size_t d = 0; d < idx.size(); ++d) {
          std::vector<Term> terms = d == 0 ? inner[0] : std::vector<Term>{};
          splitTerms(idx[d], false, nullptr, terms);
          if (d + 1 == idx.size())
            for (const Term &t : dims[0]) terms.push_back(t);
          merged.push_back(std::move(terms));
        }
        if (inner.size() > 1) return unknown;
        for (size_t d = 1; d < dims.size(); ++d) merged.push_back(dims[d]);
        dims = std::move(merged);
        return r;
      }
      if (auto *dr = dyn_cast<DeclRefExpr>(sub)) {
        // &x: the variable itself (a global or an object), one element.
        if (auto *vd = dyn_cast<VarDecl>(dr->getDecl())) return rootOfVar(vd, dr);
      }
      return unknown;
    }
    if (auto *me = dyn_cast<MemberExpr>(e)) {
      // `g.rows` (a pointer or array member of an object) or `p->rows`
      // (a pointer loaded from memory): named by its text; its base changing
      // in the loop makes it unstable.
      Root r;
      r.key = canon(me);
      r.text = textOf(me, ctx_);
      QualType t = me->getType();
      r.pointer = t->isPointerType() || t->isReferenceType() || me->isArrow();
      r.restrict = t->isPointerType() && t.isRestrictQualified();
      r.readOnly = t->isPointerType() && t->getPointeeType().isConstQualified();
      r.elem = elementOf(t);
      const Expr *b = me->getBase()->IgnoreParenImpCasts();
      while (auto *inner = dyn_cast<MemberExpr>(b)) b = inner->getBase()->IgnoreParenImpCasts();
      if (const VarDecl *bv = referencedVar(b)) {
        r.var = bv;
        r.unstable = written_.count(bv) != 0 || (isInner(bv) && !singleAssignmentInit(bv));
        if (t->isArrayType() && bv->hasLocalStorage() && !bv->getType()->isPointerType() && !me->isArrow() &&
            !bv->hasAttr<CUDASharedAttr>())
          r.privateArray = true, r.pointer = false;
        if (isInner(bv) && r.privateArray) return r;
      } else {
        r.unstable = true;
      }
      return r;
    }
    return unknown;
  }

  static bool kernelParam(const Root &r) {
    auto *p = dyn_cast_or_null<ParmVarDecl>(r.var);
    auto *fd = p ? dyn_cast<FunctionDecl>(p->getDeclContext()) : nullptr;
    return fd && cuda::isKernelFunction(fd) && r.key.find("->") == std::string::npos;
  }
  static bool sharedArray(const Root &r) {
    return r.var && !r.pointer && r.var->hasAttr<CUDASharedAttr>();
  }

  /// Whether two roots may name overlapping memory.
  bool mayAlias(const Root &a, const Root &b) const {
    if (a.key == b.key) return true;
    if (a.unknown || b.unknown) return true;
    // Two named arrays are two objects; a thread's own array is reachable
    // only through pointers made from it, which resolve() follows.
    if (!a.pointer && !b.pointer) return false;
    if (a.privateArray || b.privateArray) return false;
    if (a.restrict && b.restrict) return false;
    if (a.readOnly || b.readOnly) return false;
    // A kernel's pointer parameters come from the host: they never point
    // into the block's shared memory (a `__device__` function's may).
    if ((kernelParam(a) && sharedArray(b)) || (kernelParam(b) && sharedArray(a))) return false;
    // Distinct element types are distinct objects (C++ aliasing rules; char
    // types alias everything). Signed and unsigned variants are taken as
    // distinct too: a kernel that reads one array as both is not supported.
    if (!a.elem.isNull() && !b.elem.isNull() && a.elem != b.elem && !a.elem->isCharType() && !b.elem->isCharType() &&
        !a.elem->isVoidType() && !b.elem->isVoidType() && !a.elem->isRecordType() && !b.elem->isRecordType())
      return false;
    return true;
  }

  // ------------------------------------------------------------- collection

  /// An array declared in the body: each iteration has its own.
  bool iterationsOwnArray(const Root &r) const { return r.privateArray && r.var && isInner(r.var); }

  /// A new access at `at`, placed in the branches the walk is in.
  Access &push(Root root, std::vector<std::vector<Term>> dims, Use use, const Expr *at, const Expr *stored = nullptr) {
    Access a;
    a.root = std::move(root);
    a.dims = std::move(dims);
    a.use = use;
    a.at = at;
    a.stored = stored;
    a.conditionOf = conditionStack_.empty() ? nullptr : conditionStack_.back();
    a.thenOf = thenStack_;
    accesses_.push_back(std::move(a));
    return accesses_.back();
  }

  void record(const Expr *at, const Expr *addr, std::vector<std::vector<Term>> dims, std::string field, Use use,
              const Expr *stored = nullptr) {
    Root r = resolve(addr, dims, field, 0);
    if (iterationsOwnArray(r)) return; // this iteration's own array
    push(std::move(r), std::move(dims), use, at, stored).field = std::move(field);
  }

  void recordSubscript(const ArraySubscriptExpr *as, Use use, const Expr *stored) {
    std::vector<const Expr *> idx;
    const Expr *base = arrayRoot(as, idx);
    // dims[0] is the element the base points at; a[i][j] adds its indices.
    std::vector<std::vector<Term>> dims(1);
    std::vector<std::vector<Term>> sub;
    for (const Expr *i : idx) {
      std::vector<Term> terms;
      splitTerms(i, false, nullptr, terms);
      sub.push_back(std::move(terms));
    }
    std::string field;
    Root r = resolve(base, dims, field, 0);
    if (r.var && isWmmaObject(r.var->getType()))
      // A fragment's elements are spread over the warp's lanes in an
      // unspecified layout: they are no thread-local array.
      loop_.collectives.push_back({"wmma::fragment", spanOf(as, ctx_)});
    if (iterationsOwnArray(r)) {
      for (const Expr *i : idx) visit(i, Use::Read);
      visitAddress(base);
      return;
    }
    // Pointer offsets fold into the first index: (p + k)[i] == p[k + i].
    for (const Term &t : dims[0]) sub[0].push_back(t);
    push(std::move(r), std::move(sub), use, as, stored);
    for (const Expr *i : idx) visit(i, Use::Read);
    visitAddress(base);
  }

  /// The operand of an address computation: only the values it reads.
  void visitAddress(const Expr *e) {
    if (!e) return;
    e = e->IgnoreParenImpCasts();
    if (isa<DeclRefExpr>(e)) return;
    if (auto *me = dyn_cast<MemberExpr>(e)) {
      if (me->isArrow()) {
        std::vector<std::vector<Term>> dims(1);
        record(me, me->getBase(), std::move(dims), me->getMemberDecl()->getNameAsString(), Use::Read);
        visitAddress(me->getBase());
      } else {
        visitAddress(me->getBase());
      }
      return;
    }
    if (auto *uo = dyn_cast<UnaryOperator>(e); uo && uo->getOpcode() == UO_AddrOf) {
      const Expr *sub = uo->getSubExpr()->IgnoreParenImpCasts();
      if (auto *as = dyn_cast<ArraySubscriptExpr>(sub)) {
        std::vector<const Expr *> idx;
        const Expr *base = arrayRoot(as, idx);
        for (const Expr *i : idx) visit(i, Use::Read);
        visitAddress(base);
        return;
      }
      visitAddress(sub);
      return;
    }
    visit(e, Use::Read);
  }

  void visitCallArgs(const CallExpr *ce, unsigned first) {
    const FunctionDecl *fd = ce->getDirectCallee();
    for (unsigned i = first; i < ce->getNumArgs(); ++i) {
      const Expr *arg = ce->getArg(i);
      unsigned p = i;
      if (isa<CXXOperatorCallExpr>(ce) && fd && isa<CXXMethodDecl>(fd)) {
        if (i == 0) continue; // the object, handled by the caller
        p = i - 1;
      }
      QualType t = fd && p < fd->getNumParams() ? fd->getParamDecl(p)->getType() : arg->getType();
      if (isNonConstReference(t)) visit(arg, Use::ReadWrite);
      else if (t->isPointerType() && !t->getPointeeType().isConstQualified() && !isa<CXXNullPtrLiteralExpr>(arg->IgnoreParenImpCasts()))
        escape(arg);
      else if (t->isPointerType()) readThrough(arg);
      else visit(arg, Use::Read);
    }
  }

  /// A pointer handed to a function that may write through it.
  void escape(const Expr *arg) {
    std::vector<std::vector<Term>> dims(1);
    std::string field;
    Root r = resolve(arg, dims, field, 0);
    if (iterationsOwnArray(r)) { visitAddress(arg); return; }
    push(std::move(r), {}, Use::Escape, arg);
    visitAddress(arg);
  }

  /// A pointer to const handed to a function: a read of what it points at.
  void readThrough(const Expr *arg) {
    const Expr *e = arg->IgnoreParenImpCasts();
    if (auto *uo = dyn_cast<UnaryOperator>(e); uo && uo->getOpcode() == UO_AddrOf) {
      visit(uo->getSubExpr(), Use::Read);
      return;
    }
    if (e->getType()->isPointerType() || e->getType()->isArrayType()) {
      // The whole object it points into may be read.
      std::vector<std::vector<Term>> dims(1);
      std::string field;
      Root r = resolve(arg, dims, field, 0);
      if (!(iterationsOwnArray(r))) push(std::move(r), {{}}, Use::Read, arg).field = "<any>";
    }
    visitAddress(arg);
  }

  void visit(const Stmt *s, Use use) {
    if (!s) return;
    if (auto *po = dyn_cast<PseudoObjectExpr>(s)) {
      if (builtinText(po)) return;
      visit(po->getSyntacticForm(), use);
      return;
    }
    if (auto *ov = dyn_cast<OpaqueValueExpr>(s)) { visit(ov->getSourceExpr(), use); return; }
    if (isa<GCCAsmStmt, MSAsmStmt>(s)) {
      loop_.collectives.push_back({"asm", spanOf(s, ctx_)});
      return;
    }
    if (isa<LambdaExpr>(s)) {
      carried("(lambda)", "a lambda in the loop body may capture and change variables of other iterations", s);
      return;
    }
    if (auto *is = dyn_cast<IfStmt>(s)) {
      visit(is->getInit(), Use::Read);
      if (is->getConditionVariableDeclStmt()) visit(is->getConditionVariableDeclStmt(), Use::Read);
      conditionStack_.push_back(is);
      visit(is->getCond(), Use::Read);
      conditionStack_.pop_back();
      thenStack_.push_back(is);
      visit(is->getThen(), Use::Read);
      thenStack_.pop_back();
      visit(is->getElse(), Use::Read);
      return;
    }
    if (auto *e = dyn_cast<Expr>(s)) {
      const Expr *x = e->IgnoreParens();
      if (auto *ice = dyn_cast<ImplicitCastExpr>(x); ice && ice->getCastKind() != CK_LValueToRValue &&
                                                     ice->getCastKind() != CK_ArrayToPointerDecay) {
        visit(ice->getSubExpr(), use);
        return;
      }
      if (auto *ice = dyn_cast<ImplicitCastExpr>(x)) {
        if (ice->getCastKind() == CK_ArrayToPointerDecay) { visitAddress(ice->getSubExpr()); return; }
        visit(ice->getSubExpr(), Use::Read);
        return;
      }
      if (x != e) { visit(x, use); return; }
    }
    if (auto *as = dyn_cast<ArraySubscriptExpr>(s)) {
      recordSubscript(as, use, nullptr);
      return;
    }
    if (auto *uo = dyn_cast<UnaryOperator>(s)) {
      switch (uo->getOpcode()) {
      case UO_Deref: {
        std::vector<std::vector<Term>> dims(1);
        record(uo, uo->getSubExpr(), std::move(dims), "", use);
        visitAddress(uo->getSubExpr());
        return;
      }
      case UO_AddrOf: {
        const Expr *sub = uo->getSubExpr()->IgnoreParenImpCasts();
        if (isa<ArraySubscriptExpr, MemberExpr, UnaryOperator>(sub) ||
            (referencedVar(sub) && !isLocalVar(referencedVar(sub))))
          escape(uo);
        else
          visitAddress(sub);
        return;
      }
      case UO_PreInc: case UO_PreDec: case UO_PostInc: case UO_PostDec:
        visit(uo->getSubExpr(), Use::ReadWrite);
        return;
      default:
        visit(uo->getSubExpr(), Use::Read);
        return;
      }
    }
    if (auto *bo = dyn_cast<BinaryOperator>(s)) {
      if (bo->isAssignmentOp()) {
        const Expr *lhs = bo->getLHS()->IgnoreParenImpCasts();
        Use u = bo->getOpcode() == BO_Assign ? Use::Write : Use::ReadWrite;
        if (auto *as = dyn_cast<ArraySubscriptExpr>(lhs))
          recordSubscript(as, u, bo->getOpcode() == BO_Assign ? bo->getRHS() : nullptr);
        else if (auto *d = dyn_cast<UnaryOperator>(lhs); d && d->getOpcode() == UO_Deref) {
          std::vector<std::vector<Term>> dims(1);
          record(d, d->getSubExpr(), std::move(dims), "", u, bo->getOpcode() == BO_Assign ? bo->getRHS() : nullptr);
          visitAddress(d->getSubExpr());
        } else {
          visit(lhs, u);
          if (bo->getOpcode() == BO_Assign && !accesses_.empty() && accesses_.back().at &&
              accesses_.back().use == Use::Write && !accesses_.back().stored)
            accesses_.back().stored = bo->getRHS();
        }
        visit(bo->getRHS(), Use::Read);
        return;
      }
      visit(bo->getLHS(), Use::Read);
      visit(bo->getRHS(), Use::Read);
      return;
    }
    if (auto *me = dyn_cast<MemberExpr>(s)) {
      if (me->isArrow()) {
        std::vector<std::vector<Term>> dims(1);
        record(me, me->getBase(), std::move(dims), me->getMemberDecl()->getNameAsString(), use);
        visitAddress(me->getBase());
        return;
      }
      // `a[i].x`, `(*p).x`: the element's member; `obj.x` of a local object
      // is the scalar analysis' business (LoopAnalysis.cpp).
      const Expr *base = me->getBase()->IgnoreParenImpCasts();
      if (isa<ArraySubscriptExpr, UnaryOperator, MemberExpr>(base)) {
        std::string f = me->getMemberDecl()->getNameAsString();
        size_t before = accesses_.size();
        visit(base, use);
        if (accesses_.size() > before) accesses_[before].field = f + accesses_[before].field;
        return;
      }
      if (const VarDecl *vd = referencedVar(base); vd && !isLocalVar(vd)) {
        std::vector<std::vector<Term>> dims(1);
        record(me, base, std::move(dims), me->getMemberDecl()->getNameAsString(), use);
      }
      return;
    }
    if (auto *dr = dyn_cast<DeclRefExpr>(s)) {
      auto *vd = dyn_cast<VarDecl>(dr->getDecl());
      if (!vd || cuda::isThreadIdBuiltin(vd) || isLocalVar(vd) || vd->isConstexpr()) return;
      if (vd->getType().isConstQualified() && use == Use::Read) return;
      // A `__device__` / `__shared__` variable by name: one location.
      Root r = rootOfVar(vd, dr);
      r.pointer = false;
      push(std::move(r), std::vector<std::vector<Term>>(1), use, dr);
      return;
    }
    if (auto *ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl *d : ds->decls()) {
        auto *vd = dyn_cast<VarDecl>(d);
        if (!vd || !vd->hasInit()) continue;
        QualType t = vd->getType();
        if (isNonConstReference(t)) {
          // `float &r = out[i]`: writes through r are writes there.
          escapeLValue(vd->getInit());
        } else if (t->isPointerType() && singleAssignmentInit(vd)) {
          // Followed by resolve() at each use.
          visitAddress(vd->getInit());
        } else if (t->isPointerType() && !t->getPointeeType().isConstQualified()) {
          escape(vd->getInit());
        } else {
          visit(vd->getInit(), Use::Read);
        }
      }
      return;
    }
    if (auto *ce = dyn_cast<CallExpr>(s)) {
      call(ce, use);
      return;
    }
    if (auto *cc = dyn_cast<CXXConstructExpr>(s)) {
      const CXXConstructorDecl *cd = cc->getConstructor();
      for (unsigned i = 0; i < cc->getNumArgs(); ++i) {
        QualType t = cd && i < cd->getNumParams() ? cd->getParamDecl(i)->getType() : cc->getArg(i)->getType();
        if (isNonConstReference(t)) visit(cc->getArg(i), Use::ReadWrite);
        else visit(cc->getArg(i), Use::Read);
      }
      return;
    }
    for (const Stmt *c : s->children()) visit(c, Use::Read);
  }

  void escapeLValue(const Expr *e) {
    const Expr *x = e->IgnoreParenImpCasts();
    if (isa<ArraySubscriptExpr, UnaryOperator, MemberExpr>(x) ||
        (referencedVar(x) && !isLocalVar(referencedVar(x)))) {
      size_t before = accesses_.size();
      visit(x, Use::Escape);
      if (accesses_.size() > before) accesses_[before].use = Use::Escape;
      return;
    }
    visit(x, Use::Read);
  }

  void call(const CallExpr *ce, Use use) {
    cuda::CallMeaning m = cuda::classifyCall(ce);
    const FunctionDecl *fd = ce->getDirectCallee();
    if (m.atomic && ce->getNumArgs() >= 1) {
      // The first argument is the address the atomic updates.
      const Expr *addr = ce->getArg(0);
      std::vector<std::vector<Term>> dims(1);
      std::string field;
      const Expr *a0 = addr->IgnoreParenImpCasts();
      if (auto *uo = dyn_cast<UnaryOperator>(a0); uo && uo->getOpcode() == UO_AddrOf &&
                                                  isa<ArraySubscriptExpr>(uo->getSubExpr()->IgnoreParenImpCasts())) {
        size_t before = accesses_.size();
        recordSubscript(cast<ArraySubscriptExpr>(uo->getSubExpr()->IgnoreParenImpCasts()), Use::ReadWrite, nullptr);
        if (accesses_.size() > before) {
          accesses_[before].atomic = true;
          accesses_[before].commutativeAtomic = isCommutativeAtomic(m.name);
          accesses_[before].at = ce;
        }
      } else {
        size_t before = accesses_.size();
        record(ce, addr, std::move(dims), field, Use::ReadWrite);
        if (accesses_.size() > before) {
          accesses_.back().atomic = true;
          accesses_.back().commutativeAtomic = isCommutativeAtomic(m.name);
        }
        visitAddress(addr);
      }
      for (unsigned i = 1; i < ce->getNumArgs(); ++i) visit(ce->getArg(i), Use::Read);
      return;
    }
    if (m.warp || m.barrier) {
      // Barriers are in loop.barriers already (StatementEffects).
      if (m.warp) loop_.collectives.push_back({m.name.empty() ? "collective" : m.name, spanOf(ce, ctx_)});
      for (const Expr *a : ce->arguments()) visit(a, Use::Read);
      return;
    }
    if (isa<CUDAKernelCallExpr>(ce)) {
      for (const Expr *a : ce->arguments()) visit(a, Use::Read);
      return; // the launch is judged elsewhere (hasDeviceLaunch)
    }
    bool known = m.pure || isReadOnlySystemFunction(fd, sm_) || pureUser(ce);
    if (!known) {
      std::string name = m.name.empty() ? textOf(ce->getCallee(), ctx_) : m.name;
      carried(name, "calls '" + name + "', whose effects on memory Nestor cannot prove confined to one iteration",
              ce);
    }
    // The object of a member call or operator, then the arguments.
    if (auto *mc = dyn_cast<CXXMemberCallExpr>(ce)) {
      const CXXMethodDecl *md = mc->getMethodDecl();
      visit(mc->getImplicitObjectArgument(), md && !md->isConst() ? Use::ReadWrite : Use::Read);
      visitCallArgs(ce, 0);
      return;
    }
    if (auto *oc = dyn_cast<CXXOperatorCallExpr>(ce)) {
      if (oc->getNumArgs() > 0) visit(oc->getArg(0), writesFirstOperand(oc) ? Use::ReadWrite : Use::Read);
      visitCallArgs(ce, 1);
      return;
    }
    visit(ce->getCallee(), Use::Read);
    visitCallArgs(ce, 0);
  }

  // ---------------------------------------------------------------- judging

  std::string indexText(const Access &a) const {
    std::string out;
    for (const auto &dim : a.dims) {
      std::vector<std::string> ts;
      for (const Term &t : dim) ts.push_back((t.neg ? "-" : "+") + canon(t.e) + (t.factor ? "*" + canon(t.factor) : ""));
      std::sort(ts.begin(), ts.end());
      out += "[";
      for (const std::string &t : ts) out += t;
      out += "]";
    }
    return out + "." + a.field;
  }

  std::string shown(const Access &a) const { return textOf(a.at, ctx_); }

  /// A term `iv`, `c * iv`, `iv * X` (X the same in every iteration).
  bool ivTerm(const Expr *t, const Expr **coefficient) const {
    t = t->IgnoreParenImpCasts();
    if (auto *ce = dyn_cast<CastExpr>(t)) t = ce->getSubExpr()->IgnoreParenImpCasts();
    if (referencedVar(t) == iv_) return true;
    if (auto *dr = dyn_cast<DeclRefExpr>(t))
      if (auto *vd = dyn_cast<VarDecl>(dr->getDecl()))
        if (const Expr *init = singleAssignmentInit(vd)) {
          std::vector<const Expr *> ts;
          additiveTerms(init, ts);
          if (ts.size() == 1) return ivTerm(ts[0], coefficient);
        }
    auto *bo = dyn_cast<BinaryOperator>(t);
    if (!bo || bo->getOpcode() != BO_Mul) return false;
    const Expr *l = bo->getLHS()->IgnoreParenImpCasts(), *r = bo->getRHS()->IgnoreParenImpCasts();
    if (referencedVar(l) == iv_ && !mentionsVar(r, iv_) && invariant(r)) { *coefficient = r; return nonZero(r); }
    if (referencedVar(r) == iv_ && !mentionsVar(l, iv_) && invariant(l)) { *coefficient = l; return nonZero(l); }
    return false;
  }

  bool nonZero(const Expr *e) const {
    Expr::EvalResult v;
    if (!e->isValueDependent() && e->EvaluateAsInt(v, ctx_)) return v.Val.getInt() != 0;
    return true; // a loop-invariant stride (a row length): assumed non-zero
  }

  /// One dimension of the index takes a different value in every iteration.
  bool oneToOne(const Access &a) const {
    if (!iv_) return false;
    for (const auto &dim : a.dims) {
      int ivTerms = 0;
      const Expr *coefficient = nullptr;
      bool rest = true;
      std::vector<const Term *> varying;
      for (const Term &t : dim) {
        const Expr *c = nullptr;
        if (!t.factor && ivTerm(t.e, &c)) { ++ivTerms; coefficient = c; continue; }
        // `(y + i) * w`, distributed: `i * w`.
        if (t.factor && referencedVar(t.e) == iv_ && !mentionsVar(t.factor, iv_) && invariant(t.factor) &&
            nonZero(t.factor)) {
          ++ivTerms;
          coefficient = t.factor;
          continue;
        }
        if (mentionsVar(t.e, iv_) || !invariant(t.e) || (t.factor && (mentionsVar(t.factor, iv_) || !invariant(t.factor))))
          varying.push_back(&t);
      }
      if (ivTerms != 1) continue;
      // `i * M + j` with `for (j = 0; j < M; ++j)`: still one-to-one in i.
      for (const Term *t : varying) {
        const VarDecl *j = referencedVar(t->e);
        auto it = j ? innerLoopBound_.find(j) : innerLoopBound_.end();
        if (t->neg || t->factor || it == innerLoopBound_.end() || !coefficient ||
            canon(it->second) != canon(coefficient))
          rest = false;
      }
      if (rest) return true;
    }
    return false;
  }

  /// The index does not change from one iteration to the next.
  bool sameEveryIteration(const Access &a) const {
    for (const auto &dim : a.dims)
      for (const Term &t : dim)
        if (mentionsVar(t.e, iv_) || !invariant(t.e) || (t.factor && !invariant(t.factor))) return false;
    return iv_ != nullptr;
  }

  bool idempotentStore(const Access &a) const {
    return a.use == Use::Write && !a.atomic && a.stored && invariant(a.stored);
  }

  void judge() {
    judging_ = true;
    for (const Access &a : accesses_)
      if (a.use != Use::Read) writtenRootKeys_.insert(a.root.key);
    std::set<std::string> reported;
    for (size_t w = 0; w < accesses_.size(); ++w) {
      const Access &wa = accesses_[w];
      if (wa.use == Use::Read || reported.count(wa.root.key)) continue;
      std::vector<const Access *> related;
      for (const Access &o : accesses_)
        if (mayAlias(wa.root, o.root)) related.push_back(&o);
      if (auto why = verdict(wa, related)) {
        reported.insert(wa.root.key);
        loop_.carriedDependences.push_back({wa.root.text.empty() ? shown(wa) : wa.root.text, why->first, spanOf(why->second->at, ctx_)});
      }
    }
  }

  /// nullopt when the writes to `w`'s root are safe for concurrent
  /// iterations; otherwise the reason and the access it names.
  std::optional<std::pair<std::string, const Access *>> verdict(const Access &w, const std::vector<const Access *> &related) {
    const std::string name = w.root.text.empty() ? shown(w) : w.root.text;
    if (w.use == Use::Escape)
      return std::make_pair("the address of " + shown(w) + " is kept or handed on, so later writes through it are not "
                            "confined to one iteration", &w);
    if (w.root.unknown || w.root.unstable)
      return std::make_pair("writes through " + shown(w) + ", a pointer Nestor cannot follow from one iteration to the next",
                            &w);
    // Commutative atomics only.
    bool allAtomic = true;
    for (const Access *o : related)
      if (!(o->atomic && o->commutativeAtomic)) allAtomic = false;
    if (allAtomic) return std::nullopt;
    if (w.atomic) {
      for (const Access *o : related)
        if (!o->atomic) return std::make_pair("accesses " + shown(*o) + " while other iterations update " + name +
                                                  " atomically", o);
        else if (!o->commutativeAtomic)
          return std::make_pair(o->at ? "'" + textOf(o->at, ctx_) + "' is an atomic whose outcome depends on the order "
                                                                  "of the iterations"
                                      : "order-dependent atomic",
                                o);
    }
    // A different element in every iteration, the same index everywhere.
    std::string idx = indexText(w);
    if (!w.atomic && oneToOne(w)) {
      const Access *bad = nullptr;
      for (const Access *o : related)
        if (o->use == Use::Escape || o->atomic || indexText(*o) != idx) { bad = o; break; }
      if (!bad) return std::nullopt;
      if (bad->root.key == w.root.key)
        return std::make_pair(std::string(bad->use == Use::Read ? "reads " : "accesses ") + shown(*bad) + " while writing " +
                                  shown(w) + " in another iteration",
                              bad);
      return std::make_pair("'" + name + "' and '" + (bad->root.text.empty() ? shown(*bad) : bad->root.text) +
                                "' may be the same array: writes " + shown(w) + " and accesses " + shown(*bad) +
                                " (declare both __restrict__ if they never overlap)",
                            bad);
    }
    // Idempotent stores: the same loop-invariant value wherever it is
    // stored; read only to decide whether to store it.
    std::string value;
    bool idempotent = true;
    const Access *bad = &w;
    for (const Access *o : related) {
      if (o->use == Use::Read) continue;
      if (!idempotentStore(*o)) { idempotent = false; bad = o; break; }
      std::string v = canon(o->stored);
      if (value.empty()) value = v;
      else if (v != value) { idempotent = false; bad = o; break; }
    }
    if (idempotent)
      for (const Access *o : related) {
        if (o->use != Use::Read) continue;
        bool guards = false;
        if (o->conditionOf && o->root.key == w.root.key)
          for (const Access *s : related)
            if (s->use == Use::Write && s->root.key == o->root.key && indexText(*s) == indexText(*o) &&
                std::find(s->thenOf.begin(), s->thenOf.end(), o->conditionOf) != s->thenOf.end())
              guards = true;
        if (!guards || !guardedBranchIdempotent(o->conditionOf)) { idempotent = false; bad = o; break; }
      }
    if (idempotent) return std::nullopt;
    if (bad != &w && bad->use == Use::Read)
      return std::make_pair("reads " + shown(*bad) + " while other iterations may write " + shown(w), bad);
    if (!oneToOne(w))
      return std::make_pair(
          sameEveryIteration(w)
              ? "every iteration writes " + shown(w) + ", the same location"
              : "writes " + shown(w) + ", whose index is not one-to-one in '" + (iv_ ? iv_->getNameAsString() : "?") +
                    "': two iterations may write the same element",
          &w);
    return std::make_pair("writes " + shown(w) + " and " + shown(*bad) + " in a way that other iterations may observe",
                          bad);
  }

  /// The then-branch of a guard does nothing but idempotent stores, atomic
  /// updates that commute, and its own locals.
  bool guardedBranchIdempotent(const IfStmt *guard) const {
    for (const Access &a : accesses_) {
      if (std::find(a.thenOf.begin(), a.thenOf.end(), guard) == a.thenOf.end()) continue;
      if (a.use == Use::Read) continue;
      if (a.atomic && a.commutativeAtomic) continue;
      if (!idempotentStore(a)) return false;
    }
    // No outer variable changes there (the scalar analysis sees them; a
    // guarded update of one would differ with the order).
    bool ok = true;
    forEachNode(guard->getThen(), [&](const Stmt *s) {
      const Expr *lhs = nullptr;
      if (auto *bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) lhs = bo->getLHS();
      if (auto *uo = dyn_cast<UnaryOperator>(s); uo && uo->isIncrementDecrementOp()) lhs = uo->getSubExpr();
      if (const VarDecl *vd = lhs ? referencedVar(lhs) : nullptr; vd && isLocalVar(vd) && !isInner(vd)) ok = false;
    });
    return ok;
  }

  void carried(const std::string &var, const std::string &why, const Stmt *at) {
    for (const auto &d : loop_.carriedDependences)
      if (d.var == var && d.reason == why) return;
    loop_.carriedDependences.push_back({var, why, spanOf(at, ctx_)});
  }

  const Stmt *body_;
  const VarDecl *iv_;
  const std::set<const VarDecl *> &inner_;
  ASTContext &ctx_;
  const SourceManager &sm_;
  LoopSite &loop_;
  std::set<const VarDecl *> written_;
  std::map<const VarDecl *, const Expr *> innerLoopBound_;
  std::vector<Access> accesses_;
  std::vector<const IfStmt *> conditionStack_, thenStack_;
  std::set<std::string> writtenRootKeys_;
  bool judging_ = false;
};

} // namespace

void analyzeMemoryDependences(const Stmt *body, const VarDecl *iv, const std::set<const VarDecl *> &inner,
                              ASTContext &ctx, LoopSite &loop) {
  if (!body) return;
  DependenceAnalysis(body, iv, inner, ctx, loop).run();
}

} // namespace nestor
