"""``python mv_len.py EPS KIND``: the pairs of movies' ``length``, off (/tmp/mvcmp/o0) against
on (/tmp/mvcmp/o1: links to two CLI output folders of stream2/stream5.sh), per partner
column (mean over seeds 0-5) and their sum per seed; seed 0's 1-way histograms."""
import sys

import numpy as np

tree = '/work/main'
sys.path[:0] = [tree, tree + '/benchmarks', tree + '/benchmarks/results/mixed_speed']
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from split import read  # noqa: E402
from synth_resolution import marginal  # noqa: E402
eps, kind = sys.argv[1], sys.argv[2]
header, numeric, tr, ho = read('/tmp/mv')
d = len(header)
L = header.index('length')
acc = {m: np.zeros(d) for m in ('o0', 'o1')}
per_seed = {m: [] for m in ('o0', 'o1')}
for seed in range(6):
    ys = [_read_csv_rows(f'/tmp/mvcmp/{m}/syn_{eps}_s{seed}.csv') for m in ('o0', 'o1')]
    (h, *Y), cards = _user_codes([ho] + ys, numeric, kind, 10)
    for m, y in zip(('o0', 'o1'), Y):
        tot = 0
        for j in range(d):
            if j != L:
                pair = tuple(sorted((L, j)))
                e = 0.5 * np.abs(marginal(h, pair, cards) - marginal(y, pair, cards)).sum()
                acc[m][j] += e / 6
                tot += e
        per_seed[m].append(tot)
        if seed == 0:
            hist = np.bincount(y[:, L], minlength=cards[L]) / len(y)
            print(m, 'length hist', np.round(hist, 4))
    if seed == 0:
        print('hold', np.round(np.bincount(h[:, L], minlength=cards[L]) / len(h), 4))
for j in np.argsort(acc['o0'] - acc['o1']):
    if j != L:
        a, b = acc["o0"][j], acc["o1"][j]
        print(f'{header[j]:>12} {a:.4f} -> {b:.4f} {b - a:+.4f}')
print('per seed sums', np.round(per_seed['o0'], 3), np.round(per_seed['o1'], 3))
