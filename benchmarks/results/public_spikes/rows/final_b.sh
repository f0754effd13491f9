#!/bin/bash
cd /tmp/loans; export OMP_NUM_THREADS=1 PYTHONPATH=/tmp/wtB
mkdir -p /tmp/fin_lo
for e in 0.5 1; do for s in 0 1 2 3 4 5 6 7; do
  python -m skdp synthesize train.csv -o /tmp/fin_lo/syn_${e}_s$s.csv --domain domain.json --epsilon $e --delta 1e-6 --seed $s --quiet > /dev/null 2>&1
done; done
for e in 0.5 1; do python /work/main/benchmarks/results/mixed_speed/baseline.py /tmp/loans $e /tmp/fin_lo/syn_${e}_s{0,1,2,3,4,5,6,7}.csv; done > /work/notes/s51/pk2/loans_fin.md
cd /tmp/wtB
python benchmarks/smalln_check.py --tables weather --train 3600 --epsilons 0.5 1 --out /tmp/fin_sm > /work/notes/s51/pk2/smalln_weather_fin.md 2>/dev/null
