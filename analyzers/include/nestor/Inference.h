// Conclusions drawn from the model that rules, rewriters and the LSP server
// share: which loops are CUDA-NP candidates and which pragma they need.
#pragma once
#include "nestor/Model.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>

namespace nestor {

/// The pragma CUDA-NP needs for a loop: its reductions and scans.
inline NpPragma inferredPragma(const LoopSite &l) {
  NpPragma p;
  p.isParallelFor = true;
  auto group = [](const std::vector<Reduction> &rs, std::vector<VarOpClause> &out) {
    for (const Reduction &r : rs) {
      bool merged = false;
      for (auto &c : out)
        if (c.op == r.op) { c.vars.push_back(r.var); merged = true; }
      if (!merged) out.push_back({r.op, {r.var}, {}});
    }
  };
  group(l.reductions, p.reductions);
  group(l.scans, p.scans);
  return p;
}

/// Candidate for `#pragma np parallel for`: a canonical loop in a kernel with
/// independent iterations (apart from reductions and scans), not a
/// grid-stride loop, with no device launch inside.
inline bool isNpCandidate(const LoopSite &l) {
  if (!l.inKernel || l.kind != "for" || !l.iterationsIndependent() || l.gridStride || l.hasDeviceLaunch)
    return false;
  if (l.tripCount == TripCountClass::Constant && l.constantTripCount && *l.constantTripCount < 4) return false;
  if (!l.atomics.empty()) return false;
  return true;
}

/// Why a grid-, block- or warp-stride loop is not distributed further (its
/// iterations are already spread over the threads), said of `subject`: the
/// one text every rewrite that refuses such a loop gives.
inline std::string strideLoopReason(llvm::StringRef subject) {
  return subject.str() + " starts at a thread id and strides by a block, grid or warp: the threads already share its "
                         "iterations";
}

/// What keeps `l` from being a candidate (isNpCandidate(l) is false) when
/// the model can name it: a loop-carried dependence; for a loop the model
/// found independent, that it is a grid-, block- or warp-stride loop (the
/// threads already share its iterations), or its atomics (their order, and
/// what they return, would change with the distribution; a #pragma np
/// parallel for is the user's word that it may). nullopt: nothing to name
/// but "not proven parallel".
inline std::optional<std::pair<std::string, SourceSpan>> npCandidateBlocker(const LoopSite &l) {
  if (!l.carriedDependences.empty())
    return std::make_pair("loop-carried dependence: " + l.carriedDependences.front().reason,
                          l.carriedDependences.front().span);
  if (l.iterationsIndependent() && l.gridStride)
    return std::make_pair("the loop's iterations are independent, but " + strideLoopReason("it"), l.headerSpan);
  if (l.iterationsIndependent() && l.inKernel && l.kind == "for" && !l.hasDeviceLaunch &&
      !l.atomics.empty())
    return std::make_pair("the loop's iterations are independent, but it calls an atomic (line " +
                              std::to_string(l.atomics.front().begin.line) +
                              "): without a #pragma np parallel for, loops with atomics are not distributed",
                          l.atomics.front());
  return std::nullopt;
}

/// Why a rewrite may not hand the iterations of `l` to other threads. A
/// valid `#pragma np parallel for` is the user's word on dependences, so
/// with one only collectives, barriers and code clang could not parse refuse
/// (no pragma vouches for them); without one, everything the analysis could
/// not prove.
inline std::optional<LoopCarriedDependence> distributionRefusal(const FileModel &m, const LoopSite &l) {
  if (l.pragma >= 0 && size_t(l.pragma) < m.pragmas.size() && m.pragmas[size_t(l.pragma)].valid() &&
      !l.inductionVar.empty())
    return l.collectiveRefusal();
  return l.concurrencyRefusal();
}

/// Leading whitespace of the line that holds `offset`.
inline std::string indentationAt(llvm::StringRef text, unsigned offset) {
  size_t lineStart = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
  size_t i = lineStart;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return text.slice(lineStart, i).str();
}

inline SourceSpan lineStartSpan(const SourceSpan &at, llvm::StringRef text) {
  SourceSpan s = at;
  size_t lineStart = text.rfind('\n', at.begin.offset == 0 ? 0 : at.begin.offset - 1);
  lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
  s.begin.offset = unsigned(lineStart);
  s.begin.column = 1;
  s.end = s.begin;
  return s;
}

} // namespace nestor
