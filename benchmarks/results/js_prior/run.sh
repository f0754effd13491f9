#!/bin/bash
# usage: run.sh TABLE EPS MODE...   (MODE off|full|half); rows in /work/notes/s51/js/
T=$1; E=$2; shift 2
cd /tmp/wtA
for M in "$@"; do
  if [ $M = off ]; then unset SKDP_JS; else export SKDP_JS=$M; fi
  OMP_NUM_THREADS=1 PYTHONPATH=/tmp/wtA nice -n 10 python benchmarks/results/zero_eps/at_eps.py $E --tables $T --scoring curated --configs curated --seeds 0 1 2 3 4 5 6 7 --out /tmp/js_$T_$M > /work/notes/s51/js/${T}_${E}_$M.md 2>/work/notes/s51/js/${T}_${E}_$M.err
done
