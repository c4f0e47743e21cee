#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include "nestor/Rewrite.h"
#include "nestor/EditSet.h"
#include "nestor/Offers.h"
#include "nestor/RefusalText.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace nestor {

const std::vector<const Rewrite *> &allRewrites() {
  static const std::vector<const Rewrite *> all = [] {
    std::vector<const Rewrite *> r;
#define NESTOR_REWRITE(Name) r.push_back(&Name##Rewrite());
#include "nestor/Rewrites.def"
#undef NESTOR_REWRITE
    return r;
  }();
  return all;
}

std::vector<Offer> offersAt(const AnalyzedTU &tu, const RewriteTarget &t, const Rewrite *only, OfferSearch search) {
  std::vector<Offer> out;
  for (const Rewrite *r : allRewrites()) {
    if (r->targetKind() != t.kind || (only && r != only)) continue;
    for (const RewriteParams &given : r->variants()) {
      auto params = resolveParams(*r, given);
      // variants() lists only values params() allows; a mismatch is the
      // rewrite's own bug, and its variant is not offered.
      if (!params) {
        llvm::consumeError(params.takeError());
        continue;
      }
      Applicability a = r->prepare(tu, t, *params);
      bool stop = a.applies && search == OfferSearch::UntilOneApplies;
      out.push_back(Offer{r, std::move(*params), std::move(a)});
      if (stop) return out;
    }
  }
  return out;
}

std::vector<ShownOffer> shownOffersAt(const AnalyzedTU &tu, const RewriteTarget &t) {
  std::vector<ShownOffer> out;
  for (Offer &offer : offersAt(tu, t)) {
    const Applicability &a = offer.applicability;
    std::string title = a.titled(offer.rewrite->title(offer.params));
    out.push_back(ShownOffer{offer.rewrite, std::move(offer.params), std::move(title), a.applies,
                             refusalText(a, tu.model().file)});
  }
  return out;
}

namespace {
/// The engine's answer for the rules (nestor/Offers.h): any variant of the
/// rewrite applies, or the first variant's refusal.
OfferAnswer offerAt(const AnalyzedTU &tu, const std::string &id, int loopId) {
  OfferAnswer a;
  const Rewrite *r = findRewrite(id);
  if (!r) { a.reason = "no rewrite '" + id + "'"; return a; }
  for (const Offer &o : offersAt(tu, RewriteTarget{r->targetKind(), loopId}, r, OfferSearch::UntilOneApplies)) {
    if (o.applicability.applies) return OfferAnswer{true, "", {}};
    if (a.reason.empty()) { a.reason = o.applicability.reason; a.where = o.applicability.blocker; }
  }
  return a;
}
// Linked in with every front end that links the rewrites.
const bool kOracleRegistered = (setOfferOracle(offerAt), true);
} // namespace

const Rewrite *findRewrite(const std::string &id) {
  for (const Rewrite *r : allRewrites())
    if (id == r->id()) return r;
  return nullptr;
}

llvm::Expected<RewriteParams> resolveParams(const Rewrite &r, const RewriteParams &given) {
  RewriteParams out;
  std::vector<ParamSpec> specs = r.params();
  for (const auto &[k, v] : given) {
    bool known = false;
    for (const ParamSpec &s : specs) {
      if (s.name != k) continue;
      known = true;
      if (!s.values.empty() && std::find(s.values.begin(), s.values.end(), v) == s.values.end()) {
        std::string allowed;
        for (auto &a : s.values) allowed += (allowed.empty() ? "" : ", ") + a;
        return llvm::createStringError("%s: parameter %s=%s is not one of %s", r.id(), k.c_str(), v.c_str(),
                                       allowed.c_str());
      }
      if (s.values.empty()) {
        char *end = nullptr;
        long n = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end || n <= 0)
          return llvm::createStringError("%s: parameter %s needs a positive integer, got '%s'", r.id(), k.c_str(), v.c_str());
      }
    }
    if (!known) return llvm::createStringError("%s: unknown parameter '%s'", r.id(), k.c_str());
    out[k] = v;
  }
  for (const ParamSpec &s : specs)
    if (!out.count(s.name)) out[s.name] = s.defaultValue;
  return out;
}

std::optional<RewriteTarget> targetAtLine(const FileModel &m, RewriteTarget::Kind kind, unsigned line) {
  if (kind == RewriteTarget::Kind::Launch) {
    if (const LaunchSite *l = m.launchAtLine(line)) return RewriteTarget{kind, l->id};
    return std::nullopt;
  }
  if (const LoopSite *l = m.loopAtLine(line)) return RewriteTarget{kind, l->id};
  return std::nullopt;
}

