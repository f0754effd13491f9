#!/bin/bash
# the committed rule set (wtB), paired by construction with the prototype's SKDP_PK=-1 rows (same noise)
cd /tmp/wtB; export OMP_NUM_THREADS=1 PYTHONPATH=/tmp/wtB
python benchmarks/results/zero_eps/at_eps.py 1 --tables weather --scoring curated --configs curated --seeds 0 1 2 3 4 5 6 7 --out /tmp/fin_weather > /work/notes/s51/pk/weather_1_fin.md 2>/dev/null
for s in 0 1 2 3; do python /work/main/benchmarks/cli_draft_workflow.py --curated --skdp /tmp/wtB --tables VietNamI --rows 15000 --seed $s --out /tmp/fin_vn_$s; done > /work/notes/s51/pk/VietNamI_fin.md 2>/dev/null
for s in 0 1 2 3; do python /work/main/benchmarks/cli_draft_workflow.py --out /tmp/fin_dw_$s --seed $s --skdp /tmp/wtB > /work/notes/s51/pk2/readme_fin_s$s.md 2>/dev/null; done
