#!/bin/bash
# paired by construction: the loans analog through the CLI at epsilon 0.5 and 1, seeds 0-7
while pgrep -f stream2.sh > /dev/null; do sleep 5; done
cd /tmp/loans
export OMP_NUM_THREADS=1 PYTHONPATH=/tmp/wtA
for M in -1 1.0; do
  mkdir -p /tmp/pk3_lo_$M
  for e in 0.5 1; do for s in 0 1 2 3 4 5 6 7; do
    SKDP_PK=$M python -m skdp synthesize train.csv -o /tmp/pk3_lo_$M/syn_${e}_s$s.csv --domain domain.json --epsilon $e --delta 1e-6 --seed $s --quiet > /dev/null 2>&1
  done; done
  for e in 0.5 1; do python /work/main/benchmarks/results/mixed_speed/baseline.py /tmp/loans $e /tmp/pk3_lo_$M/syn_${e}_s{0,1,2,3,4,5,6,7}.csv; done > /work/notes/s51/pk2/loans_${M}.md
done
