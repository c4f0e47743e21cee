#include "DpCommon.h"
#include "../loop_common/StmtParents.h"
#include "nestor/CudaSemantics.h"

#include "nestor/AstText.h"
#include "nestor/Inference.h"
#include "nestor/RefusalText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Path.h"

#include <map>
#include <regex>
#include <set>

namespace nestor::dprw {
using namespace clang;

namespace {

unsigned offsetOf(const AnalyzedTU &tu, SourceLocation loc) {
  const SourceManager &sm = tu.sourceManager();
  return sm.getFileOffset(sm.getFileLoc(loc));
}

/// [begin, end) of a statement's tokens; end extended over a directly
/// following `;` (expression statements and `if (...) expr;` end in one).
std::pair<unsigned, unsigned> statementRange(const AnalyzedTU &tu, const Stmt *s) {
  SourceSpan sp = spanOf(s, tu.astContext());
  llvm::StringRef text = tu.mainFileText();
  unsigned e = sp.end.offset;
  unsigned i = e;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i < text.size() && text[i] == ';') e = i + 1;
  return {sp.begin.offset, e};
}

// Children of a statement, including the source of an OpaqueValueExpr (the
// base of `threadIdx.x` hides behind one).
std::vector<const Stmt *> kids(const Stmt *s) {
  std::vector<const Stmt *> out;
  if (auto *ov = llvm::dyn_cast<OpaqueValueExpr>(s)) {
    if (ov->getSourceExpr()) out.push_back(ov->getSourceExpr());
    return out;
  }
  for (const Stmt *c : s->children()) out.push_back(c);
  return out;
}

// The built-ins that name a thread or its block (warpSize is a constant).
bool isBuiltinName(llvm::StringRef n) { return cuda::isThreadIdBuiltinName(n) && n != "warpSize"; }

const VarDecl *builtinVar(const Stmt *s) {
  auto *dre = llvm::dyn_cast<DeclRefExpr>(s);
  if (!dre) return nullptr;
  auto *vd = llvm::dyn_cast<VarDecl>(dre->getDecl());
  if (!vd || !isBuiltinName(vd->getName())) return nullptr;
  if (vd->hasLocalStorage()) return nullptr;
  return vd;
}

bool isLaunchCounter(llvm::StringRef text) {
  static const std::regex re(R"(^\s*atomicAdd\s*\([^;]*,\s*1(u|U|l|L|ul|UL|ll|LL|ull|ULL)?\s*\)\s*;\s*$)");
  return std::regex_match(text.str(), re);
}

bool isErrorCheck(llvm::StringRef text) {
  return text.contains("cudaGetLastError()") || text.contains("cudaPeekAtLastError()");
}

// The statement a launch expression forms, and the compound statement holding
// it; `parents`: those of the function the launch is in.
const Stmt *enclosingStatement(const loops::StmtParents &parents, const Stmt *e, const CompoundStmt *&block) {
  const Stmt *cur = e;
  block = nullptr;
  while (true) {
    const Stmt *p = parents.parentOf(cur);
    if (!p) return nullptr;
    if (llvm::isa<ExprWithCleanups>(p) || llvm::isa<ImplicitCastExpr>(p)) {
      cur = p;
      continue;
    }
    if (llvm::isa<Expr>(p)) return nullptr; // part of a larger expression
    block = llvm::dyn_cast<CompoundStmt>(p);
    // Only statement positions: a compound statement or the body of if/loops.
    if (!block && !llvm::isa<IfStmt>(p) && !llvm::isa<ForStmt>(p) && !llvm::isa<WhileStmt>(p) &&
        !llvm::isa<DoStmt>(p))
      return nullptr;
    if (auto *ifs = llvm::dyn_cast<IfStmt>(p); ifs && ifs->getCond() == cur) return nullptr;
    return cur;
  }
}

bool isDefaultArg(const Expr *e) { return !e || llvm::isa<CXXDefaultArgExpr>(e->IgnoreImplicit()); }

} // namespace

std::string lineOf(const SourceSpan &s) { return "line " + std::to_string(s.begin.line); }

