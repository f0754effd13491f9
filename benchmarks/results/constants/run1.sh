cd /work/main
W="python benchmarks/results/smalln/wrap.py"
S="--seeds 0 1 2 3 4 5 6 7"
run() { name=$1; shift; OMP_NUM_THREADS=1 PYTHONPATH=. nice -n 5 $W "$@" --out /tmp/scr/o_$name > /tmp/scr/$name.md 2> /tmp/scr/$name.err; }
run base_heavy_3600 --tables nassCDS --heavy --train 3600 --epsilons 0.5 1 $S
run base_12000 --train 12000 --epsilons 0.5 1 $S
for v in 0.3 0.45; do
  run share${v}_3600 SET:skdp.synthesizer.SMALL_TABLE_SHARE=$v --train 3600 --epsilons 0.5 1 $S
done
run cpb4_12000 SET:skdp._domain.private.CELLS_PER_BIN=4 --train 12000 --epsilons 0.5 1 $S
for v in 0.35 0.7; do
  run heavy${v}_3600 SET:skdp.synthesizer.HEAVY_CELL=$v --train 3600 --epsilons 0.5 1 $S
  run heavy${v}_heavy_3600 SET:skdp.synthesizer.HEAVY_CELL=$v --tables nassCDS --heavy --train 3600 --epsilons 0.5 1 $S
done
for v in 0.025 0.1; do
  run refine${v}_heavy_3600 SET:skdp.synthesizer.REFINE_SHARE=$v --tables nassCDS --heavy --train 3600 --epsilons 0.5 1 $S
  run refine${v}_3600 SET:skdp.synthesizer.REFINE_SHARE=$v --train 3600 --epsilons 0.5 1 $S
done
echo done > /tmp/scr/DONE
