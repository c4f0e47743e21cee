// Text of an open document and the mapping between LSP positions and byte
// offsets. LSP positions count UTF-16 code units (the encoding VS Code uses);
// the analysis works on UTF-8 byte offsets, so every position that crosses
// the protocol goes through here. Pure: no Clang, unit-tested on strings.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/LSP/Protocol.h"

#include <string>

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

} // namespace nestor::lsp
