// Finds `__global__` function definitions in CUDA source text, so that
// "Profile Kernel at Cursor" knows which kernel the cursor is in without a
// round trip to the server. A light lexer (comments, strings, preprocessor
// lines skipped; braces matched) is enough for this; the server does the real
// analysis and rejects a name it does not know.

export interface KernelSpan {
  name: string;
  /** Offset of `__global__`. */
  start: number;
  /** Offset just past the closing `}` of the body. */
  end: number;
}

/** Replaces comments and string/char literals by spaces, keeping offsets. */
export function blankCommentsAndStrings(text: string): string {
  const out = text.split('');
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to && k < out.length; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  while (i < text.length) {
    const c = text[i];
    const n = text[i + 1];
    if (c === '/' && n === '/') {
      const e = text.indexOf('\n', i);
      const stop = e === -1 ? text.length : e;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && n === '*') {
      const e = text.indexOf('*/', i + 2);
      const stop = e === -1 ? text.length : e + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === '\'') {
      let k = i + 1;
      while (k < text.length && text[k] !== c && text[k] !== '\n') k += text[k] === '\\' ? 2 : 1;
      blank(i, Math.min(k + 1, text.length));
      i = k + 1;
    } else {
      i++;
    }
  }
  return out.join('');
}

const ATTRIBUTE_WORDS = new Set(['__launch_bounds__', '__attribute__', 'alignas', '__declspec', '__cluster_dims__']);

function skipBalanced(s: string, open: number, openCh: string, closeCh: string): number {
  let depth = 0;
  for (let k = open; k < s.length; k++) {
    if (s[k] === openCh) depth++;
    else if (s[k] === closeCh && --depth === 0) return k + 1;
  }
  return -1;
}

export function findKernels(text: string): KernelSpan[] {
  const s = blankCommentsAndStrings(text);
  const kernels: KernelSpan[] = [];
  const re = /\b__global__\b/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    const start = m.index;
    let k = start + m[0].length;
    let name: string | undefined;
    let paramsOpen = -1;
    // Walk identifiers up to the parameter list; attribute-like words take a
    // parenthesised argument that is not the parameter list.
    const ident = /[A-Za-z_][A-Za-z0-9_]*/y;
    let lastIdent: string | undefined;
    while (k < s.length) {
      const ch = s[k];
      if (/\s|\*|&|:|,/.test(ch)) { k++; continue; }
      if (ch === '<') { const e = skipBalanced(s, k, '<', '>'); if (e < 0) break; k = e; continue; }
      if (ch === '[' && s[k + 1] === '[') { const e = s.indexOf(']]', k); if (e < 0) break; k = e + 2; continue; }
      ident.lastIndex = k;
      const im = ident.exec(s);
      if (im) {
        k += im[0].length;
        if (ATTRIBUTE_WORDS.has(im[0])) {
          while (/\s/.test(s[k] ?? '')) k++;
          if (s[k] === '(') { const e = skipBalanced(s, k, '(', ')'); if (e < 0) break; k = e; }
          continue;
        }
        lastIdent = im[0];
        continue;
      }
      if (ch === '(') { name = lastIdent; paramsOpen = k; }
      break;
    }
    if (!name || paramsOpen < 0) continue;
    const paramsClose = skipBalanced(s, paramsOpen, '(', ')');
    if (paramsClose < 0) continue;
    // Definition or declaration? Look for `{` before `;`.
    let j = paramsClose;
    while (j < s.length && s[j] !== '{' && s[j] !== ';') j++;
    if (s[j] !== '{') continue;
    const end = skipBalanced(s, j, '{', '}');
    kernels.push({ name, start, end: end < 0 ? s.length : end });
    re.lastIndex = end < 0 ? s.length : end;
  }
  return kernels;
}

/**
 * The kernel whose definition contains `offset`. Outside any kernel, the only
 * kernel of the file if there is exactly one; otherwise undefined.
 */
export function kernelAtOffset(text: string, offset: number): KernelSpan | undefined {
  const kernels = findKernels(text);
  const inside = kernels.find((k) => offset >= k.start && offset <= k.end);
  if (inside) return inside;
  return kernels.length === 1 ? kernels[0] : undefined;
}
