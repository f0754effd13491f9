#!/bin/bash
while pgrep -f "at_eps.py 1 --tables weather" > /dev/null; do sleep 5; done
cd /tmp/wtB
for s in 0 1 2 3; do
  OMP_NUM_THREADS=1 nice -n 10 python /work/main/benchmarks/cli_draft_workflow.py --curated --skdp /tmp/wtB --tables VietNamI --rows 15000 --seed $s --out /tmp/pkf_VietNamI_wtB_$s
done > /work/notes/s51/pk/VietNamI_wtB.md 2>/dev/null