bool mentionsIdentifier(llvm::StringRef text, llvm::StringRef ident) {
  size_t pos = 0;
  auto isId = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while ((pos = text.find(ident, pos)) != llvm::StringRef::npos) {
    bool before = pos > 0 && isId(text[pos - 1]);
    bool after = pos + ident.size() < text.size() && isId(text[pos + ident.size()]);
    if (!before && !after) return true;
    pos += ident.size();
  }
  return false;
}

std::string joinArgs(const std::vector<std::string> &args, const std::string &extra) {
  std::string out;
  for (const std::string &a : args) out += (out.empty() ? "" : ", ") + a;
  if (!extra.empty()) out += (out.empty() ? "" : ", ") + extra;
  return out;
}

std::string indentLines(const std::string &text, const std::string &prefix) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] != '\n') out += prefix;
  }
  return out;
}

unsigned includeInsertionPoint(llvm::StringRef text, unsigned before) {
  unsigned point = 0;
  size_t lineStart = 0;
  while (lineStart < text.size() && lineStart < before) {
    size_t nl = text.find('\n', lineStart);
    size_t lineEnd = nl == llvm::StringRef::npos ? text.size() : nl + 1;
    if (text.substr(lineStart).ltrim().starts_with("#include")) point = unsigned(lineEnd);
    lineStart = lineEnd;
  }
  return point;
}

bool includesDpRuntime(llvm::StringRef text) { return text.contains("<nestor/dp.cuh>"); }

