// The edits of one rewrite, merged so that they cannot conflict (issue #21:
// every offered rewrite applies). Every rewrite builds its edits here.
#pragma once
#include "nestor/Analysis.h"

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace nestor {

/// All the edits of one rewrite, merged into Replacements that cannot
/// conflict. clang::tooling::Replacements::add rejects a second insertion at
/// one offset ("The new insertion has the same insert location as an existing
/// replacement"), which a kernel right after the `#include` lines hits (the
/// runtime include and the code before the kernel go to the same place).
/// Here insertions at one offset are ordered, never rejected: by rank (an
/// include, `kIncludeRank`, before code), then in the order they were added;
/// insertions at the start of a replaced range go before its new text. Empty
/// insertions are dropped, an identical edit added twice counts once. Only
/// replaced ranges that overlap (or an insertion strictly inside a replaced
/// range) are an error, from replacements(): a defect of the rewrite.
class EditSet {
public:
  static constexpr int kIncludeRank = -1;
  explicit EditSet(const AnalyzedTU &tu) : tu_(&tu) {}
  /// Replaces [begin, end) of the main file (an insertion when begin == end).
  void add(unsigned begin, unsigned end, llvm::StringRef text, int rank = 0);
  void insert(unsigned at, llvm::StringRef text, int rank = 0) { add(at, at, text, rank); }
  /// A replacement made elsewhere (e.g. loops::includeReplacement); its file is the main file.
  void add(const clang::tooling::Replacement &r, int rank = 0) {
    add(r.getOffset(), r.getOffset() + r.getLength(), r.getReplacementText(), rank);
  }
  void addInclude(const clang::tooling::Replacement &r) { add(r, kIncludeRank); }
  bool empty() const { return edits_.empty(); }
  /// The merged edits, or why they cannot be merged (overlapping replaced ranges).
  llvm::Expected<clang::tooling::Replacements> replacements() const;

private:
  struct Edit {
    unsigned begin, end;
    std::string text;
    int rank;
    size_t seq;
  };
  const AnalyzedTU *tu_;
  std::vector<Edit> edits_;
};

} // namespace nestor
