#!/bin/bash
# paired by construction (wtA prototype: every mode releases the public candidates): weather at 3,600 rows; README workflow seeds 0-3
cd /tmp/wtA
export OMP_NUM_THREADS=1 PYTHONPATH=/tmp/wtA
for M in -1 0.1 1.0; do
  SKDP_PK=$M python benchmarks/smalln_check.py --tables weather --train 3600 --epsilons 0.5 1 --out /tmp/pk2_sm_$M > /work/notes/s51/pk2/smalln_weather_$M.md 2>/dev/null
done
for M in -1 0.1 1.0; do
  for s in 0 1 2 3; do
    SKDP_PK=$M python /work/main/benchmarks/cli_draft_workflow.py --out /tmp/pk2_dw_${M}_$s --seed $s --skdp /tmp/wtA > /work/notes/s51/pk2/readme_${M}_s$s.md 2>/dev/null
  done
done
