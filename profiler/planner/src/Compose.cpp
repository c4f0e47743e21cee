#include "nestor/planner/Compose.h"

#include "llvm/Support/raw_ostream.h"

namespace nestor {

char ComposeError::ID = 0;

void ComposeError::log(llvm::raw_ostream &os) const { os << rewriteId << ": " << message; }

StableTarget stableTarget(const FileModel &m, const RewriteTarget &t) {
  StableTarget s;
  s.kind = t.kind;
  if (t.kind == RewriteTarget::Kind::Launch) {
    if (t.id < 0 || size_t(t.id) >= m.launches.size()) return s;
    const LaunchSite &l = m.launches[size_t(t.id)];
    s.function = l.parent;
    s.child = l.child;
    for (const LaunchSite &o : m.launches)
      if (o.id < l.id && o.parent == l.parent && o.child == l.child) ++s.ordinal;
  } else {
    if (t.id < 0 || size_t(t.id) >= m.loops.size()) return s;
    const LoopSite &l = m.loops[size_t(t.id)];
    s.function = l.function;
    for (const LoopSite &o : m.loops)
      if (o.id < l.id && o.function == l.function) ++s.ordinal;
  }
  return s;
}

std::optional<RewriteTarget> findStableTarget(const FileModel &m, const StableTarget &s) {
  int n = 0;
  if (s.kind == RewriteTarget::Kind::Launch) {
    for (const LaunchSite &l : m.launches)
      if (l.parent == s.function && l.child == s.child && n++ == s.ordinal) return RewriteTarget{s.kind, l.id};
  } else {
    for (const LoopSite &l : m.loops)
      if (l.function == s.function && n++ == s.ordinal) return RewriteTarget{s.kind, l.id};
  }
  return std::nullopt;
}

namespace {

std::string stepKey(const Rewrite &r, const RewriteParams &resolved) {
  std::string k = std::string(r.id()) + "{";
  for (const auto &[name, value] : resolved) k += name + "=" + value + ";";
  return k + "}";
}

} // namespace

llvm::Expected<ComposeResult> composeRewrites(const AnalyzedTU &first, const AnalysisOptions &opts,
                                              const std::vector<ComposeStep> &steps, const TargetLocator &locate,
                                              PreambleCache *preambles, ComposeMemo *memo) {
  using Kind = ComposeError::Kind;
  ComposeResult result;
  // Parameters are resolved up front: they name the memo's prefixes, and a
  // bad parameter should fail before any parsing.
  std::vector<std::string> keys;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Rewrite &r = *steps[i].rewrite;
    RewriteParams mine;
    for (const auto &[k, v] : steps[i].params)
      for (const ParamSpec &s : r.params())
        if (s.name == k) mine[k] = v;
    auto params = resolveParams(r, mine);
    if (!params) return llvm::make_error<ComposeError>(Kind::BadParams, i, r.id(), llvm::toString(params.takeError()));
    result.resolvedParams.push_back(*params);
    keys.push_back((keys.empty() ? std::string() : keys.back()) + stepKey(r, *params));
  }
  if (steps.empty()) {
    result.text = first.mainFileText().str();
    return result;
  }

  // Resume after the longest prefix the memo already analysed (never the
  // whole chain: its last step still has to produce the text).
  size_t start = 0;
  const AnalyzedTU *cur = &first;
  std::optional<StableTarget> where;
  if (memo) {
    size_t common = 0;
    while (common < memo->prefixes.size() && common + 1 < steps.size() && memo->prefixes[common].key == keys[common])
      ++common;
    memo->prefixes.resize(common);
    if (common > 0) {
      start = common;
      cur = memo->prefixes[common - 1].tu.get();
      where = memo->prefixes[common - 1].where;
    }
  }
  std::unique_ptr<AnalyzedTU> owned; // the latest re-analysis, when no memo keeps it

  for (size_t i = start; i < steps.size(); ++i) {
    const Rewrite &r = *steps[i].rewrite;
    std::optional<RewriteTarget> target;
    if (!where || where->kind != r.targetKind()) target = locate(cur->model(), r.targetKind());
    else target = findStableTarget(cur->model(), *where);
    if (!target)
      return llvm::make_error<ComposeError>(
          Kind::NoTarget, i, r.id(),
          std::string("no ") + (r.targetKind() == RewriteTarget::Kind::Loop ? "loop" : "kernel launch") + " to rewrite");
    const RewriteParams &params = result.resolvedParams[i];
    Applicability a = r.prepare(*cur, *target, params);
    if (!a.applies) return llvm::make_error<ComposeError>(Kind::NotApplicable, i, r.id(), a.reason, a.blocker);
    where = stableTarget(cur->model(), *target);
    auto reps = r.apply(*cur, *target, params);
    if (!reps) return llvm::make_error<ComposeError>(Kind::ApplyFailed, i, r.id(), llvm::toString(reps.takeError()));
    auto text = applyReplacements(*cur, *reps);
    if (!text) return llvm::make_error<ComposeError>(Kind::ApplyFailed, i, r.id(), llvm::toString(text.takeError()));
    result.text = std::move(*text);
    if (i + 1 == steps.size()) break;
    AnalysisOptions next = opts;
    next.contents = result.text;
    auto again = analyzeFile(first.mainFile(), next, preambles);
    if (!again)
      return llvm::make_error<ComposeError>(Kind::AnalysisFailed, i, r.id(),
                                            "the rewritten text could not be analysed again: " + llvm::toString(again.takeError()));
    if (memo) {
      ++memo->analyses;
      memo->prefixes.push_back({keys[i], std::move(*again), *where});
      cur = memo->prefixes.back().tu.get();
    } else {
      owned = std::move(*again);
      cur = owned.get();
    }
  }
  return result;
}

} // namespace nestor
