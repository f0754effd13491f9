cd /work/main
W="python benchmarks/results/smalln/wrap.py"
run() { name=$1; shift; OMP_NUM_THREADS=1 PYTHONPATH=. nice -n 5 $W "$@" --out /tmp/scr/o_$name > /tmp/scr/$name.md 2> /tmp/scr/$name.err; }
S2="--seeds 8 9 10 11 12 13 14 15"
run base_3600_s8 --train 3600 --epsilons 0.5 1 $S2
for v in 0.4 0.45; do
  run share${v}_3600_s8 SET:skdp.synthesizer.SMALL_TABLE_SHARE=$v --train 3600 --epsilons 0.5 1 $S2
  run share${v}_12000 SET:skdp.synthesizer.SMALL_TABLE_SHARE=$v --train 12000 --epsilons 0.5 --seeds 0 1 2 3 4 5 6 7
  run share${v}_heavy_3600 SET:skdp.synthesizer.SMALL_TABLE_SHARE=$v --tables nassCDS --heavy --train 3600 --epsilons 0.5 1 --seeds 0 1 2 3 4 5 6 7
done
run share0.4_3600 SET:skdp.synthesizer.SMALL_TABLE_SHARE=0.4 --train 3600 --epsilons 0.5 1 --seeds 0 1 2 3 4 5 6 7
echo done > /tmp/scr/DONE2
