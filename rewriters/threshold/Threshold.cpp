// threshold (thesis §3.1): launches whose inferred child thread count is below
// NESTOR_THRESHOLD run serially in the parent thread.
//
//   - `<child>__serial`, a __device__ copy of the child that runs every thread
//     of the <<<grid, block>>> launch (all of x/y/z) through
//     nestor::dp::serial_for_each; the built-ins become fields of the
//     iteration's serial_ctx, and a `return` (now inside a lambda) ends only
//     that child thread's iteration, as it did in the child;
//   - at the launch, the configuration is evaluated once into _gDim/_bDim (the
//     thread count N is bound to __threads and substituted into the grid
//     expression, thesis §3.1.3), then
//       if (__threads >= NESTOR_THRESHOLD) launch; else <child>__serial(..., _gDim, _bDim);
//     A launch counter directly before the launch and an error check directly
//     after it move into the launching branch with it.
// Offered only for serialisable children (LaunchSite::serializable).
#include "../dp_common/DpCommon.h"
#include "nestor/EditSet.h"
#include "nestor/AstText.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace nestor {
namespace {
using namespace dprw;

// True when a thread-count text can be evaluated a second time safely.
bool sideEffectFreeText(const std::string &t) {
  if (t.find("++") != std::string::npos || t.find("--") != std::string::npos) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '=') continue;
    char prev = i ? t[i - 1] : ' ', next = i + 1 < t.size() ? t[i + 1] : ' ';
    if (next == '=') { ++i; continue; }
    if (prev != '=' && prev != '!' && prev != '<' && prev != '>') return false;
  }
  return true;
}

std::string squeeze(const std::string &s) {
  std::string o;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) o += c;
  return o;
}

// The outermost subexpression of the grid whose text is `threads`.
const clang::Expr *findThreadsExpr(const AnalyzedTU &tu, const clang::Expr *grid, const std::string &threads) {
  const std::string want = squeeze(threads);
  std::function<const clang::Expr *(const clang::Stmt *)> walk = [&](const clang::Stmt *s) -> const clang::Expr * {
    if (!s) return nullptr;
    if (auto *e = llvm::dyn_cast<clang::Expr>(s))
      if (!e->getBeginLoc().isMacroID() && !e->getEndLoc().isMacroID() && squeeze(textOf(e, tu.astContext())) == want)
        return e;
    for (const clang::Stmt *c : s->children())
      if (const clang::Expr *f = walk(c)) return f;
    return nullptr;
  };
  return walk(grid);
}

