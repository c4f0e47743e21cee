// The mapping model (Mapping.h): GPU targets, sizes, scoring and ranking
// (Algorithm 1 of locality-aware-mapping-of-nested-patterns.md: candidates
// that pass the hard constraints are scored by the soft ones; ties go to the
// higher degree of parallelism).
#include "MappingParts.h"

#include "clang/Basic/CharInfo.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace nestor {

std::optional<GpuTarget> gpuTargetNamed(const std::string &name) {
  std::string n = llvm::StringRef(name).lower();
  // SMs and resident threads per SM; registers and static shared memory are
  // the same on all of these (64K registers per SM, 48 KiB static per block).
  // Bandwidth: a device-to-device copy's sustained rate, about 80-85% of the
  // data sheet's peak (H200: ~4.0 of 4.8 TB/s).
  struct Row { const char *name; unsigned sms, threads; double gbs; };
  static const Row rows[] = {{"h100", 132, 2048, 2900}, {"h200", 132, 2048, 4000}, {"gh200", 132, 2048, 3400},
                             {"a100", 108, 2048, 1500}, {"l40s", 142, 1536, 720},  {"v100", 80, 2048, 780},
                             {"t4", 40, 1024, 240}};
  for (const Row &r : rows)
    if (n == r.name) {
      GpuTarget g;
      g.name = r.name;
      g.sms = r.sms;
      g.threadsPerSm = r.threads;
      g.bandwidthGBs = r.gbs;
      // One device-side launch on Hopper (CUDA 13): the in-sample neighbour
      // sum (bench/mapping, H100: 16,384 launches of one-block children in
      // 7.65 ms) costs 0.47 us each; nestor-gpu-probe measured 0.48-0.80 us
      // on an H200. Other GPUs keep the 1 us of the thesis' era.
      if (r.sms == 132) g.deviceLaunchUs = 0.5;
      return g;
    }
  return std::nullopt;
}

llvm::Error applyGpuParams(const std::string &path, GpuTarget &gpu) {
  auto fail = [&](const std::string &what) {
    return llvm::createStringError("%s: GPU parameters: %s", path.c_str(), what.c_str());
  };
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf) return fail("cannot read: " + buf.getError().message());
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse((*buf)->getBuffer());
  if (!parsed) return fail("not JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *o = parsed->getAsObject();
  if (!o) return fail("expected a JSON object");
  if (auto schema = o->getString("schema"); !schema || *schema != "nestor-gpu-params")
    return fail("expected \"schema\": \"nestor-gpu-params\" (the file nestor-gpu-probe writes)");
  GpuTarget g = gpu;
  auto positive = [&](const char *key, double &dst, double max) -> llvm::Error {
    const llvm::json::Value *v = o->get(key);
    if (!v) return llvm::Error::success();
    std::optional<double> d = v->getAsNumber();
    if (!d || !(*d > 0) || *d > max) return fail(std::string(key) + " must be a positive number (up to " + mapping_detail::human(max) + ")");
    dst = *d;
    return llvm::Error::success();
  };
  auto whole = [&](const char *key, unsigned &dst, double min, double max) -> llvm::Error {
    const llvm::json::Value *v = o->get(key);
    if (!v) return llvm::Error::success();
    std::optional<double> d = v->getAsNumber();
    if (!d || *d != std::floor(*d) || *d < min || *d > max)
      return fail(std::string(key) + " must be a whole number from " + mapping_detail::human(min) + " to " + mapping_detail::human(max));
    dst = unsigned(*d);
    return llvm::Error::success();
  };
  if (auto e = whole("sms", g.sms, 1, 4096)) return e;
  if (auto e = whole("threads_per_sm", g.threadsPerSm, 32, 65536)) return e;
  if (auto e = whole("registers_per_sm", g.registersPerSm, 1024, 1 << 24)) return e;
  if (auto e = whole("shared_per_block", g.sharedPerBlock, 1024, 1 << 24)) return e;
  if (auto e = positive("clock_ghz", g.clockGhz, 10)) return e;
  if (auto e = positive("bandwidth_gbs", g.bandwidthGBs, 1e6)) return e;
  if (auto e = positive("kernel_us", g.kernelUs, 1e6)) return e;
  if (auto e = positive("device_launch_us", g.deviceLaunchUs, 1e6)) return e;
  if (auto e = positive("device_launch_latency_us", g.deviceLaunchLatencyUs, 1e6)) return e;
  if (auto e = positive("latency_us", g.latencyUs, 1e6)) return e;
  if (auto name = o->getString("name")) g.name = name->str();
  gpu = g;
  return llvm::Error::success();
}

