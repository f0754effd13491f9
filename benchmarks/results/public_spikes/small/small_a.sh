#!/bin/bash
# small tables, paired by construction: SKDP_STAB=1 (main's threshold on the public candidates) vs the committed rule
cd /tmp/mv_small; export OMP_NUM_THREADS=1 PYTHONPATH=/tmp/wtD
for M in stab pub; do
  mkdir -p /tmp/sm_mv_$M
  for e in 1 0.5; do for s in 0 1 2 3 4 5 6 7; do
    if [ $M = stab ]; then export SKDP_STAB=1; else unset SKDP_STAB; fi
    python -m skdp synthesize train.csv -o /tmp/sm_mv_$M/syn_${e}_s$s.csv --domain domain.json --epsilon $e --delta 1e-6 --seed $s --quiet > /dev/null 2>&1
  done; done
  unset SKDP_STAB
  for e in 1 0.5; do python /work/main/benchmarks/results/mixed_speed/baseline.py /tmp/mv_small $e /tmp/sm_mv_$M/syn_${e}_s{0,1,2,3,4,5,6,7}.csv > /work/notes/s51/small/movies_small_${M}_$e.md; done
done
