// Text of an open document and the mapping between LSP positions and byte
// offsets. LSP positions count UTF-16 code units (the encoding VS Code uses);
// the analysis works on UTF-8 byte offsets, so every position that crosses
// the protocol goes through here. Pure: no Clang, unit-tested on strings.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/LSP/Protocol.h"

#include <optional>
#include <string>
#include <vector>

namespace nestor::lsp {

/// Number of lines, counting the (possibly empty) line after the last '\n'.
unsigned lineCount(llvm::StringRef text);

/// Line `line` (0-based) without its line terminator ("" past the end).
llvm::StringRef lineText(llvm::StringRef text, unsigned line);

/// Byte offset of `pos`. Fails when the line does not exist or, unless
/// `clampColumn`, when the character lies past the end of the line. A
/// character inside a surrogate pair maps to the end of that code point.
llvm::Expected<size_t> offsetAt(llvm::StringRef text, const llvm::lsp::Position &pos, bool clampColumn = false);

/// LSP position (UTF-16 character) of a byte offset; offsets past the end
/// map to the end of the text.
llvm::lsp::Position positionAt(llvm::StringRef text, size_t offset);

/// Applies one content change of a didChange notification. A change without
/// a range replaces the whole text. Fails, leaving `text` unchanged, when the
/// range lies outside the text or ends before it starts.
llvm::Error applyChange(std::string &text, const llvm::lsp::TextDocumentContentChangeEvent &change);

/// Applies all changes in order; on failure `text` is left as it was before
/// the first change.
llvm::Error applyChanges(std::string &text, llvm::ArrayRef<llvm::lsp::TextDocumentContentChangeEvent> changes);

/// Where each line of a text starts, so that offsetAt/positionAt cost a
/// binary search and a scan of one line instead of a scan of the whole text
/// (a 5 MB file with a thousand findings would otherwise be quadratic). The
/// index holds no reference to the text: callers pass the same text back.
class LineIndex {
public:
  LineIndex() = default;
  explicit LineIndex(llvm::StringRef text);
  bool empty() const { return starts_.empty(); }
  /// Same answers as the free offsetAt()/positionAt() on the indexed text.
  llvm::Expected<size_t> offsetAt(llvm::StringRef text, const llvm::lsp::Position &pos, bool clampColumn = false) const;
  llvm::lsp::Position positionAt(llvm::StringRef text, size_t offset) const;
  /// 1-based line of a byte offset (offsets past the end: the last line).
  unsigned lineOf(size_t offset) const;

private:
  std::vector<size_t> starts_;
};

/// How a newer text differs from an older one, as the single region between
/// their common prefix and common suffix. Offsets outside that region mean
/// the same text in both versions, so what an analysis of the older text says
/// about them still holds, at shifted offsets; offsets inside it have no
/// counterpart. Found by comparing the texts, not by replaying edits, so it
/// is right whatever the edits were.
struct TextDelta {
  size_t prefix = 0;      ///< bytes equal at the start of both texts
  size_t oldEnd = 0;      ///< end of the changed region in the older text
  size_t newEnd = 0;      ///< end of the changed region in the newer text
  static TextDelta between(llvm::StringRef older, llvm::StringRef newer);
  bool unchanged() const { return prefix == oldEnd && prefix == newEnd; }
  /// Offset in the older text of `offset` in the newer one; nullopt inside
  /// (or touching) the changed region.
  std::optional<size_t> toOld(size_t offset) const;
  /// Offset in the newer text of `offset` in the older one; nullopt inside
  /// (or touching) the changed region.
  std::optional<size_t> toNew(size_t offset) const;
  /// Bytes [begin, end] of the older text lie wholly outside the changed
  /// region (touching it counts as inside).
  bool keeps(size_t begin, size_t end) const;
};

} // namespace nestor::lsp
