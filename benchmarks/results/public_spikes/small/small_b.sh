#!/bin/bash
cd /tmp/wtD; export OMP_NUM_THREADS=1 PYTHONPATH=/tmp/wtD
for M in stab pub; do
  if [ $M = stab ]; then export SKDP_STAB=1; else unset SKDP_STAB; fi
  for s in 0 1 2 3; do python /work/main/benchmarks/cli_draft_workflow.py --curated --skdp /tmp/wtD --tables VietNamI --rows 4454 --seed $s --out /tmp/sm_vn_${M}_$s; done > /work/notes/s51/small/VietNamI_small_$M.md 2>/dev/null
  python benchmarks/smalln_check.py --tables weather --train 3600 --epsilons 0.5 1 --out /tmp/sm_w_$M > /work/notes/s51/small/weather_3600_$M.md 2>/dev/null
done