class Threshold final : public Rewrite {
public:
  const char *id() const override { return "threshold"; }
  /// The thesis' order of application (threshold, coarsen, aggregate, §3.3)
  /// and of measured speed-ups over CDP: T+C+A 43.0x, T+A, T 13.4x, then A
  /// 12.1x, C+A, T+C, C (Fig. 5.1-5.3).
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false,
                               {{{"threshold", "coarsen", "aggregate"}, 0},
                                {{"threshold", "aggregate"}, 1},
                                {{"threshold"}, 2},
                                {{"threshold", "coarsen"}, 5}},
                               {{"threshold", "threshold"}}};
    return i;
  }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Launch; }
  const char *summary() const override {
    return "Run device launches below NESTOR_THRESHOLD child threads serially in the parent thread";
  }
  std::vector<ParamSpec> params() const override {
    return {{"threshold", {}, "", "default of NESTOR_THRESHOLD written into the file (-D still overrides); "
                                  "empty: the runtime's default (128)",
             /*preferred: an interior value; the thesis' speed-up rises then falls with it (§5.3)*/ "128"}};
  }
  std::vector<RewriteParams> variants() const override {
    return {{{"threshold", "32"}}, {{"threshold", "128"}}, {{"threshold", "512"}}, {{"threshold", "2048"}}};
  }
  std::string title(const RewriteParams &p) const override {
    auto it = p.find("threshold");
    std::string t = it == p.end() || it->second.empty() ? "NESTOR_THRESHOLD" : it->second;
    return "Threshold device launch at " + t + " threads";
  }

  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &) const override {
    LaunchStatement ls;
    Applicability a = locateLaunch(tu, t, ls);
    if (!a.applies) return a;
    const LaunchSite &site = *ls.site;
    if (const clang::FunctionDecl *s = tu.functionDecl(site.child + "__serial"))
      return Applicability::no("threshold already applied: " + site.child + "__serial exists",
                               spanOf(s->getSourceRange(), tu.astContext()));
    for (const clang::ParmVarDecl *p : ls.child->parameters())
      if (p->getName() == "_gDim")
        return Applicability::no("child " + site.child + " is already coarsened: apply threshold before coarsen",
                                 site.span);
    if (tu.functionDecl(site.child + "__agg"))
      return Applicability::no("launches of " + site.child + " are already aggregated: apply threshold before aggregate",
                               site.span);
    if (!site.serializable) {
      std::string why = site.reasons.empty() ? "the child is not serialisable" : site.reasons.front();
      SourceSpan at = site.reasonSpans.empty() ? site.span : site.reasonSpans.front();
      return Applicability::no("child " + site.child + " is not serialisable: " + why, at);
    }
    for (const char *n : {"_gDim", "_bDim", "__threads"})
      if (mentionsIdentifier(ls.gridText + " " + ls.blockText + " " + joinArgs(ls.argTexts), n))
        return Applicability::no(std::string("the launch already uses the name ") + n, site.span);
    ChildScan scan;
    return scanChild(tu, ls.child, scan);
  }

  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    LaunchStatement ls;
    Applicability a = locateLaunch(tu, t, ls);
    ChildScan scan;
    if (a.applies) a = scanChild(tu, ls.child, scan);
    if (!a.applies) return llvm::createStringError("%s", a.reason.c_str());
    const LaunchSite &site = *ls.site;
    EditSet reps(tu);

    // 1. The serial form, right after the child.
    std::vector<std::string> renamed = modifiedParams(ls.child);
    std::vector<std::string> decls = parameterDecls(tu, ls.child, renamed);
    decls.push_back("dim3 _gDim");
    decls.push_back("dim3 _bDim");
    std::string body = cloneBody(tu, scan, [](const std::string &b) { return "_ctx." + b; }, std::nullopt);
    if (!renamed.empty()) {
      std::string copies = freshCopies(renamed, "  ");
      body.insert(1, "\n" + copies.substr(0, copies.size() - 1));
    }
    std::string serial =
        "\n\n// Serial form of " + site.child + " (Nestor threshold rewrite): runs every thread of a\n"
        "// <<<_gDim, _bDim>>> launch in the calling thread; `return` ends one child thread.\n"
        "__device__ void " + site.child + "__serial(" + joinArgs(decls) + ") {\n"
        "  nestor::dp::serial_for_each(_gDim, _bDim, [&](const nestor::dp::serial_ctx& _ctx) " +
        indentLines(body, "  ") + ");\n}";
    reps.add(scan.declEnd, scan.declEnd, serial);

    // 2. The guard at the launch.
    std::string grid = ls.gridText, threadsDecl;
    const std::string in = ls.indent + "  ";
    if (site.threads && !site.threads->empty()) {
      if (const clang::Expr *n = findThreadsExpr(tu, ls.grid, *site.threads)) {
        SourceSpan gs = spanOf(ls.grid, tu.astContext()), ns = spanOf(n, tu.astContext());
        grid = grid.substr(0, ns.begin.offset - gs.begin.offset) + "__threads" + grid.substr(ns.end.offset - gs.begin.offset);
        threadsDecl = in + "const auto __threads = " + *site.threads + ";\n";
      } else if (sideEffectFreeText(*site.threads)) {
        threadsDecl = in + "const auto __threads = " + *site.threads + ";\n";
      }
    }
    std::string config = "_gDim, _bDim";
    if (!ls.shmemText.empty()) config += ", " + ls.shmemText;
    if (!ls.streamText.empty()) config += ", " + ls.streamText;
    std::string g = "{\n";
    if (!threadsDecl.empty()) {
      g += threadsDecl;
      g += in + "const dim3 _gDim(" + grid + "), _bDim(" + ls.blockText + ");\n";
    } else {
      // No thread count recognised: compare the launch's total thread count.
      g += in + "const dim3 _gDim(" + grid + "), _bDim(" + ls.blockText + ");\n";
      g += in + "const unsigned long long __threads = nestor::dp::volume(_gDim) * nestor::dp::volume(_bDim);\n";
    }
    g += in + "if (__threads >= NESTOR_THRESHOLD) {\n";
    if (!ls.counterText.empty()) g += in + "  " + ls.counterText + "\n";
    g += in + "  " + site.child + "<<<" + config + ">>>(" + joinArgs(ls.argTexts) + ");\n";
    if (!ls.errorCheckText.empty()) g += in + "  " + ls.errorCheckText + "\n";
    g += in + "} else {\n";
    g += in + "  " + site.child + "__serial(" + joinArgs(ls.argTexts, "_gDim, _bDim") + ");\n";
    g += in + "}\n" + ls.indent + "}";
    reps.add(ls.groupBegin, ls.groupEnd, g);

    // 3. The runtime header (and the threshold's default, when given).
    std::vector<std::pair<std::string, std::string>> defines;
    if (auto it = p.find("threshold"); it != p.end() && !it->second.empty())
      defines.push_back({"NESTOR_THRESHOLD", it->second});
    unsigned childBegin = spanOf(ls.child->getSourceRange(), tu.astContext()).begin.offset;
    if (auto e = addRuntimeInclude(tu, reps, childBegin, defines)) return std::move(e);
    return reps.replacements();
  }
};
} // namespace

const Rewrite &ThresholdRewrite() {
  static const Threshold r;
  return r;
}
} // namespace nestor