Applicability locateLaunch(const AnalyzedTU &tu, const RewriteTarget &t, LaunchStatement &out) {
  const FileModel &m = tu.model();
  if (t.kind != RewriteTarget::Kind::Launch || t.id < 0 || size_t(t.id) >= m.launches.size())
    return Applicability::no("no kernel launch at this position");
  const LaunchSite &site = m.launches[size_t(t.id)];
  out.site = &site;
  if (!site.deviceSide)
    return Applicability::no("host-side launch of " + site.child + ": the DP rewrites apply to device-side launches",
                             site.span);
  // A tail launch starts only after its grid and everything that grid
  // launched have finished (CDP2): the post-order step of a recursion.
  // Serialising it (threshold), buffering it (the launch templates) or
  // merging it with others (aggregation) would run it earlier.
  if (site.stream == "cudaStreamTailLaunch")
    return Applicability::no("the launch of " + site.child + " goes into cudaStreamTailLaunch (" + lineOf(site.span) +
                                 "): it starts only after this grid and everything it launched have finished, and the "
                                 "dynamic-parallelism rewrites would run it earlier",
                             site.span);
  out.call = tu.launchExpr(site.id);
  if (!out.call) return Applicability::no("the launch of " + site.child + " was not analysed", site.span);
  if (out.call->getBeginLoc().isMacroID() || out.call->getEndLoc().isMacroID())
    return Applicability::no("the launch of " + site.child + " is written inside a macro", site.span);
  const FunctionDecl *callee = cuda::launchedKernel(out.call);
  const FunctionDecl *def = nullptr;
  if (!callee || !callee->hasBody(def) || !def)
    return Applicability::no("the body of child kernel " + site.child + " is not in this file", site.span);
  if (!tu.sourceManager().isInMainFile(def->getLocation()))
    return Applicability::no("child kernel " + site.child + " is defined in an included file", site.span);
  if (def->isTemplateInstantiation() || def->getDescribedFunctionTemplate() || def->isFunctionTemplateSpecialization())
    return Applicability::no("child kernel " + site.child + " is a template (not supported)", site.span);
  out.child = def;
  const FunctionDecl *parent = tu.functionDecl(site.parent);
  const FunctionDecl *pdef = nullptr;
  if (!parent || !parent->hasBody(pdef) || !pdef)
    return Applicability::no("the parent " + site.parent + " was not analysed", site.span);
  if (pdef->isTemplateInstantiation() || pdef->getDescribedFunctionTemplate())
    return Applicability::no("parent kernel " + site.parent + " is a template (not supported)", site.span);
  out.parent = pdef;

  // CDP2: device-side cudaDeviceSynchronize is gone; code that waits for the
  // child on the device cannot keep its meaning under any of these rewrites.
  for (const ConstructUse &s : m.deviceSyncs)
    if (s.name == site.parent || s.name == site.child)
      return Applicability::no("device-side cudaDeviceSynchronize() in " + s.name + " (" + lineOf(s.span) +
                                   "): removed in CUDA 12 (CDP2) for compute_90, and the results depend on it; "
                                   "restructure with a host-side wait or a tail launch first",
                               s.span);
  if (site.followedByDeviceSync)
    return Applicability::no("the launch is followed by a device-side cudaDeviceSynchronize(), removed in CDP2",
                             site.span);

  // Configuration and arguments from the AST (the model's texts of absent
  // arguments are not reliable).
  const CallExpr *config = out.call->getConfig();
  if (!config || config->getNumArgs() < 2)
    return Applicability::no("cannot read the launch configuration", site.span);
  const ASTContext &ctx = tu.astContext();
  // Device-side launches configure through cudaLaunchDevice(buf, fn, grid,
  // block, shmem, stream), host ones through (grid, block, shmem, stream).
  unsigned first = 0;
  if (const FunctionDecl *cf = config->getDirectCallee(); cf && cf->getName() == "cudaLaunchDevice") first = 2;
  auto cfgText = [&](unsigned i) -> std::string {
    i += first;
    if (i >= config->getNumArgs() || isDefaultArg(config->getArg(i))) return "";
    std::string t = textOf(stripConversions(config->getArg(i)), ctx);
    return llvm::StringRef(t).starts_with("<<<") ? "" : t; // implicit argument placed at `<<<`
  };
  out.grid = first + 1 < config->getNumArgs() ? stripConversions(config->getArg(first)) : nullptr;
  out.gridText = cfgText(0);
  out.blockText = cfgText(1);
  out.shmemText = cfgText(2);
  out.streamText = cfgText(3);
  out.argTexts.clear();
  for (const Expr *a : out.call->arguments()) {
    if (isDefaultArg(a)) break;
    out.argTexts.push_back(textOf(a, ctx));
  }
  if (out.gridText.empty() || out.blockText.empty())
    return Applicability::no("cannot read the launch configuration", site.span);

  const CompoundStmt *block = nullptr;
  const Stmt *stmt = enclosingStatement(loops::parentsOf(tu.astContext(), pdef), out.call, block);
  if (!stmt)
    return Applicability::no("the launch of " + site.child + " is not a statement of its own", site.span);
  auto [b, e] = statementRange(tu, stmt);
  out.begin = out.groupBegin = b;
  out.end = out.groupEnd = e;
  llvm::StringRef text = tu.mainFileText();
  out.indent = indentationAt(text, b);
  out.counterText.clear();
  out.errorCheckText.clear();
  if (block) {
    const Stmt *prev = nullptr, *next = nullptr;
    for (auto it = block->body_begin(); it != block->body_end(); ++it) {
      if (*it != stmt) continue;
      if (it != block->body_begin()) prev = *(it - 1);
      if (it + 1 != block->body_end()) next = *(it + 1);
    }
    if (prev) {
      auto [pb, pe] = statementRange(tu, prev);
      std::string ptext = text.substr(pb, pe - pb).str();
      if (isLaunchCounter(ptext) && text.substr(pe, b - pe).trim().empty()) {
        out.counterText = ptext;
        out.groupBegin = pb;
      }
    }
    if (next) {
      auto [nb, ne] = statementRange(tu, next);
      std::string ntext = text.substr(nb, ne - nb).str();
      if (isErrorCheck(ntext) && text.substr(e, nb - e).trim().empty() && ntext.find('\n') == std::string::npos) {
        out.errorCheckText = ntext;
        out.groupEnd = ne;
      }
    }
  }
  return Applicability::yes();
}

