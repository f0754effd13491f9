#!/bin/bash
# fresh.sh TABLE ROWS SEEDS... : the curated CLI protocol of cli_draft_workflow.py on a fresh table
T=$1; R=$2; shift 2
cd /work/main
for s in "$@"; do
  OMP_NUM_THREADS=1 nice -n 10 python benchmarks/cli_draft_workflow.py --curated --tables $T --rows $R --seed $s --out /tmp/fresh_${T}_$s
done
