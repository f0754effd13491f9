#!/bin/bash
# final speed check, issue 31: fresh child per fit, one thread; rounds alternate methods
cd "$(dirname "$0")/../.."
OUT=${1:?usage: issue31_speed_1e6_s43.sh OUT.jsonl [ROUNDS]}
R=${2:-5}
for r in $(seq 1 $R); do
  for d in 3 10; do for dt in float64 float32; do
    for m in skdp_clf LogisticRegression skdp_reg Ridge LinearRegression; do
      OMP_NUM_THREADS=1 python benchmarks/scale.py --child $m 1000000 $d $dt --tmp ${TMPDIR:-/tmp}/s43scale --no-traced 2>/dev/null | sed "s/^{/{\"round\": $r, /" >> $OUT
    done; done; done
done
for r in 1 2; do
  for dt in float64 float32; do
    for m in skdp_clf LogisticRegression skdp_reg Ridge LinearRegression; do
      OMP_NUM_THREADS=1 python benchmarks/scale.py --child $m 1000000 100 $dt --tmp ${TMPDIR:-/tmp}/s43scale --no-traced 2>/dev/null | sed "s/^{/{\"round\": $r, /" >> $OUT
    done; done
done
