// The CUDA-NP planner (cuda-np.md sections 2-3; design and limits in
// docs/rewrites-loops.md): one class whose phases plan the edit of a whole
// kernel for its parallel loops. Each phase is in its own file:
//   NpPlanner.cpp       plan(): the phases in order, the prologue, the enlarged launches
//   NpKernelChecks.cpp  the kernel and its launches; which loops are distributed; callees
//   NpArrays.cpp        thread-local arrays: registers, shared or global memory (the pool)
//   NpStatements.cpp    thread ids, sequential statements (masters only), enclosing if/for
//   NpParallelLoop.cpp  the parallel loop itself: strided or sub-warp form, reductions, scans
// Every refusal names the construct that blocks the rewrite.
#pragma once
#include "NpPlan.h"
#include "nestor/EditSet.h"
#include "../loop_common/LoopCommon.h"
#include "nestor/CudaSemantics.h"
#include "nestor/Inference.h"
#include "nestor/StatementEffects.h"

#include "nestor/AstText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <map>
#include <memory>
#include <set>

namespace nestor::loops {

/// What a statement kind is called in a refusal.
std::string statementKind(const clang::Stmt *s);
inline SourceSpan spanAt(const clang::ASTContext &ctx, clang::SourceLocation loc) {
  return spanOf(clang::SourceRange(loc, loc), ctx);
}

struct Edit {
  unsigned offset, length;
  std::string text;
  bool rename = false;  ///< threadIdx/blockDim -> nestor_*: absorbed by a replacement that contains it
  bool absorbs = false; ///< a replacement whose text was made with editedText()
  int rank = 0;         ///< order among insertions at one offset (EditSet)
};

// The clang names this header uses (no `using namespace` in a header).
using clang::ASTContext;
using clang::ArraySubscriptExpr;
using clang::CallExpr;
using clang::CompoundStmt;
using clang::Decl;
using clang::DeclStmt;
using clang::Expr;
using clang::ForStmt;
using clang::FunctionDecl;
using clang::IfStmt;
using clang::MemberExpr;
using clang::ParmVarDecl;
using clang::SourceLocation;
using clang::SourceManager;
using clang::SourceRange;
using clang::Stmt;
using clang::UnaryOperator;
using clang::VarDecl;
using llvm::cast;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;

struct ArrayPlan {
  const VarDecl *vd = nullptr;
  const DeclStmt *decl = nullptr;
  bool usedInParallel = false;
  bool registersOk = true;
  bool onlySubscripts = true;
  std::string home; // "registers", "shared"
};

class NpPlanner {
public:
  NpPlanner(const AnalyzedTU &tu, const RewriteTarget &t, const NpConfig &cfg)
      : tu_(tu), m_(tu.model()), ctx_(tu.astContext()), text_(tu.mainFileText()), t_(t), cfg_(cfg) {}

  NpPlan run() {
    NpPlan out;
    if (!plan()) {
      out.reason = reason_;
      out.blocker = blocker_;
      return out;
    }
    // Insertions at one offset keep the order they were planned in (EditSet).
    // Renames inside an absorbing replacement are part of its text already.
    std::vector<Edit> kept;
    for (const Edit &e : edits_) {
      bool absorbed = false;
      if (e.rename)
        for (const Edit &r : edits_)
          absorbed |= r.absorbs && e.offset >= r.offset && e.offset + e.length <= r.offset + r.length;
      if (!absorbed) kept.push_back(e);
    }
    edits_ = std::move(kept);
    EditSet set(tu_);
    for (const Edit &e : edits_) set.add(e.offset, e.offset + e.length, e.text, e.rank);
    auto merged = set.replacements();
    if (!merged) {
      out.reason = "internal error: overlapping edits (" + llvm::toString(merged.takeError()) + ")";
      return out;
    }
    out.edits = std::move(*merged);
    for (const auto &[file, set] : otherEdits_) {
      auto other = set.replacements();
      if (!other) {
        out.reason = "internal error: overlapping edits in " + file + " (" + llvm::toString(other.takeError()) + ")";
        return out;
      }
      out.otherFiles[file] = std::move(*other);
    }
    out.ok = true;
    if (reshape_ > 1)
      out.note = "reshapes the launch: " + std::to_string(reshape_) + "x the blocks, " + std::to_string(masters_) +
                 " masters per block";
    if (!external_.empty()) {
      std::string where;
      for (const ExternalLaunchPlan &el : external_) where += (where.empty() ? "" : ", ") + el.where;
      out.note += std::string(out.note.empty() ? "" : "; ") + "also rewrites the launch" +
                  (external_.size() > 1 ? "es at " : " at ") + where;
    }
    return out;
  }

private:
  const AnalyzedTU &tu_;
  const FileModel &m_;
  const ASTContext &ctx_;
  llvm::StringRef text_;
  RewriteTarget t_;
  NpConfig cfg_;
  std::string reason_;
  SourceSpan blocker_;
  std::vector<Edit> edits_;

