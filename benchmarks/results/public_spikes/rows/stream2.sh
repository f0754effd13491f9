#!/bin/bash
# paired by construction: movies through the CLI at epsilon 0.5 and 1, seeds 0-5
cd /tmp/mv
export OMP_NUM_THREADS=1 PYTHONPATH=/tmp/wtA
for M in -1 1.0; do
  mkdir -p /tmp/pk3_mv_$M
  for e in 1 0.5; do for s in 0 1 2 3 4 5; do
    SKDP_PK=$M python -m skdp synthesize train.csv -o /tmp/pk3_mv_$M/syn_${e}_s$s.csv --domain domain.json --epsilon $e --delta 1e-6 --seed $s --quiet > /dev/null 2>&1
  done; done
  for e in 1 0.5; do python /work/main/benchmarks/results/mixed_speed/baseline.py /tmp/mv $e /tmp/pk3_mv_$M/syn_${e}_s{0,1,2,3,4,5}.csv > /work/notes/s51/pk2/movies65k_${M}_$e.md; done
done
