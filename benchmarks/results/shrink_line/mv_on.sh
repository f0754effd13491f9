# mv_on.sh TAG EPS SEEDS... : on-rows only with the current env (off rows are o0)
tag=$1; eps=$2; shift 2; mkdir -p ${OUT:-/tmp/s50/mvp}/$tag
for s in "$@"; do
  (cd /tmp/mv && SKDP_SHRINK_CELLS=1 PYTHONPATH=${SKDP_TREE:?a checkout with switch.diff} OMP_NUM_THREADS=1 python -m skdp synthesize train.csv -o ${OUT:-/tmp/s50/mvp}/$tag/syn_${eps}_s$s.csv \
    --domain domain.json --epsilon $eps --delta 1e-6 --seed $s --quiet > /dev/null 2>&1)
done
