// aggregate (thesis §2.4, KLAP): the launches of one warp, one block or the
// whole parent grid become one launch, through the pool of <nestor/dp.cuh>.
//
//   - `<child>__agg_args` (the child's parameters as a struct) and
//     `<child>__agg`, the child cloned for aggregated launches: it locates the
//     original launch of its block (binary search over the scanned block
//     counts, agg_child_locate), copies that launch's arguments into locals of
//     the parameters' names and runs the body, built-ins replaced by the
//     original launch's, for the threads of the original block
//     (`if (_c.active)`: the aggregated launch uses the largest block);
//   - a __device__ pool `<child>__agg_pool`, allocated by the host on first use;
//   - at the launch: the configuration and arguments evaluated once, then
//     aggregate_warp / aggregate_grid (at the launch) or aggregate_block (at the
//     end of the parent, by every thread, since it holds barriers). When the
//     pool refuses (full, launch too large) the original launch is made,
//     with its counter and error check;
//   - at every host launch of the parent: the pool is reset before it, and
//     (grid) after it the host launches the aggregated child.
#include "../dp_common/DpCommon.h"
#include "nestor/EditSet.h"
#include "nestor/AstText.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/Support/raw_ostream.h"

#include <regex>

namespace nestor {
namespace {
using namespace dprw;

// The launch's block is a compile-time constant (an integer, or a dim3 of
// integers), so every launch of the batch has the same block.
bool constantBlock(const LaunchStatement &ls) {
  const clang::CallExpr *cfg = ls.call ? ls.call->getConfig() : nullptr;
  if (!cfg) return false;
  // Device-side launches configure through cudaLaunchDevice(buf, fn, grid, block, ...).
  unsigned index = cfg->getNumArgs() >= 6 ? 3 : 1;
  if (index >= cfg->getNumArgs()) return false;
  const clang::ASTContext &ctx = ls.child->getASTContext();
  auto isConst = [&](const clang::Expr *e) {
    clang::Expr::EvalResult r;
    return e && !e->isValueDependent() && e->EvaluateAsInt(r, ctx);
  };
  const clang::Expr *block = cfg->getArg(index)->IgnoreImplicit();
  if (auto *fc = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(block)) block = fc->getSubExpr()->IgnoreImplicit();
  if (auto *ce = llvm::dyn_cast<clang::CXXConstructExpr>(block)) {
    for (const clang::Expr *a : ce->arguments())
      if (!llvm::isa<clang::CXXDefaultArgExpr>(a) && !isConst(a)) return false;
    return true;
  }
  return isConst(block);
}

// Names of the local variables declared in a function body.
std::vector<std::string> localNames(const clang::Stmt *s) {
  std::vector<std::string> out;
  if (!s) return out;
  if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s))
    for (const clang::Decl *d : ds->decls())
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(d)) out.push_back(v->getNameAsString());
  for (const clang::Stmt *c : s->children())
    for (std::string &n : localNames(c)) out.push_back(std::move(n));
  return out;
}

