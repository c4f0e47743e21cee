#!/usr/bin/env python3
"""Counts a nestor binary's claims against the soundness suite's ground truth.

    tests/soundness/claims.py build/cli/nestor tests/soundness/cases/*.cu

For every loop annotated `// truth: X` it reads `independent` from
`nestor analyze --json` and prints each false claim (a carried or collective
loop called independent), then the table truth x claim. Used to report the
false-positive count of an analysis before and after a change; the pass/fail
check is soundness_tests.
"""
import json
import os
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    nestor, files = sys.argv[1], sys.argv[2:]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    flags = ['--', '-I' + os.path.join(root, 'tests/fixtures/loops'), '-I' + os.path.join(root, 'runtime/include')]
    table, false_claims = {}, 0
    for f in files:
        truths = {}
        with open(f) as src:
            for i, line in enumerate(src, 1):
                m = re.search(r'//.*truth: ([a-z]+)', line)
                if m:
                    truths[i] = m.group(1)
        out = subprocess.run([nestor, 'analyze', f, '--json'] + flags, capture_output=True, text=True)
        model = json.loads(out.stdout)
        for loop in model.get('loops', []):
            truth = truths.get(loop['line'])
            if truth is None:
                continue
            claim = 'independent' if loop['independent'] else 'refused'
            table[(truth, claim)] = table.get((truth, claim), 0) + 1
            if truth in ('carried', 'collective') and claim == 'independent':
                false_claims += 1
                print(f"false claim: {f}:{loop['line']} ({loop['function']}, truth {truth})")
    for (truth, claim), n in sorted(table.items()):
        print(f'{truth:12} {claim:12} {n}')
    print(f'false claims of independence: {false_claims}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