  const Kernel *kernel_ = nullptr;
  const FunctionDecl *fd_ = nullptr;
  const CompoundStmt *body_ = nullptr;
  std::optional<BlockShape> block_; // common block shape, when all launches agree
  // Launch reshaping (NpReshape.cpp): when the enlarged block would not fit,
  // each original block becomes reshape_ blocks of masters_ masters.
  unsigned reshape_ = 1;
  unsigned masters_ = 0; // masters per block (the original block's threads unless reshaped); 0: blocks differ
  unsigned limit_ = 1024; // threads per block allowed: 1024 or __launch_bounds__
  std::set<int> runtimeBlocks_; // launches whose block is known only at run time (enlarged by the runtime)
  /// A host launch of the kernel in another translation unit of the project
  /// (Kernel::externalLaunches): that unit's AST, its launch, its constant block.
  struct ExternalLaunchPlan {
    std::string file;
    std::shared_ptr<const AnalyzedTU> unit;
    int id;
    BlockShape block;
    std::string where; ///< "file.cu:LINE"
  };
  std::vector<ExternalLaunchPlan> external_;
  std::map<std::string, EditSet> otherEdits_; // the edits of external_'s files
  std::map<const ForStmt *, const LoopSite *> parallel_;
  std::map<const VarDecl *, bool> masterOnly_; // locals declared at the top level
  std::set<const VarDecl *> liveInAnywhere_;   // outer locals read by some parallel loop
  std::map<const VarDecl *, ArrayPlan> arrays_;
  bool predicated_ = false; // inter-warp with early returns: nestor_active
  // Inter-warp NP runs every statement that encloses a parallel loop on all
  // threads of the block (the group's barriers are block barriers), so a
  // branch becomes a predicate: preds_ holds the ones in force (innermost
  // last); intra-warp NP branches per group and keeps preds_ empty.
  std::vector<std::string> preds_;
  int ifCount_ = 0;
  uint64_t poolBytesPerMaster_ = 0; // thread-local arrays moved to global memory, per master

  std::string globalPoolBlocker() const;
  bool addPoolParameter();
  /// A number naming launch site `id` among all launches of the file (the
  /// host pool's template argument, so that every site has its own buffer).
  int poolSite(int id) const { return id + 1; }
  std::set<const VarDecl *> kernelWrites_; // locals and parameters written anywhere in the kernel
  std::map<const Stmt *, const Stmt *> parent_;

  std::string G() const { return "nestor_np_group"; }
  BlockShape launchShape(const BlockShape &original) const;
  std::string launchBlock(const BlockShape &original, const std::string &condition, const std::string &was) const;
  /// The conjunction of the predicates in force ("" when none).
  std::string predicate() const {
    std::string p;
    for (const std::string &q : preds_) p += (p.empty() ? "" : " && ") + q;
    return p;
  }
  std::string guard() const {
    std::string p = predicate();
    return p.empty() ? G() + "::is_master()" : "(" + p + " && " + G() + "::is_master())";
  }
  /// The predicates of enclosing branches only (nestor_active is left out:
  /// a thread that returned never runs again, so its locals do not matter).
  std::string branchPredicate() const {
    std::string p;
    for (const std::string &q : preds_)
      if (q != "nestor_active") p += (p.empty() ? "" : " && ") + q;
    return p;
  }
  /// Prefix for a condition that holds only while the thread is active.
  std::string activePrefix() const {
    std::string p = predicate();
    return p.empty() ? "" : p + " && ";
  }