Applicability hostLaunchesOf(const AnalyzedTU &tu, const std::string &kernel, std::vector<HostLaunch> &out) {
  out.clear();
  for (const LaunchSite &l : tu.model().launches) {
    if (l.child != kernel) continue;
    if (l.deviceSide)
      return Applicability::no(kernel + " is itself launched from the device (" + lineOf(l.span) +
                                   "); its pool must be reset by the host before every launch",
                               l.span);
    const CUDAKernelCallExpr *call = tu.launchExpr(l.id);
    if (!call || call->getBeginLoc().isMacroID())
      return Applicability::no("the host launch of " + kernel + " is written inside a macro", l.span);
    const CompoundStmt *block = nullptr;
    const Stmt *stmt = enclosingStatement(loops::parentsOf(tu.astContext(), tu.functionDecl(l.parent)), call, block);
    if (!stmt) return Applicability::no("the host launch of " + kernel + " is not a statement of its own", l.span);
    HostLaunch h;
    h.site = &l;
    auto [b, e] = statementRange(tu, stmt);
    h.begin = b;
    h.end = e;
    h.indent = indentationAt(tu.mainFileText(), b);
    if (const CallExpr *config = call->getConfig(); config && config->getNumArgs() > 3 && !isDefaultArg(config->getArg(3)))
      h.streamText = textOf(config->getArg(3), tu.astContext());
    out.push_back(h);
  }
  if (out.empty())
    return Applicability::no("no host launch of " + kernel + " in this file; the aggregation pool is reset there");
  return Applicability::yes();
}

Applicability scanChild(const AnalyzedTU &tu, const FunctionDecl *child, ChildScan &out) {
  out = ChildScan{};
  const auto *body = llvm::dyn_cast_or_null<CompoundStmt>(child->getBody());
  if (!body) return Applicability::no("child kernel " + child->getNameAsString() + " has no body");
  const ASTContext &ctx = tu.astContext();
  // Code clang could not parse in the kernel or a function it calls (a
  // macro the build defines, a header Nestor was not given) may read the
  // built-ins the rewrite replaces.
  if (const Kernel *k = tu.model().findKernel(child->getNameAsString()); k && !k->unparsed.empty())
    return Applicability::no("'" + k->name + "' has code clang could not parse (" +
                                 lineRef(k->unparsed.front(), tu.model().file) +
                                 "): which thread or block it reads is unknown (fix the parse error first)",
                             k->unparsed.front());
  out.bodyBegin = offsetOf(tu, body->getLBracLoc());
  out.bodyEnd = offsetOf(tu, body->getRBracLoc()) + 1;
  out.declEnd = out.bodyEnd;
  llvm::StringRef text = tu.mainFileText();
  std::map<unsigned, ChildScan::Ref> refs;
  std::optional<Applicability> refusal;
  std::function<void(const Stmt *, bool)> walk = [&](const Stmt *s, bool inLambda) {
    if (!s || refusal) return;
    if (const VarDecl *v = builtinVar(s)) {
      SourceLocation loc = llvm::cast<DeclRefExpr>(s)->getLocation();
      if (loc.isMacroID()) {
        refusal = Applicability::no("child kernel " + child->getNameAsString() + " reads " + v->getName().str() +
                                        " inside a macro, which a clone cannot rewrite",
                                    spanOf(s, ctx));
        return;
      }
      unsigned b = offsetOf(tu, loc);
      std::string name = v->getName().str();
      refs[b] = {b, unsigned(b + name.size()), name};
      if (name == "blockIdx" || name == "gridDim") {
        // Which component: `.x` keeps the grid one-dimensional for coarsening.
        llvm::StringRef rest = text.substr(b + name.size()).ltrim();
        if (!rest.consume_front(".") || !rest.ltrim().starts_with("x")) out.gridYZ = true;
        else {
          llvm::StringRef comp = rest.ltrim();
          if (comp.size() > 1 && (std::isalnum(static_cast<unsigned char>(comp[1])) || comp[1] == '_')) out.gridYZ = true;
        }
      }
    }
    if (auto *rs = llvm::dyn_cast<ReturnStmt>(s); rs && !inLambda) {
      if (rs->getBeginLoc().isMacroID()) {
        refusal = Applicability::no("a return in child kernel " + child->getNameAsString() + " is inside a macro",
                                    spanOf(s, ctx));
        return;
      }
      auto [b, e] = statementRange(tu, rs);
      out.returns.push_back({b, e, spanOf(s, ctx)});
    }
    bool lam = inLambda || llvm::isa<LambdaExpr>(s);
    for (const Stmt *c : kids(s)) walk(c, lam);
  };
  walk(body, false);
  if (refusal) return *refusal;
  for (auto &[_, r] : refs) out.refs.push_back(r);
  // A callee's built-ins (in any file) are the thread's that runs the clone,
  // and one whose body is not visible may read them.
  cuda::CalleeUseQuery q;
  q.builtin = isBuiltinName;
  q.unknownBodies = true;
  if (auto use = cuda::calleeUse(body, q))
    return Applicability::no("child kernel " + child->getNameAsString() + " calls " +
                                 (use->what.empty() ? cuda::unseenCall(*use)
                                                    : use->callee + "(), which reads " + use->what +
                                                          " (a clone cannot replace it there)"),
                             spanOf(use->via, ctx));
  return Applicability::yes();
}

