#!/bin/bash
# pk_fresh.sh TABLE MODE SEEDS...: the curated CLI protocol on a fresh table, /tmp/wtA with SKDP_PK=MODE (off: 0)
T=$1; M=$2; shift 2
if [ $M = off ]; then export SKDP_PK=0; else export SKDP_PK=$M; fi
cd /tmp/wtA
for s in "$@"; do
  OMP_NUM_THREADS=1 nice -n 10 python /work/main/benchmarks/cli_draft_workflow.py --curated --skdp /tmp/wtA --tables $T --rows 15000 --seed $s --out /tmp/pkf_${T}_${M}_$s
done