class Aggregate final : public Rewrite {
public:
  const char *id() const override { return "aggregate"; }
  /// Aggregation alone: 12.1x over CDP in the thesis (Fig. 5.1).
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {{{"aggregate"}, 3}}, {{"aggregate", "granularity"}}};
    return i;
  }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Launch; }
  const char *summary() const override {
    return "Aggregate the device launches of a warp, a block or the parent grid into one launch (KLAP)";
  }
  std::vector<ParamSpec> params() const override {
    return {{"granularity", {"warp", "block", "grid"}, "warp",
             "warp: one launch per warp; block: one per parent block; grid: the host launches once after the parent",
             /*preferred: the highest granularity wins in the thesis (§5.3)*/ "grid"}};
  }
  std::vector<RewriteParams> variants() const override {
    return {{{"granularity", "warp"}}, {{"granularity", "block"}}, {{"granularity", "grid"}}};
  }
  std::string title(const RewriteParams &p) const override {
    auto g = p.find("granularity");
    std::string gr = g == p.end() ? "warp" : g->second;
    return gr == "grid" ? "Aggregate launches per grid (host launch)" : "Aggregate launches per " + gr;
  }

  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &p) const override {
    LaunchStatement ls;
    std::vector<HostLaunch> hosts;
    ChildScan scan;
    return check(tu, t, p, ls, hosts, scan);
  }

  Applicability check(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &p, LaunchStatement &ls,
                      std::vector<HostLaunch> &hosts, ChildScan &scan) const {
    Applicability a = locateLaunch(tu, t, ls);
    if (!a.applies) return a;
    const LaunchSite &site = *ls.site;
    const std::string gran = p.count("granularity") ? p.at("granularity") : "warp";
    if (const clang::FunctionDecl *f = tu.functionDecl(site.child + "__agg"))
      return Applicability::no("aggregate already applied: " + site.child + "__agg exists",
                               spanOf(f->getSourceRange(), tu.astContext()));
    const Kernel *k = tu.model().findKernel(site.child);
    if (!k) return Applicability::no("child kernel " + site.child + " was not analysed", site.span);
    // An aggregated block runs with the largest block of its batch and masks
    // the threads beyond its own launch's block. With barriers in the child
    // that is only safe when every launch has the same, constant block: then
    // no thread is masked and each barrier is reached by the whole block.
    if (!k->barriers.empty() && !constantBlock(ls))
      return Applicability::no("child " + site.child + " uses " + k->barriers.front().name + " (" +
                                   lineOf(k->barriers.front().span) + ") and its block size (" + ls.blockText +
                                   ") is not a compile-time constant: launches of different block sizes would "
                                   "leave masked threads out of the barrier",
                               k->barriers.front().span);
    for (const clang::ParmVarDecl *pv : ls.child->parameters())
      if (pv->getName().empty())
        return Applicability::no("child " + site.child + " has an unnamed parameter", site.span);
    if (std::string why = recordFieldProblem(ls.child, tu.astContext()); !why.empty())
      return Applicability::no(why, k->nameSpan);
    if (!ls.streamText.empty())
      return Applicability::no("the launch names a stream (" + ls.streamText + "); aggregated launches use the default one",
                               site.span);
    if (!ls.shmemText.empty() && !std::regex_match(ls.shmemText, std::regex(R"(\s*[0-9]+[uUlL]*\s*)")))
      return Applicability::no("the launch's dynamic shared memory (" + ls.shmemText +
                                   ") is not a constant; an aggregated launch has one size",
                               site.span);
    a = hostLaunchesOf(tu, site.parent, hosts);
    if (!a.applies) return a;
    a = scanChild(tu, ls.child, scan);
    if (!a.applies) return a;
    if (gran == "block") {
      if (!site.enclosingLoops.empty())
        return Applicability::no("block granularity needs at most one launch per parent thread, but the launch is in "
                                 "a loop (use warp or grid)",
                                 tu.model().loops[size_t(site.enclosingLoops.front())].headerSpan);
      ChildScan ps;
      a = scanChild(tu, ls.parent, ps);
      if (!a.applies) return a;
      if (!ps.returns.empty())
        return Applicability::no("block granularity: parent " + site.parent + " returns early (" +
                                     lineOf(ps.returns.front().span) +
                                     "), but every thread must reach the aggregation point (use warp or grid)",
                                 ps.returns.front().span);
      std::vector<std::string> locals = localNames(ls.parent->getBody());
      for (const std::string &txt : {ls.counterText, ls.errorCheckText})
        for (const std::string &l : locals)
          if (!txt.empty() && mentionsIdentifier(txt, l))
            return Applicability::no("block granularity: the launch bookkeeping '" + txt + "' uses the local " + l +
                                         ", which the end of the parent cannot see",
                                     site.span);
    }
    return Applicability::yes();
  }

  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    LaunchStatement ls;
    std::vector<HostLaunch> hosts;
    ChildScan scan;
    Applicability a = check(tu, t, p, ls, hosts, scan);
    if (!a.applies) return llvm::createStringError("%s", a.reason.c_str());
    const LaunchSite &site = *ls.site;
    const std::string gran = p.count("granularity") ? p.at("granularity") : "warp";
    const std::string child = site.child, argsT = child + "__agg_args", pool = child + "__agg_pool";
    const clang::ASTContext &ctx = tu.astContext();
    EditSet reps(tu);

    // 1. Argument struct, aggregated child, pool.
    std::string fields, copies, fallbackArgs, assigns;
    std::vector<std::string> names;
    for (const clang::ParmVarDecl *pv : ls.child->parameters()) {
      std::string decl;
      llvm::raw_string_ostream os(decl);
      pv->getType().getUnqualifiedType().print(os, ctx.getPrintingPolicy(), pv->getName());
      fields += "  " + os.str() + ";\n";
      names.push_back(pv->getNameAsString());
      copies += "    auto " + pv->getNameAsString() + " = _c.args->" + pv->getNameAsString() + ";\n";
    }
    std::string body = cloneBody(tu, scan, [](const std::string &b) { return "_c." + b; }, std::nullopt);
    std::string gen;
    gen += "\n\n// One launch of " + child + ", recorded for aggregation (Nestor aggregate rewrite).\n";
    gen += "struct " + argsT + " {\n" + fields + "};\n\n";
    gen += "// " + child + " for aggregated launches: each block finds the launch it belongs to; threads\n"
           "// beyond that launch's block (the aggregated block is the largest) skip the body.\n";
    gen += "__global__ void " + child + "__agg(nestor::dp::agg_batch<" + argsT + "> _batch) {\n";
    gen += "  const nestor::dp::agg_child<" + argsT + "> _c = nestor::dp::agg_child_locate(_batch);\n";
    gen += "  if (_c.active) {\n" + copies + "    " + indentLines(body, "    ") + "\n  }\n}\n\n";
    gen += "// Launch records of " + child + ", reset by the host before every launch of " + site.parent + ".\n";
    gen += "__device__ nestor::dp::agg_pool<" + argsT + "> " + pool + ";\n";
    gen += "static nestor::dp::agg_pool<" + argsT + "> " + pool + "_host() {\n";
    gen += "  static nestor::dp::agg_pool_owner<" + argsT + "> owner;\n";
    gen += "  if (!owner.pool().counters) {\n";
    gen += "    nestor::dp::agg_host_check(owner.create(), \"" + pool + ": allocation\");\n";
    gen += "    nestor::dp::agg_host_check(cudaMemcpyToSymbol(" + pool + ", &owner.pool(), sizeof(owner.pool())), \"" +
           pool + ": cudaMemcpyToSymbol\");\n";
    gen += "  }\n  return owner.pool();\n}";
    reps.add(scan.declEnd, scan.declEnd, gen);

    // 2. The launch.
    std::string shm = ls.shmemText.empty() ? "" : ", " + ls.shmemText;
    const std::string pre = gran == "block" ? "_agg_" + child + "_" : "_agg_";
    std::vector<std::string> fromStruct;
    for (size_t i = 0; i < names.size(); ++i) fromStruct.push_back(pre + "args." + names[i]);
    auto fallback = [&](const std::string &in) {
      std::string f;
      if (!ls.counterText.empty()) f += in + ls.counterText + "\n";
      f += in + child + "<<<" + pre + "grid, " + pre + "block" + shm + ">>>(" + joinArgs(fromStruct) + ");\n";
      if (!ls.errorCheckText.empty()) f += in + ls.errorCheckText + "\n";
      return f;
    };
    const std::string in = ls.indent + "  ";
    std::string site_;
    if (gran == "block") {
      site_ = "{\n" + in + pre + "grid = dim3(" + ls.gridText + ");\n" + in + pre + "block = dim3(" + ls.blockText + ");\n";
      for (size_t i = 0; i < names.size() && i < ls.argTexts.size(); ++i)
        site_ += in + pre + "args." + names[i] + " = " + ls.argTexts[i] + ";\n";
      site_ += in + pre + "want = true;  // launched at the end of " + site.parent + ", aggregated per block\n" +
               ls.indent + "}";
      // Declarations at the top of the parent, the aggregation point at its end.
      const auto *pbody = llvm::cast<clang::CompoundStmt>(ls.parent->getBody());
      SourceSpan lb = spanOf(clang::SourceRange(pbody->getLBracLoc(), pbody->getLBracLoc()), ctx);
      SourceSpan rb = spanOf(clang::SourceRange(pbody->getRBracLoc(), pbody->getRBracLoc()), ctx);
      std::string top = "\n  // This thread's launch of " + child + " (Nestor aggregate rewrite, block granularity).\n"
                        "  bool " + pre + "want = false;\n  dim3 " + pre + "grid, " + pre + "block;\n  " + argsT + " " +
                        pre + "args{};";
      reps.add(lb.end.offset, lb.end.offset, top);
      std::string end = "  // Every thread of the block gets here: one launch for the block's launches.\n"
                        "  if (!nestor::dp::aggregate_block(" + pool + ", " + child + "__agg, " + pre + "want, " + pre +
                        "grid, " + pre + "block, " + pre + "args" + shm + ")) {\n" + fallback("    ") + "  }\n";
      // Keep the closing brace on its own line.
      llvm::StringRef text = tu.mainFileText();
      unsigned at = rb.begin.offset;
      while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
      reps.add(at, at, end);
    } else {
      site_ = "{\n" + in + "const dim3 _agg_grid(" + ls.gridText + "), _agg_block(" + ls.blockText + ");\n";
      site_ += in + argsT + " _agg_args;\n";
      for (size_t i = 0; i < names.size() && i < ls.argTexts.size(); ++i)
        site_ += in + "_agg_args." + names[i] + " = " + ls.argTexts[i] + ";\n";
      std::string call = gran == "grid"
                             ? "nestor::dp::aggregate_grid(" + pool + ", _agg_grid, _agg_block, _agg_args)"
                             : "nestor::dp::aggregate_warp(" + pool + ", " + child + "__agg, _agg_grid, _agg_block, _agg_args" + shm + ")";
      site_ += in + "if (!" + call + ") {\n" + in + "  // refused (pool full, launch too large): the original launch\n" +
               fallback(in + "  ") + in + "}\n" + ls.indent + "}";
    }
    reps.add(ls.groupBegin, ls.groupEnd, site_);

    // 3. Host launches of the parent.
    llvm::StringRef text = tu.mainFileText();
    for (const HostLaunch &h : hosts) {
      std::string hin = h.indent + "  ";
      std::string stream = h.streamText.empty() ? "" : ", " + h.streamText;
      std::string s = "{\n" + hin + "const nestor::dp::agg_pool<" + argsT + "> _agg_pool = " + pool + "_host();\n";
      s += hin + "nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool" + stream + "), \"" + pool + ": reset\");\n";
      s += hin + text.substr(h.begin, h.end - h.begin).str() + "\n";
      if (gran == "grid") {
        s += hin + "// After the parent grid: one launch of every recorded " + child + " launch.\n";
        s += hin + "nestor::dp::agg_grid_plan _agg_plan;\n";
        s += hin + "nestor::dp::agg_host_check(nestor::dp::agg_grid_read_plan(_agg_pool, &_agg_plan" + stream + "), \"" +
             pool + ": read plan\");\n";
        s += hin + "nestor::dp::agg_host_check(nestor::dp::agg_grid_launch(_agg_pool, _agg_plan, " + child + "__agg, " +
             (ls.shmemText.empty() ? "0" : ls.shmemText) + stream + "), \"" + child + "__agg: launch\");\n";
      }
      s += h.indent + "}";
      reps.add(h.begin, h.end, s);
    }
    unsigned childBegin = spanOf(ls.child->getSourceRange(), ctx).begin.offset;
    if (auto e = addRuntimeInclude(tu, reps, childBegin)) return std::move(e);
    return reps.replacements();
  }
};
} // namespace

const Rewrite &AggregateRewrite() {
  static const Aggregate r;
  return r;
}
} // namespace nestor