std::string cloneBody(const AnalyzedTU &tu, const ChildScan &scan,
                      const std::function<std::string(const std::string &)> &replace,
                      const std::optional<std::string> &returnText) {
  struct Edit {
    unsigned b, e;
    std::string text;
  };
  std::vector<Edit> edits;
  for (const auto &r : scan.refs) edits.push_back({r.begin, r.end, replace(r.builtin)});
  if (returnText)
    for (const auto &r : scan.returns) edits.push_back({r.begin, r.end, *returnText});
  std::sort(edits.begin(), edits.end(), [](const Edit &a, const Edit &b) { return a.b < b.b; });
  llvm::StringRef text = tu.mainFileText();
  std::string out;
  unsigned pos = scan.bodyBegin;
  for (const Edit &e : edits) {
    if (e.b < pos) continue; // a built-in inside a replaced return expression
    out += text.substr(pos, e.b - pos).str();
    out += e.text;
    pos = e.e;
  }
  out += text.substr(pos, scan.bodyEnd - pos).str();
  return out;
}

std::vector<std::string> modifiedParams(const FunctionDecl *fd) {
  std::set<std::string> names;
  auto paramOf = [&](const Expr *e) -> const ParmVarDecl * {
    if (!e) return nullptr;
    auto *dre = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    auto *p = dre ? llvm::dyn_cast<ParmVarDecl>(dre->getDecl()) : nullptr;
    return p && p->getDeclContext() == fd ? p : nullptr;
  };
  std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s) return;
    const ParmVarDecl *p = nullptr;
    if (auto *bo = llvm::dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) p = paramOf(bo->getLHS());
    if (auto *uo = llvm::dyn_cast<UnaryOperator>(s); uo && (uo->isIncrementDecrementOp() || uo->getOpcode() == UO_AddrOf))
      p = paramOf(uo->getSubExpr());
    if (auto *oc = llvm::dyn_cast<CXXOperatorCallExpr>(s); oc && oc->isAssignmentOp()) p = paramOf(oc->getArg(0));
    if (p) names.insert(p->getNameAsString());
    for (const Stmt *c : kids(s)) walk(c);
  };
  walk(fd->getBody());
  std::vector<std::string> out;
  for (const ParmVarDecl *p : fd->parameters())
    if (names.count(p->getNameAsString())) out.push_back(p->getNameAsString());
  return out;
}

std::string freshCopies(const std::vector<std::string> &renamed, const std::string &indent) {
  std::string out;
  for (const std::string &n : renamed) out += indent + "auto " + n + " = _arg_" + n + ";\n";
  return out;
}

llvm::Error addRuntimeInclude(const AnalyzedTU &tu, EditSet &reps, unsigned before,
                              const std::vector<std::pair<std::string, std::string>> &defines) {
  llvm::StringRef text = tu.mainFileText();
  std::string defs;
  for (const auto &[name, value] : defines) {
    if (text.contains("#define " + name))
      return llvm::createStringError("%s is already defined in this file; edit it there instead", name.c_str());
    defs += "#ifndef " + name + "\n#define " + name + " " + value + "\n#endif\n";
  }
  if (includesDpRuntime(text)) {
    if (defs.empty()) return llvm::Error::success();
    size_t at = text.find("<nestor/dp.cuh>");
    size_t lineStart = text.rfind('\n', at);
    lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
    reps.insert(unsigned(lineStart), defs, EditSet::kIncludeRank);
    return llvm::Error::success();
  }
  unsigned at = includeInsertionPoint(text, before);
  std::string inc = defs + "#include <nestor/dp.cuh>\n";
  if (at == 0) inc += "\n";
  reps.insert(at, inc, EditSet::kIncludeRank);
  return llvm::Error::success();
}