// ---- sizes ------------------------------------------------------------------

namespace {
/// Recursive descent over + - * / % ( ) with identifiers, integer literals,
/// C casts and dim3(...) (a product).
class SizeParser {
public:
  SizeParser(llvm::StringRef text, const std::map<std::string, double> &sizes) : s_(text), sizes_(sizes) {}
  std::optional<double> parse() {
    auto v = sum();
    skip();
    if (!v || i_ != s_.size()) return std::nullopt;
    return v;
  }

private:
  void skip() { while (i_ < s_.size() && std::isspace((unsigned char)s_[i_])) ++i_; }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) { ++i_; return true; }
    return false;
  }
  std::optional<double> sum() {
    auto v = product();
    while (v) {
      if (eat('+')) { auto r = product(); if (!r) return std::nullopt; *v += *r; }
      else if (eat('-')) { auto r = product(); if (!r) return std::nullopt; *v -= *r; }
      else break;
    }
    return v;
  }
  std::optional<double> product() {
    auto v = unary();
    while (v) {
      if (eat('*')) { auto r = unary(); if (!r) return std::nullopt; *v *= *r; }
      else if (eat('/')) {
        auto r = unary();
        if (!r || *r == 0) return std::nullopt;
        *v = std::floor(*v / *r); // integer division, as the source computes it
      } else if (eat('%')) {
        auto r = unary();
        if (!r || *r == 0) return std::nullopt;
        *v = std::fmod(*v, *r);
      } else break;
    }
    return v;
  }
  std::optional<double> unary() {
    if (eat('-')) { auto v = unary(); return v ? std::optional<double>(-*v) : std::nullopt; }
    if (eat('+')) return unary();
    skip();
    size_t save = i_;
    if (eat('(')) {
      // A cast `(long long)x` or `(unsigned)x`: type words, then ')'.
      size_t j = i_;
      std::string word;
      bool typeWords = true, any = false;
      while (j < s_.size() && s_[j] != ')') {
        if (std::isalpha((unsigned char)s_[j]) || s_[j] == '_') {
          size_t b = j;
          while (j < s_.size() && (std::isalnum((unsigned char)s_[j]) || s_[j] == '_')) ++j;
          llvm::StringRef w = s_.slice(b, j);
          typeWords &= w == "int" || w == "long" || w == "unsigned" || w == "size_t" || w == "short" ||
                       w == "signed" || w == "int64_t" || w == "uint64_t" || w == "int32_t" || w == "uint32_t";
          any = true;
        } else if (std::isspace((unsigned char)s_[j])) {
          ++j;
        } else {
          typeWords = false;
          break;
        }
      }
      if (typeWords && any && j < s_.size() && s_[j] == ')') {
        i_ = j + 1;
        return unary();
      }
      i_ = save;
      eat('(');
      auto v = sum();
      if (!v || !eat(')')) return std::nullopt;
      return v;
    }
    if (i_ < s_.size() && std::isdigit((unsigned char)s_[i_])) {
      size_t b = i_;
      while (i_ < s_.size() && std::isalnum((unsigned char)s_[i_])) ++i_; // 64, 64u, 0x40
      llvm::StringRef lit = s_.slice(b, i_).rtrim("uUlL");
      unsigned long long v;
      if (lit.getAsInteger(0, v)) return std::nullopt;
      return double(v);
    }
    if (i_ < s_.size() && (std::isalpha((unsigned char)s_[i_]) || s_[i_] == '_')) {
      size_t b = i_;
      while (i_ < s_.size() && (std::isalnum((unsigned char)s_[i_]) || s_[i_] == '_' || s_[i_] == '.' ||
                                (s_[i_] == '-' && i_ + 1 < s_.size() && s_[i_ + 1] == '>')))
        i_ += s_[i_] == '-' ? 2 : 1;
      std::string name = s_.slice(b, i_).str();
      if (name == "dim3") {
        if (!eat('(')) return std::nullopt;
        double p = 1;
        do {
          auto v = sum();
          if (!v) return std::nullopt;
          p *= *v;
        } while (eat(','));
        if (!eat(')')) return std::nullopt;
        return p;
      }
      auto it = sizes_.find(name);
      if (it == sizes_.end()) return std::nullopt;
      return it->second;
    }
    return std::nullopt;
  }

  llvm::StringRef s_;
  const std::map<std::string, double> &sizes_;
  size_t i_ = 0;
};
} // namespace

