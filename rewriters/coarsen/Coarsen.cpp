// coarsen (thesis §3.2): one block of the child runs NESTOR_CFACTOR original
// blocks, one after another, in every grid dimension the child uses (x only
// when it reads just blockIdx.x/gridDim.x; x, y and z otherwise).
//
//   - the child kernel gets a last parameter `dim3 _gDim` (the original grid)
//     and its body is wrapped in the loops of Fig. 3.4 (strategy 1: stride
//     gridDim; 2: a contiguous run of blocks; 3: a constant-trip loop over the
//     factor), with blockIdx -> _bIdx and gridDim -> _gDim. The loop bounds
//     depend only on blockIdx/gridDim/_gDim, so they are block-uniform and
//     barriers in the body stay legal; when the child uses __shared__, a
//     __syncthreads() separates iterations. A `return` ends only the current
//     original block (it becomes a jump to the end of the iteration).
//   - the launch evaluates the grid once into _gDim and launches
//     nestor::dp::coarsen_x(_gDim, F) (or coarsen_xyz) blocks.
// The child is changed in place (so later rewrites still find it by name),
// which is why every launch of it must be this one.
#include "../dp_common/DpCommon.h"
#include "nestor/EditSet.h"
#include "nestor/AstText.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace nestor {
namespace {
using namespace dprw;

class Coarsen final : public Rewrite {
public:
  const char *id() const override { return "coarsen"; }
  /// Coarsening helps only with aggregation or a threshold (thesis Fig. 5.1-5.3).
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {{{"coarsen", "aggregate"}, 4}, {{"coarsen"}, 6}}, {{"coarsen", "factor", {{"strategy", "1"}}}}};
    return i;
  }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Launch; }
  const char *summary() const override {
    return "Make each child block run NESTOR_CFACTOR original blocks (thesis Fig. 3.4 strategies)";
  }
  std::vector<ParamSpec> params() const override {
    return {{"factor", {}, "", "default of NESTOR_CFACTOR written into the file (-D still overrides); empty: the "
                                "runtime's default (4)",
             /*preferred: small factors help, large ones hurt (thesis §5.4)*/ "2"},
            {"strategy", {"1", "2", "3"}, "1",
             "1: stride by the coarse grid; 2: a contiguous run of blocks; 3: a loop over the factor"}};
  }
  std::vector<RewriteParams> variants() const override {
    return {{{"factor", "2"}, {"strategy", "1"}}, {{"factor", "4"}, {"strategy", "1"}},
            {{"factor", "8"}, {"strategy", "1"}}};
  }
  std::string title(const RewriteParams &p) const override {
    auto f = p.find("factor");
    std::string t = "Coarsen child grid x" + (f == p.end() || f->second.empty() ? std::string("NESTOR_CFACTOR") : f->second);
    auto s = p.find("strategy");
    if (s != p.end() && s->second != "1") t += " (strategy " + s->second + ")";
    return t;
  }

  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &) const override {
    LaunchStatement ls;
    Applicability a = locateLaunch(tu, t, ls);
    if (!a.applies) return a;
    const LaunchSite &site = *ls.site;
    for (const clang::ParmVarDecl *p : ls.child->parameters())
      if (p->getName() == "_gDim")
        return Applicability::no("coarsen already applied: " + site.child + " has the _gDim parameter",
                                 spanOf(p->getSourceRange(), tu.astContext()));
    if (tu.functionDecl(site.child + "__agg"))
      return Applicability::no("launches of " + site.child + " are already aggregated: apply coarsen before aggregate",
                               site.span);
    const Kernel *k = tu.model().findKernel(site.child);
    if (!k) return Applicability::no("child kernel " + site.child + " was not analysed", site.span);
    if (k->isRecursive)
      return Applicability::no("child kernel " + site.child + " launches itself (recursion); coarsening it would "
                               "change what the nested launches see", site.span);
    int launches = 0;
    for (const LaunchSite &l : tu.model().launches)
      if (l.child == site.child) ++launches;
    if (launches != 1)
      return Applicability::no(site.child + " is launched from " + std::to_string(launches) +
                                   " places; coarsen changes its parameters, so it must have one launch",
                               site.span);
    if (ls.gridText != "_gDim" && mentionsIdentifier(ls.gridText + " " + ls.blockText, "_gDim"))
      return Applicability::no("the launch configuration already uses the name _gDim", site.span);
    for (const char *n : {"_bIdx"})
      if (mentionsIdentifier(joinArgs(ls.argTexts), n))
        return Applicability::no(std::string("the launch already uses the name ") + n, site.span);
    ChildScan scan;
    a = scanChild(tu, ls.child, scan);
    if (!a.applies) return a;
    if (!scan.returns.empty() && !k->barriers.empty())
      return Applicability::no("child " + site.child + " returns early (" + lineOf(scan.returns.front().span) +
                                   ") and uses __syncthreads: in a coarsened block the returned threads would miss "
                                   "the barriers of the next blocks",
                               scan.returns.front().span);
    return Applicability::yes();
  }

  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    LaunchStatement ls;
    Applicability a = locateLaunch(tu, t, ls);
    ChildScan scan;
    if (a.applies) a = scanChild(tu, ls.child, scan);
    if (!a.applies) return llvm::createStringError("%s", a.reason.c_str());
    const LaunchSite &site = *ls.site;
    const Kernel *k = tu.model().findKernel(site.child);
    const bool shared = k && !k->shared.empty();
    const std::string strategy = p.count("strategy") ? p.at("strategy") : "1";
    const std::string F = "NESTOR_CFACTOR";
    const bool xyz = scan.gridYZ;
    EditSet reps(tu);
    const clang::ASTContext &ctx = tu.astContext();

    // 1. The child: extra parameter, loops around the body.
    std::vector<std::string> renamed = modifiedParams(ls.child);
    std::string body = cloneBody(
        tu, scan, [](const std::string &b) { return b == "blockIdx" ? "_bIdx" : b == "gridDim" ? "_gDim" : b; },
        scan.returns.empty() ? std::nullopt : std::optional<std::string>("goto _nestor_next_block;"));
    std::vector<const char *> dims = xyz ? std::vector<const char *>{"z", "y", "x"} : std::vector<const char *>{"x"};
    std::string loops, close, in = "  ";
    for (const char *d : dims) {
      std::string v = std::string("_b") + d, bi = std::string("blockIdx.") + d, gd = std::string("_gDim.") + d;
      if (strategy == "1") {
        loops += in + "for (unsigned " + v + " = " + bi + "; " + v + " < " + gd + "; " + v + " += gridDim." + d + ") {\n";
      } else if (strategy == "2") {
        std::string end = "(" + bi + " + 1) * " + F;
        loops += in + "for (unsigned " + v + " = " + bi + " * " + F + "; " + v + " < (" + end + " < " + gd + " ? " + end +
                 " : " + gd + "); ++" + v + ") {\n";
      } else {
        std::string ci = std::string("_ci_") + d;
        loops += in + "for (unsigned " + ci + " = 0; " + ci + " < " + F + "; ++" + ci + ") {\n";
        loops += in + "  const unsigned " + v + " = " + bi + " * " + F + " + " + ci + ";\n";
        loops += in + "  if (" + v + " < " + gd + ") {\n";
        close = in + "  }\n" + close;
        in += "  ";
      }
      close = in + "}\n" + close;
      in += "  ";
    }
    std::string inner;
    inner += in + "const dim3 _bIdx(" + (xyz ? std::string("_bx, _by, _bz") : std::string("_bx, blockIdx.y, blockIdx.z")) + ");\n";
    inner += freshCopies(renamed, in);
    inner += in + indentLines(body, in) + "\n";
    if (!scan.returns.empty()) inner += in + "_nestor_next_block:;\n";
    if (shared) inner += in + "__syncthreads();  // the next block reuses the shared memory\n";
    std::string newBody = "{\n" + in.substr(0, 2) + "// Coarsened by Nestor (strategy " + strategy + "): each block runs " + F +
                          " original blocks" + (xyz ? " per dimension" : "") + ".\n" + loops + inner + close + "}";
    reps.add(scan.bodyBegin, scan.bodyEnd, newBody);
    // The parameter list: append `dim3 _gDim`, renaming modified parameters.
    const auto *proto = ls.child;
    if (!renamed.empty()) {
      for (const clang::ParmVarDecl *pv : proto->parameters()) {
        if (std::find(renamed.begin(), renamed.end(), pv->getNameAsString()) == renamed.end()) continue;
        SourceSpan ns = spanOf(clang::SourceRange(pv->getLocation(), pv->getLocation()), ctx);
        reps.add(ns.begin.offset, ns.end.offset, "_arg_" + pv->getNameAsString());
      }
    }
    unsigned rparen = spanOf(clang::SourceRange(proto->getFunctionTypeLoc().getRParenLoc(),
                                                proto->getFunctionTypeLoc().getRParenLoc()), ctx).begin.offset;
    reps.add(rparen, rparen, proto->getNumParams() ? ", dim3 _gDim" : "dim3 _gDim");

    // 2. The launch.
    const std::string coarse = std::string("nestor::dp::") + (xyz ? "coarsen_xyz" : "coarsen_x") + "(_gDim, " + F + ")";
    std::string config = coarse + ", " + ls.blockText;
    if (!ls.shmemText.empty()) config += ", " + ls.shmemText;
    if (!ls.streamText.empty()) config += ", " + ls.streamText;
    std::string launch = site.child + "<<<" + config + ">>>(" + joinArgs(ls.argTexts, "_gDim") + ");";
    const clang::Expr *g = ls.grid;
    bool plainName = g && llvm::isa<clang::DeclRefExpr>(g->IgnoreParenImpCasts()) && ls.gridText == "_gDim";
    std::string text;
    if (plainName) {
      text = launch; // after threshold: the grid is already evaluated into _gDim
    } else {
      text = "{\n" + ls.indent + "  const dim3 _gDim(" + ls.gridText + ");\n" + ls.indent + "  " + launch + "\n" +
             ls.indent + "}";
    }
    reps.add(ls.begin, ls.end, text);

    std::vector<std::pair<std::string, std::string>> defines;
    if (auto it = p.find("factor"); it != p.end() && !it->second.empty()) defines.push_back({"NESTOR_CFACTOR", it->second});
    unsigned childBegin = spanOf(ls.child->getSourceRange(), ctx).begin.offset;
    if (auto e = addRuntimeInclude(tu, reps, childBegin, defines)) return std::move(e);
    return reps.replacements();
  }
};
} // namespace

const Rewrite &CoarsenRewrite() {
  static const Coarsen r;
  return r;
}
} // namespace nestor