clang::tooling::Replacement replacementFor(const AnalyzedTU &tu, unsigned b, unsigned e, llvm::StringRef text) {
  return clang::tooling::Replacement(tu.mainFile(), b, e - b, text);
}

void EditSet::add(unsigned begin, unsigned end, llvm::StringRef text, int rank) {
  if (begin == end && text.empty()) return;
  for (const Edit &e : edits_)
    if (e.begin == begin && e.end == end && e.text == text && (begin != end || e.rank == rank)) return;
  edits_.push_back({begin, end, text.str(), rank, edits_.size()});
}

llvm::Expected<clang::tooling::Replacements> EditSet::replacements() const {
  std::vector<const Edit *> order;
  for (const Edit &e : edits_) order.push_back(&e);
  // By offset; at one offset the insertions (by rank, then as added) before
  // the one replaced range that may start there.
  std::stable_sort(order.begin(), order.end(), [](const Edit *a, const Edit *b) {
    if (a->begin != b->begin) return a->begin < b->begin;
    bool ai = a->begin == a->end, bi = b->begin == b->end;
    if (ai != bi) return ai;
    return a->rank < b->rank;
  });
  auto lineOf = [&](unsigned offset) {
    llvm::StringRef text = tu_->mainFileText();
    return 1 + unsigned(text.take_front(std::min<size_t>(offset, text.size())).count('\n'));
  };
  clang::tooling::Replacements out;
  unsigned replacedEnd = 0; // end of the last replaced range
  bool anyReplaced = false;
  for (size_t i = 0; i < order.size();) {
    const unsigned at = order[i]->begin;
    std::string text;
    unsigned end = at;
    for (; i < order.size() && order[i]->begin == at; ++i) {
      const Edit &e = *order[i];
      if (e.begin != e.end && end != at)
        return llvm::createStringError("two edits replace overlapping text at line %u (offsets %u-%u and %u-%u)",
                                       lineOf(at), at, end, e.begin, e.end);
      text += e.text;
      end = e.end;
    }
    if (anyReplaced && at < replacedEnd)
      return llvm::createStringError("an edit at line %u (offset %u) falls inside text another edit replaces (up to offset %u)",
                                     lineOf(at), at, replacedEnd);
    if (end != at) {
      anyReplaced = true;
      replacedEnd = end;
    }
    if (auto err = out.add(replacementFor(*tu_, at, end, text))) return std::move(err);
  }
  return out;
}

std::string lineRef(const SourceSpan &s, const std::string &mainFile) {
  const std::string n = std::to_string(s.begin.line);
  // The same file however its path is spelled (the model's file is as given,
  // spans' as the source manager found it).
  if (s.file.empty() || mainFile.empty() || llvm::sys::path::filename(s.file) == llvm::sys::path::filename(mainFile))
    return "line " + n;
  return llvm::sys::path::filename(s.file).str() + ":" + n;
}

std::string refusalText(const Applicability &a, const std::string &mainFile) {
  if (a.applies || !a.blocker.valid()) return a.reason;
  const std::string ref = lineRef(a.blocker, mainFile), plain = "line " + std::to_string(a.blocker.begin.line);
  std::string out = a.reason;
  // The reason's own mention of the line (not of line 17 when the line is 170).
  bool named = false;
  for (size_t at = out.find(plain); at != std::string::npos; at = out.find(plain, at + 1)) {
    size_t after = at + plain.size();
    if (after < out.size() && std::isdigit(static_cast<unsigned char>(out[after]))) continue;
    named = true;
    if (ref != plain) out.replace(at, plain.size(), ref);
    break;
  }
  return named ? out : out + " (" + ref + ")";
}

llvm::Expected<std::string> applyReplacements(const AnalyzedTU &tu, const clang::tooling::Replacements &r) {
  return clang::tooling::applyAllReplacements(tu.mainFileText(), r);
}

std::vector<TextEdit> toTextEdits(const AnalyzedTU &tu, const clang::tooling::Replacements &reps) {
  llvm::StringRef text = tu.mainFileText();
  auto posAt = [&](unsigned offset) {
    SourcePos p;
    p.offset = offset;
    p.line = 1;
    size_t lineStart = 0;
    for (size_t i = 0; i < offset && i < text.size(); ++i)
      if (text[i] == '\n') { ++p.line; lineStart = i + 1; }
    p.column = unsigned(offset - lineStart) + 1;
    return p;
  };
  std::vector<TextEdit> out;
  for (const auto &r : reps) {
    TextEdit e;
    e.span.file = tu.mainFile();
    e.span.begin = posAt(r.getOffset());
    e.span.end = posAt(r.getOffset() + r.getLength());
    e.newText = r.getReplacementText().str();
    out.push_back(std::move(e));
  }
  return out;
}


} // namespace nestor
