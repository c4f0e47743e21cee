// Shared parts of rec-hier and rec-flat (RecCommon.h).
#include "RecCommon.h"
#include "nestor/EditSet.h"
#include "../dp_common/DpCommon.h"

#include "nestor/StatementEffects.h"

#include "nestor/AstText.h"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

namespace nestor::rec {
using dprw::lineOf;

Applicability locateRecursion(const AnalyzedTU &tu, const RewriteTarget &t, RecTarget &out) {
  const FileModel &m = tu.model();
  if (t.kind != RewriteTarget::Kind::Launch || t.id < 0 || size_t(t.id) >= m.launches.size())
    return Applicability::no("no kernel launch at this position");
  const LaunchSite &site = m.launches[size_t(t.id)];
  const Kernel *k = m.findKernel(site.child);
  if (!k) return Applicability::no("kernel " + site.child + " was not analysed", site.span);
  if (!k->isRecursive || !k->recursion)
    return Applicability::no(site.child + " is not recursive: rec-hier and rec-flat map a kernel that launches itself",
                             site.span);
  if (!k->unparsed.empty())
    return Applicability::no(k->name + " has code clang could not parse (" + lineOf(k->unparsed.front()) +
                                 "): what its threads do is unknown (fix the parse error first)",
                             k->unparsed.front());
  const RecursionShape &shape = *k->recursion;
  if (!shape.supported) return Applicability::no(shape.reason, shape.reasonSpan);
  const clang::FunctionDecl *fd = tu.functionDecl(k->name);
  const clang::FunctionDecl *def = nullptr;
  if (!fd || !fd->hasBody(def) || !def) return Applicability::no("the body of " + k->name + " is not in this file", site.span);
  if (!tu.sourceManager().isInMainFile(def->getLocation()))
    return Applicability::no(k->name + " is defined in an included file", k->nameSpan);
  if (def->isTemplateInstantiation() || def->getDescribedFunctionTemplate())
    return Applicability::no(k->name + " is a template (not supported)", k->nameSpan);
  if (def->getLocation().isMacroID() || def->getEndLoc().isMacroID())
    return Applicability::no(k->name + " is written inside a macro", k->nameSpan);
  out.kernel = k;
  out.match = matchRecursion(def, tu.astContext());
  if (!out.match.shape.supported) return Applicability::no(out.match.shape.reason, out.match.shape.reasonSpan);
  const clang::ASTContext &ctx = tu.astContext();
  for (const clang::ParmVarDecl *p : def->parameters()) {
    if (p->getName().empty() || p->getName().starts_with("nestor_"))
      return Applicability::no("a parameter of " + k->name + " is unnamed or named nestor_*", k->nameSpan);
    if (p->hasDefaultArg()) return Applicability::no("the parameter '" + p->getNameAsString() + "' has a default argument", k->nameSpan);
    out.paramNames.push_back(p->getNameAsString());
  }
  out.paramDecls = dprw::parameterDecls(tu, def);
  llvm::StringRef text = tu.mainFileText();
  for (const std::string suffix : {"_nestor_pre", "_nestor_visit", "_nestor_flat"})
    if (text.contains(k->name + suffix))
      return Applicability::no(k->name + suffix + " exists already: a recursion rewrite was applied", k->nameSpan);
  if (out.match.postKernel && text.contains(out.match.shape.postOrderKernel + "_nestor_body"))
    return Applicability::no(out.match.shape.postOrderKernel + "_nestor_body exists already", k->nameSpan);
  if (out.match.postKernel && !tu.sourceManager().isInMainFile(out.match.postKernel->getLocation()))
    return Applicability::no("the post-order kernel " + out.match.shape.postOrderKernel + " is defined in an included file",
                             k->nameSpan);
  // The definition, from the start of the line that opens it (`__global__`).
  SourceSpan ds = spanOf(def->getSourceRange(), ctx);
  size_t lineStart = text.rfind('\n', ds.begin.offset);
  lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
  llvm::StringRef prefix = text.slice(lineStart, ds.begin.offset).trim();
  if (!prefix.empty() && prefix != "__global__" && !prefix.starts_with("__global__ ") && !prefix.starts_with("static"))
    return Applicability::no("the definition of " + k->name + " does not start its line", k->nameSpan);
  out.defBegin = unsigned(lineStart);
  out.defEnd = ds.end.offset;
  if (const clang::FunctionDecl *prev = def->getPreviousDecl())
    return Applicability::no(k->name + " is also declared at " + lineOf(spanOf(prev->getSourceRange(), ctx)) +
                                 ": the rewrite replaces its definition",
                             spanOf(prev->getSourceRange(), ctx));
  if (out.match.oneBlockPerNode)
    for (int id : shape.hostLaunches) {
      const LaunchSite &l = m.launches[size_t(id)];
      if (!l.gridValue || *l.gridValue != 1)
        return Applicability::no("the host launch at line " + std::to_string(l.span.begin.line) + " runs `" + l.grid +
                                     "` blocks, and each block of " + k->name +
                                     " strides over all the node's children from threadIdx.x: every block would visit "
                                     "every child",
                                 l.span);
    }
  out.childType = out.match.child->getType().getAsString(ctx.getPrintingPolicy());
  out.slotType = out.match.slot->getType().getAsString(ctx.getPrintingPolicy());
  return Applicability::yes();
}

std::string callArgs(const std::vector<std::string> &args, const std::string &extra) { return dprw::joinArgs(args, extra); }

std::string childArgs(const RecTarget &r, const std::vector<std::string> &args, const std::string &child,
                      const std::string &absoluteSlot, const std::string &parent) {
  if (!r.match.preReadsSlot) return callArgs(args, child);
  const std::string slot = r.match.slotRelative ? "(" + absoluteSlot + ") - " + r.match.shape.offsets + "[" + parent + "]"
                                                : absoluteSlot;
  return callArgs(args, child + ", static_cast<" + r.slotType + ">(" + slot + ")");
}

std::vector<std::string> nextLevelArgs(const AnalyzedTU &tu, const RecTarget &r) {
  std::vector<std::string> out;
  for (const clang::Expr *a : r.match.selfCall->arguments()) out.push_back(textOf(a, tu.astContext()));
  return out;
}

namespace {
std::string statementText(const AnalyzedTU &tu, const clang::Stmt *s) {
  std::string t = textOf(s, tu.astContext());
  // Expression statements end before their `;`.
  if (llvm::isa<clang::Expr>(s) || llvm::isa<clang::ReturnStmt>(s)) t += ";";
  return t;
}
} // namespace

std::string edgeFunctions(const AnalyzedTU &tu, const RecTarget &r, bool hier) {
  const clang::ASTContext &ctx = tu.astContext();
  const std::string k = r.kernel->name;
  // The condition never reads the slot (the analysis refuses that); the
  // child's statements get it as a last parameter where they read it.
  const std::string childParam = r.childType + " " + r.match.shape.childVar;
  const std::string condParams = callArgs(r.paramDecls, childParam);
  const std::string params =
      r.match.preReadsSlot ? callArgs(r.paramDecls, childParam + ", " + r.slotType + " " + r.match.shape.slotVar) : condParams;
  std::string pre;
  for (const clang::Stmt *s : r.match.pre) {
    std::string t = statementText(tu, s);
    if (r.match.launchInChildStatements && s == r.match.pre.back()) {
      // The statement that holds the self-launch: the child recurses where
      // the original launched (the launch ends every path that reaches it).
      SourceSpan whole = spanOf(s, ctx), launch = spanOf(r.match.selfCall, ctx);
      if (launch.begin.offset >= whole.begin.offset && launch.end.offset <= whole.begin.offset + t.size())
        t.replace(launch.begin.offset - whole.begin.offset, launch.end.offset - launch.begin.offset, "return true");
    }
    pre += "  " + t + "\n";
  }
  const std::string cond = r.match.condition ? textOf(r.match.condition, ctx) : "true";
  std::string out;
  if (hier) {
    out += "// One child's pre-order statements (" + k + ", lines " + std::to_string(r.kernel->bodySpan.begin.line) + "-" +
           std::to_string(r.kernel->bodySpan.end.line) + ").\n__device__ __forceinline__ void " + k + "_nestor_pre(" + params +
           ") {\n" + pre + "}\n\n";
    // The condition from the tree only: the pure declarations it may read.
    std::string decls;
    std::set<const clang::VarDecl *> known;
    for (const clang::Stmt *s : r.match.pre) {
      auto *ds = llvm::dyn_cast<clang::DeclStmt>(s);
      if (!ds) continue;
      StatementEffects fx = effectsOf(s, ctx);
      bool pure = !fx.memWrite && !fx.impureCall && fx.atomics.empty();
      for (const clang::VarDecl *v : fx.reads)
        if (!llvm::isa<clang::ParmVarDecl>(v) && v != r.match.child && !known.count(v)) pure = false;
      if (!pure) continue;
      known.insert(fx.declared.begin(), fx.declared.end());
      decls += "  " + statementText(tu, s) + "\n";
    }
    out += "// Whether a child recurses: depends on the tree only, so a block may ask it of every\n// grandchild before any of their pre-order statements ran.\n"
           "__device__ __forceinline__ bool " + k + "_nestor_recurses(" + condParams + ") {\n" + decls + "  return " + cond + ";\n}\n\n";
  } else {
    out += "// One child: its pre-order statements, then whether it recurses (" + k + ", lines " +
           std::to_string(r.kernel->bodySpan.begin.line) + "-" + std::to_string(r.kernel->bodySpan.end.line) +
           ").\n__device__ __forceinline__ bool " + k + "_nestor_visit(" + params + ") {\n" + pre + "  return " +
           (r.match.launchInChildStatements ? std::string("false") : cond) + ";\n}\n\n";
  }
  if (const clang::FunctionDecl *post = r.match.postKernel) {
    const std::string c = r.match.shape.postOrderKernel;
    std::vector<std::string> cparams = dprw::parameterDecls(tu, post);
    std::vector<std::string> postArgs;
    for (const clang::Expr *a : r.match.postCall->arguments()) postArgs.push_back(textOf(a, ctx));
    out += "// The post-order kernel " + c + " as a function: replayed for a node once its subtree is done.\n"
           "__device__ __forceinline__ void " + c + "_nestor_body(" + callArgs(cparams) + ") " +
           textOf(post->getBody(), ctx) + "\n\n__device__ __forceinline__ void " + k + "_nestor_post(" + callArgs(r.paramDecls) +
           ") { " + c + "_nestor_body(" + callArgs(postArgs) + "); }\n\n";
  }
  return out;
}

void addRecInclude(const AnalyzedTU &tu, EditSet &reps, unsigned before) {
  llvm::StringRef text = tu.mainFileText();
  if (text.contains("<nestor/rec.cuh>")) return;
  unsigned at = dprw::includeInsertionPoint(text, before);
  std::string inc = "#include <nestor/rec.cuh>\n";
  if (at == 0) inc += "\n";
  reps.insert(at, inc, EditSet::kIncludeRank);
}

} // namespace nestor::rec
