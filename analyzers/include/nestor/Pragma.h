// Parser for CUDA-NP directives (cuda-np.md §3.6):
//
//   #pragma np parallel for [clause[[,] clause]...]
//   clause: reduction(op:list) | scan(op:list) | copyin(list) | num_threads(N)
//         | np_type(inter|intra) | sm_version(N)
//   op:     + * max min & | ^ && ||
//
// The parser is independent of Clang so that it can be unit-tested on strings
// and reused by the LSP server for hovers and completion. Every error carries
// the exact source range of the offending token.
#pragma once

#include "nestor/Model.h"

#include <string_view>

namespace nestor {

/// Where the parsed text starts in its file; spans are computed from it.
/// Pragmas are single lines, so columns and offsets advance together.
struct PragmaTextOrigin {
  std::string file;
  unsigned line = 1;
  unsigned column = 1; ///< column of text[0]
  unsigned offset = 0; ///< file offset of text[0]
};

/// Parses the text that follows `#pragma`, starting with `np`.
/// Never fails: problems are reported in NpPragma::errors.
NpPragma parseNpPragma(std::string_view text, const PragmaTextOrigin &origin);

/// Slave counts (threads per master group, master included) that the
/// rewriters support for num_threads(N).
bool isSupportedSlaveCount(unsigned n);

/// Clause names and operators, for completion and hovers.
struct ClauseInfo {
  const char *name;
  const char *syntax;
  const char *meaning;
};
const std::vector<ClauseInfo> &npClauses();
const std::vector<std::string> &npOperators();

} // namespace nestor