std::vector<std::string> parameterDecls(const AnalyzedTU &tu, const FunctionDecl *fd,
                                        const std::vector<std::string> &rename) {
  std::vector<std::string> out;
  const ASTContext &ctx = tu.astContext();
  for (const ParmVarDecl *p : fd->parameters()) {
    std::string t = textOf(p->getSourceRange(), ctx);

    if (p->hasDefaultArg() && !p->hasUninstantiatedDefaultArg()) {
      if (const Expr *d = p->getDefaultArg()) {
        SourceSpan ps = spanOf(p->getSourceRange(), ctx), ds = spanOf(d, ctx);
        if (ds.begin.offset > ps.begin.offset) {
          t = t.substr(0, ds.begin.offset - ps.begin.offset);
          while (!t.empty() && (t.back() == ' ' || t.back() == '=')) t.pop_back();
        }
      }
    }
    std::string name = p->getNameAsString();
    if (!name.empty() && std::find(rename.begin(), rename.end(), name) != rename.end()) {
      SourceSpan ps = spanOf(p->getSourceRange(), ctx);
      unsigned at = offsetOf(tu, p->getLocation());
      if (at >= ps.begin.offset && at - ps.begin.offset + name.size() <= t.size())
        t.replace(at - ps.begin.offset, name.size(), "_arg_" + name);
    }
    out.push_back(t);
  }
  return out;
}

namespace {
/// Why device code cannot default-construct a `t` ("" when it can).
std::string deviceDefaultConstructible(QualType t, const ASTContext &ctx, int depth = 0) {
  while (const ArrayType *at = ctx.getAsArrayType(t)) t = at->getElementType();
  const CXXRecordDecl *rd = t->getAsCXXRecordDecl();
  if (!rd || !rd->hasDefinition() || depth > 6) return "";
  rd = rd->getDefinition();
  if (rd->hasTrivialDefaultConstructor()) return "";
  const std::string name = rd->getNameAsString();
  for (const CXXConstructorDecl *c : rd->ctors()) {
    if (!c->isDefaultConstructor()) continue;
    const SourceManager &sm = ctx.getSourceManager();
    SourceLocation loc = sm.getExpansionLoc(c->getLocation());
    std::string at = " (" + (sm.isInMainFile(loc) ? "line " : llvm::sys::path::filename(sm.getFilename(loc)).str() + ":") +
                     std::to_string(sm.getExpansionLineNumber(loc)) + ")";
    if (c->isDeleted()) return "'" + name + "' has a deleted default constructor" + at;
    if (c->isUserProvided() && !c->hasAttr<CUDADeviceAttr>())
      return "the default constructor of '" + name + "' is a __host__ function" + at;
    if (c->isUserProvided()) return "";
  }
  if (!rd->hasDefaultConstructor()) return "'" + name + "' has no default constructor";
  // The implicit one: what its bases and fields need.
  for (const CXXBaseSpecifier &b : rd->bases())
    if (std::string why = deviceDefaultConstructible(b.getType(), ctx, depth + 1); !why.empty()) return why;
  for (const FieldDecl *f : rd->fields())
    if (!f->hasInClassInitializer())
      if (std::string why = deviceDefaultConstructible(f->getType(), ctx, depth + 1); !why.empty()) return why;
  return "";
}
} // namespace

std::string recordFieldProblem(const FunctionDecl *child, const ASTContext &ctx) {
  for (const ParmVarDecl *p : child->parameters())
    if (std::string why = deviceDefaultConstructible(p->getType().getNonReferenceType(), ctx); !why.empty())
      return "the parameter '" + p->getNameAsString() + "' of " + child->getNameAsString() + " is a " +
             p->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy()) + " and " + why +
             ": the record of a launch's arguments would default-construct it in device code";
  return "";
}

} // namespace nestor::dprw