std::optional<double> evaluateSize(const std::string &text, const std::map<std::string, double> &sizes) {
  if (llvm::StringRef(text).trim().empty()) return std::nullopt;
  return SizeParser(text, sizes).parse();
}

namespace mapping_detail {

Count kernelThreads(const FileModel &m, const Kernel &k, const MappingConfig &cfg, std::optional<unsigned> &block,
                    std::vector<std::string> &assumptions) {
  // The first host launch decides: this file's, else one in another
  // translation unit of the project (Kernel::externalLaunches, ProjectIndex.h).
  auto fromLaunch = [&](const LaunchSite &ls, const std::string &where) -> Count {
    // A size given for one of the kernel's parameters is the value of the
    // argument passed for it: `k<<<(size + 127) / 128, 128>>>(..., size)`
    // with `list_size: 16384` for k's parameter `list_size` sizes the grid
    // through `size` (a name the sizes do not give otherwise).
    std::map<std::string, double> sizes = cfg.sizes;
    for (size_t i = 0; i < k.params.size() && i < ls.args.size(); ++i) {
      auto given = cfg.sizes.find(k.params[i].name);
      llvm::StringRef arg = llvm::StringRef(ls.args[i]).trim();
      if (given != cfg.sizes.end() && clang::isValidAsciiIdentifier(arg) && !cfg.sizes.count(arg.str()))
        sizes.emplace(arg.str(), given->second);
    }
    std::optional<double> b = ls.blockValue ? std::optional<double>(double(*ls.blockValue)) : evaluateSize(ls.block, sizes);
    std::optional<double> g = ls.gridValue ? std::optional<double>(double(*ls.gridValue)) : evaluateSize(ls.grid, sizes);
    if (b && *b >= 1) block = unsigned(*b);
    if (b && g && *b >= 1 && *g >= 1) return {*b * *g, false};
    assumptions.push_back("threads of '" + k.name + "': the grid '" + ls.grid + "' of the launch at " + where +
                          " is not known; assumed " + human(cfg.defaultThreads) + " threads (set mapping.sizes)");
    return {cfg.defaultThreads, true};
  };
  for (int id : k.launchedBy) {
    const LaunchSite &ls = m.launches[size_t(id)];
    if (!ls.deviceSide) return fromLaunch(ls, "line " + std::to_string(ls.span.begin.line));
  }
  for (const ExternalLaunch &e : k.externalLaunches)
    if (!e.site.deviceSide)
      return fromLaunch(e.site, llvm::sys::path::filename(e.file).str() + ":" + std::to_string(e.site.span.begin.line));
  assumptions.push_back("threads of '" + k.name + "': no host launch in this file; assumed " +
                        human(cfg.defaultThreads) + " threads");
  return {cfg.defaultThreads, true};
}

std::string loopKey(const FileModel &m, const LoopSite &l) {
  return llvm::sys::path::filename(l.span.file.empty() ? m.file : l.span.file).str() + ":" + std::to_string(l.span.begin.line);
}

Count loopTrips(const FileModel &m, const LoopSite &l, const MappingConfig &cfg, std::vector<std::string> &assumptions) {
  const std::string key = loopKey(m, l);
  if (auto it = cfg.sizes.find(key); it != cfg.sizes.end()) return {it->second, false};
  if (l.constantTripCount) return {double(*l.constantTripCount), false};
  if (l.tripCount != TripCountClass::Irregular && !l.upperBound.empty()) {
    // The source texts first (a size may name a macro: `{ BLOCK: 64 }`),
    // then the bounds with macros expanded (`len - MOTIF_LEN`: `len - 4`).
    auto eval = [&](const std::string &text, const std::string &expanded) {
      auto v = evaluateSize(text, cfg.sizes);
      return v || expanded.empty() ? v : evaluateSize(expanded, cfg.sizes);
    };
    auto hi = eval(l.upperBound, l.upperBoundExpanded), lo = eval(l.lowerBound, l.lowerBoundExpanded);
    auto step = l.stepAmount.empty() ? std::optional<double>(1) : eval(l.stepAmount, l.stepAmountExpanded);
    if (hi && lo && step && *step != 0) {
      double n = std::floor((*hi - *lo + (l.upperInclusive ? 1 : 0) + std::fabs(*step) - 1) / std::fabs(*step));
      if (n >= 0) return {n, false};
    }
  }
  assumptions.push_back("trip count of the loop at line " + std::to_string(l.span.begin.line) + " (" +
                        spelling(l.tripCount) + ", '" + l.upperBound + "'): assumed " + human(cfg.defaultTrip) +
                        " (set mapping.sizes: { \"" + key + "\": N })");
  return {cfg.defaultTrip, true};
}

double parallelismSatisfied(double dop, const GpuTarget &gpu, std::string *why) {
  double minDop = double(gpu.sms) * gpu.threadsPerSm, maxDop = 100 * minDop;
  double s = std::min(1.0, dop / minDop) * std::min(1.0, maxDop / std::max(dop, 1.0));
  if (!why) return s;
  *why = human(dop) + " threads in flight; " + gpu.name + " needs " + human(minDop) + " (" + std::to_string(gpu.sms) +
        " SMs x " + std::to_string(gpu.threadsPerSm) + ") to hide latency" +
        (dop > maxDop ? ", and more than " + human(maxDop) + " only adds blocks" : "");
  return s;
}

void finish(Mapping &m) {
  double num = 0, den = 0;
  for (const MappingConstraint &c : m.constraints)
    if (!c.hard) {
      num += c.weight * c.satisfied;
      den += c.weight;
    }
  m.score = den > 0 ? num / den : 0;
}

std::string human(double v) {
  // The common case without printf's float formatting (the ranking writes
  // a few numbers into every candidate's explanation): the same text, since
  // nearbyint rounds half to even as "%.0f" does.
  if (v >= 0 && v < 1e4 && !std::signbit(v)) return std::to_string(static_cast<long long>(std::nearbyint(v)));
  char buf[32];
  if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.1fG", v / 1e9);
  else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.1fM", v / 1e6);
  else if (v >= 1e4) std::snprintf(buf, sizeof buf, "%.0fk", v / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string percent(double v) { return std::to_string(int(std::lround(v * 100))) + "%"; }

std::string pinViolation(const Mapping &m, const MappingConfig &cfg) {
  if (cfg.pinPlacement && *cfg.pinPlacement != m.placement)
    return "pinned placement " + *cfg.pinPlacement + " (.nestor.yaml mapping.pin)";
  if (cfg.pinSlaves && *cfg.pinSlaves != m.slaves)
    return "pinned slaves " + std::to_string(*cfg.pinSlaves) + " (.nestor.yaml mapping.pin)";
  if (cfg.pinSpan && *cfg.pinSpan != m.span) return "pinned span " + std::to_string(*cfg.pinSpan) + " (.nestor.yaml mapping.pin)";
  if (cfg.pinSplit && *cfg.pinSplit != m.split)
    return "pinned split " + std::to_string(*cfg.pinSplit) + " (.nestor.yaml mapping.pin)";
  return "";
}

} // namespace mapping_detail

using namespace mapping_detail;

namespace {
void sortRanked(TargetMappings &t) {
  // Sorted by index, then moved once: a Mapping holds a dozen strings and
  // vectors, and a stable sort of ~120 of them moved each several times.
  std::vector<size_t> order(t.ranked.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) {
    const Mapping &a = t.ranked[i], &b = t.ranked[j];
    // The estimated time first (MappingCost.cpp); estimates within 1% are
    // ties: the constraint score (the paper's), then the higher DOP
    // (Algorithm 1), then the simpler mapping, then the id.
    double ta = a.estimateUs, tb = b.estimateUs;
    if (std::fabs(ta - tb) > 0.01 * std::max(ta, tb)) return ta < tb;
    if (std::fabs(a.score - b.score) > 1e-9) return a.score > b.score;
    if (std::fabs(a.dop - b.dop) > 1e-9 * std::max(a.dop, b.dop)) return a.dop > b.dop;
    if (a.slaves * a.span * a.split != b.slaves * b.span * b.split)
      return a.slaves * a.span * a.split < b.slaves * b.span * b.split;
    return a.id < b.id;
  });
  std::vector<Mapping> sorted;
  sorted.reserve(order.size());
  for (size_t i : order) sorted.push_back(std::move(t.ranked[i]));
  t.ranked = std::move(sorted);
}
} // namespace

namespace {
/// One ranking pass over a target (nullopt: not a nested pattern the model ranks).
std::optional<TargetMappings> rankPass(const FileModel &m, const MappingConfig &cfg, bool isLaunch, int id,
                                       const Explaining &ex) {
  TargetMappings t;
  t.isLaunch = isLaunch;
  t.id = id;
  if (isLaunch) {
    if (id < 0 || size_t(id) >= m.launches.size() || !m.launches[size_t(id)].deviceSide) return std::nullopt;
    rankLaunch(m, m.launches[size_t(id)], cfg, ex, t);
  } else {
    if (id < 0 || size_t(id) >= m.loops.size()) return std::nullopt;
    const LoopSite &l = m.loops[size_t(id)];
    if (!l.inKernel || l.kind != "for" || l.inductionVar.empty() || l.gridStride) return std::nullopt;
    rankLoop(m, l, cfg, ex, t);
  }
  return t;
}
} // namespace

std::optional<TargetMappings> rankMappingsOf(const FileModel &m, const MappingConfig &cfg, bool isLaunch, int id,
                                             MappingTexts texts) {
  Explaining ex;
  ex.all = !texts.first.has_value();
  auto t = rankPass(m, cfg, isLaunch, id, ex);
  if (!t || (t->ranked.empty() && t->pruned.empty())) return std::nullopt;
  sortRanked(*t);
  if (texts.first) {
    std::vector<std::string> shown;
    for (size_t i = 0; i < t->ranked.size(); ++i)
      if (i < *texts.first || t->ranked[i].id == "sequential" || t->ranked[i].id == "child-grid")
        shown.push_back(t->ranked[i].id);
    explainMappings(m, cfg, *t, shown);
  }
  return t;
}

void explainMappings(const FileModel &m, const MappingConfig &cfg, TargetMappings &t,
                     const std::vector<std::string> &ids) {
  std::vector<std::string> wanted;
  for (const Mapping &mp : t.ranked)
    if (!mp.explained && std::find(ids.begin(), ids.end(), mp.id) != ids.end()) wanted.push_back(mp.id);
  if (wanted.empty()) return;
  // A second pass over only the wanted candidates, with their texts: the
  // same arithmetic as the first, so scores and estimates are unchanged.
  Explaining ex;
  ex.all = false;
  ex.only = &wanted;
  auto again = rankPass(m, cfg, t.isLaunch, t.id, ex);
  if (!again) return;
  for (Mapping &explained : again->ranked)
    for (Mapping &mp : t.ranked)
      if (mp.id == explained.id && !mp.explained) {
        mp = std::move(explained);
        break;
      }
}

std::vector<TargetMappings> rankMappings(const FileModel &m, const MappingConfig &cfg, MappingTexts texts) {
  std::vector<TargetMappings> out;
  for (const LoopSite &l : m.loops)
    if (auto t = rankMappingsOf(m, cfg, false, l.id, texts)) out.push_back(std::move(*t));
  for (const LaunchSite &l : m.launches)
    if (auto t = rankMappingsOf(m, cfg, true, l.id, texts)) out.push_back(std::move(*t));
  return out;
}

std::string formatMicroseconds(double us) { return microseconds(us); }

std::string estimateText(double us) { return "\u2248 " + microseconds(us) + " (estimate)"; }

std::string explainBest(const TargetMappings &t) {
  if (t.ranked.empty()) return t.pruned.empty() ? "no mapping" : "every mapping is pruned: " + t.pruned.front().why;
  const Mapping &best = t.ranked.front();
  std::string s = best.summary + ": " + estimateText(best.estimateUs);
  if (t.originalUs > 0) s += " against the original's " + estimateText(t.originalUs);
  s += " (" + best.costWhy + ")";
  if (t.ranked.size() < 2) return s;
  const Mapping &next = t.ranked[1];
  if (best.constraints.empty() || next.constraints.empty()) {
    s += " (next: " + next.summary + ", " + estimateText(next.estimateUs) + ")";
    return s;
  }
  // The constraints where the best gains most over the runner-up.
  std::vector<std::pair<double, std::string>> gains;
  for (const MappingConstraint &c : best.constraints) {
    if (c.hard) continue;
    for (const MappingConstraint &o : next.constraints)
      if (o.id == c.id && c.weight * c.satisfied - o.weight * o.satisfied > 0)
        gains.push_back({c.weight * c.satisfied - o.weight * o.satisfied, c.id + " " + percent(c.satisfied) + " vs " +
                                                                             percent(o.satisfied)});
  }
  std::sort(gains.begin(), gains.end(), [](auto &a, auto &b) { return a.first > b.first; });
  s += " (next: " + next.summary + ", " + estimateText(next.estimateUs) + ")";
  if (!gains.empty()) {
    s += "; of the paper's constraints it wins on ";
    for (size_t i = 0; i < gains.size() && i < 2; ++i) s += (i ? ", " : "") + gains[i].second;
  }
  return s;
}

} // namespace nestor
