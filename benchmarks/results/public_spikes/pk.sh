#!/bin/bash
# pk.sh TABLE EPS MODE... (MODE: off or the expected false spikes per column, e.g. 0.1)
T=$1; E=$2; shift 2
cd /tmp/wtA
for M in "$@"; do
  if [ $M = off ]; then export SKDP_PK=0; else export SKDP_PK=$M; fi
  OMP_NUM_THREADS=1 PYTHONPATH=/tmp/wtA nice -n 10 python benchmarks/results/zero_eps/at_eps.py $E --tables $T --scoring curated --configs curated --seeds 0 1 2 3 4 5 6 7 --out /tmp/pk_${T}_$M > /work/notes/s51/pk/${T}_${E}_$M.md 2>/work/notes/s51/pk/${T}_${E}_$M.err
done