  bool fail(std::string why, SourceSpan at = {}) {
    reason_ = std::move(why);
    blocker_ = std::move(at);
    return false;
  }
  std::string lineOf(const SourceSpan &s) const { return "line " + std::to_string(s.begin.line); }
  std::string lineOf(const Stmt *s) const { return lineOf(spanOf(s, ctx_)); }

  unsigned beginOf(const Stmt *s) const { return spanOf(s, ctx_).begin.offset; }
  /// End offset of a statement, including its `;` when the AST range stops before it.
  unsigned endOf(const Stmt *s) const {
    unsigned e = spanOf(s, ctx_).end.offset;
    if (e > 0 && (text_[e - 1] == '}' || text_[e - 1] == ';')) return e;
    size_t i = e;
    while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
    if (i < text_.size() && text_[i] == ';') return unsigned(i + 1);
    return e;
  }
  void insert(unsigned at, std::string s) { edits_.push_back({at, 0, std::move(s)}); }
  void replace(unsigned b, unsigned e, std::string s) { edits_.push_back({b, e - b, std::move(s)}); }
  /// Replaces [b, e) with text built from editedText() of ranges inside it.
  void replaceAbsorbing(unsigned b, unsigned e, std::string s) {
    edits_.push_back({b, e - b, std::move(s), false, /*absorbs=*/true});
  }
  /// The source of [b, e) with the thread-id renames inside it applied.
  std::string editedText(unsigned b, unsigned e) const {
    std::string out = text_.slice(b, e).str();
    std::vector<const Edit *> inside;
    for (const Edit &ed : edits_)
      if (ed.rename && ed.offset >= b && ed.offset + ed.length <= e) inside.push_back(&ed);
    std::sort(inside.begin(), inside.end(), [](const Edit *x, const Edit *y) { return x->offset > y->offset; });
    for (const Edit *ed : inside) out.replace(ed->offset - b, ed->length, ed->text);
    return out;
  }
  /// Memory read by `reader` and memory touched by `writer` cannot overlap:
  /// every access goes through a named pointer, the pointers differ, and of
  /// each pair one is __restrict__ (the programmer's promise of no aliasing).
  static bool disjointMemory(const Stmt *reader, const Stmt *writer) {
    auto bases = [](const Stmt *root, std::set<const VarDecl *> &out) {
      bool known = true;
      forEachNode(root, [&](const Stmt *s) {
        const Expr *base = nullptr;
        if (auto *as = dyn_cast<ArraySubscriptExpr>(s)) base = as->getBase();
        else if (auto *uo = dyn_cast<UnaryOperator>(s); uo && uo->getOpcode() == clang::UO_Deref) base = uo->getSubExpr();
        else if (auto *me = dyn_cast<MemberExpr>(s); me && me->isArrow()) base = me->getBase();
        else if (auto *ce = dyn_cast<CallExpr>(s); ce && (!ce->getDirectCallee() || !cuda::isPureMathName(ce->getDirectCallee()->getName())))
          known = false;
        if (!base) return;
        const VarDecl *vd = referencedVar(base);
        if (!vd || !vd->getType()->isPointerType()) known = false;
        else out.insert(vd);
      });
      return known;
    };
    std::set<const VarDecl *> r, w;
    if (!bases(reader, r) || !bases(writer, w)) return false;
    for (const VarDecl *a : r)
      for (const VarDecl *b : w)
        if (a == b || (!a->getType().isRestrictQualified() && !b->getType().isRestrictQualified())) return false;
    return true;
  }
  bool readsMemory(const Stmt *e) const {
    StatementEffects fx = effects(e);
    return fx.memRead || fx.impureCall;
  }
  StatementEffects effects(const Stmt *s) const { return effectsOf(s, ctx_); }
  std::string editedText(const Stmt *s) const { return editedText(beginOf(s), endOf(s)); }
  std::string editedExpr(const Expr *x) const {
    SourceSpan sp = spanOf(x, ctx_);
    return editedText(sp.begin.offset, sp.end.offset);
  }
  std::string text(const Stmt *s) const { return text_.slice(beginOf(s), endOf(s)).str(); }
  std::string indentOf(const Stmt *s) const { return indentationAt(text_, beginOf(s)); }

  bool isParallel(const Stmt *s) const { return isa<ForStmt>(s) && parallel_.count(cast<ForStmt>(s)); }

  bool plan();
  bool checkKernelAndLaunches();
  /// Reshapes the launches so that masters_ x S threads fit `limit`, or fails
  /// with `tooBig` and the construct that forbids reshaping.
  bool planReshape(unsigned limit, const std::string &tooBig, const SourceSpan &at);
  /// Why the kernel's thread identity does not survive reshaping ("" if it does).
  std::string reshapeBlocker() const;
  /// Why the launch's run-time block cannot be enlarged at run time ("" if it can).
  std::string runtimeBlockBlocker(const LaunchSite &ls) const;
  bool chooseParallelLoops();
  bool checkCallees();
  bool planArrays();
  bool rewriteThreadIds();
  /// `if (cond)`: text before and after the condition, which keeps its own edits.
  void wrapCondition(const IfStmt *is, const std::string &before, const std::string &after) {
    SourceSpan cs = spanOf(is->getCond(), ctx_);
    insert(cs.begin.offset, before);
    insert(cs.end.offset, after);
  }
  static std::string oneLine(std::string t) {
    for (char &c : t)
      if (c == '\n' || c == '\r') c = ' ';
    return t;
  }
  /// `!(p)` of the predicates in force.
  std::string notPredicate() const { return preds_.size() == 1 ? "!" + preds_[0] : "!(" + predicate() + ")"; }
  bool statement(const Stmt *s, bool &masterWrote, int depth);
  bool enclosingIf(const IfStmt *is, bool &masterWrote, int depth);
  bool enclosingFor(const ForStmt *fs, bool &masterWrote, int depth);
  bool sequentialStatement(const Stmt *s, bool &masterWrote, int depth);
  /// The part of `vd`'s initialiser that `(guard ? (T)(...) : 0)` goes around
  /// (a braced scalar's one value; a struct's brace list, with `listType` set
  /// to the type the wrapper writes before it, where the caller takes one),
  /// or nullptr with `why` set where its text cannot be wrapped in place: a
  /// brace list the caller cannot take, or written inside a macro together
  /// with the declarator.
  const Expr *wrappableInit(const VarDecl *vd, std::string &why, std::string *listType = nullptr) const;
  /// The value a thread that is not the master gives a master-only local
  /// (`(guard ? (T)(init) : idle)`): zero for a scalar; `T{}` for a struct
  /// the runtime can move between threads word by word (read_from_master:
  /// shuffles or shared-memory slots). "" with `why` set where neither.
  std::string idleValueOf(clang::QualType t, std::string &why) const;
  bool parallelLoop(const ForStmt *fs, const LoopSite &ls, bool &masterWrote);
  /// Does `s` contain (or is it) a loop chosen for distribution?
  bool enclosesParallel(const Stmt *s) const {
    for (auto &[fs, ls] : parallel_)
      for (const Stmt *p = fs; p; p = parentOf(p))
        if (p == s) return true;
    return false;
  }
  const Stmt *parentOf(const Stmt *s) const {
    auto it = parent_.find(s);
    return it == parent_.end() ? nullptr : it->second;
  }
  /// Same value in every thread of the block: parameters and locals never
  /// written (or only by `loopVars`), blockIdx/gridDim/blockDim, constants.
  bool blockUniform(const Stmt *e, const std::set<const VarDecl *> &loopVars) const;
  bool isUniform(const StatementEffects &fx) const {
    if (fx.memRead || fx.impureCall || fx.addrOfLocal || fx.barrier || fx.warp || fx.lambda) return false;
    for (const VarDecl *vd : fx.reads) {
      if (fx.declared.count(vd) || isa<ParmVarDecl>(vd)) continue;
      if (vd->getType()->isArrayType()) return false;
      auto it = masterOnly_.find(vd);
      if (it == masterOnly_.end() || it->second) return false;
    }
    return true;
  }
};

} // namespace nestor::loops
