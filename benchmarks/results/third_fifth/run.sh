#!/bin/bash
# The validation rows of "the third level at a fifth" (benchmarks/RESULTS.md, issue 30).
# run.sh CHECKOUT OUT : every row of the section for the skdp in CHECKOUT (a worktree with the
# change, or main), two streams on a 2-core box. Needs movies.py's split in /tmp/mv and
# loans.py's in /tmp/loans (benchmarks/results/mixed_speed/).
co=$(cd "$1" && pwd); out=$2; mkdir -p "$out/mv" "$out/loans"
export OMP_NUM_THREADS=1
here=$(cd "$(dirname "$0")" && pwd); base=$here/../mixed_speed/baseline.py
cli() {  # cli DATA OUTDIR EPS SEED...
  local data=$1 dir=$2 eps=$3; shift 3
  for s in "$@"; do
    (cd "$data" && PYTHONPATH=$co python -m skdp synthesize train.csv -o "$dir/syn_${eps}_s$s.csv" \
      --domain domain.json --epsilon "$eps" --delta 1e-6 --seed "$s" --quiet > /dev/null 2>&1)
  done
}
cd "$co"
(
  cli /tmp/mv "$out/mv" 1 0 1 2 3 4 5; cli /tmp/mv "$out/mv" 0.5 0 1 2 3 4 5; cli /tmp/mv "$out/mv" 5 0 1 2
  for e in 1 0.5; do python "$base" /tmp/mv $e "$out"/mv/syn_${e}_s{0,1,2,3,4,5}.csv > "$out/movies_$e.md"; done
  python "$base" /tmp/mv 5 "$out"/mv/syn_5_s{0,1,2}.csv > "$out/movies_5.md"
  PYTHONPATH=. python benchmarks/smalln_check.py --tables nassCDS --heavy --train 12000 \
    --epsilons 0.5 1 5 --out "$out/hv" > "$out/heavy_12000.md" 2> /dev/null
  for t in nassCDS DoctorContacts weather; do
    PYTHONPATH=. python benchmarks/results/issue30_targets/cli_targets.py "$out/t30" $t curated \
      0 1 2 3 4 5 6 7 >> "$out/cli_targets_curated.md" 2> /dev/null
  done
) &
(
  PYTHONPATH=. python benchmarks/smalln_check.py --train 3600 --epsilons 0.5 1 --out "$out/sm" \
    > "$out/smalln_3600.md" 2> /dev/null
  for t in nassCDS DoctorContacts weather; do
    PYTHONPATH=. python benchmarks/results/issue30_targets/cli_targets.py "$out/t30" $t api \
      0 1 2 3 4 5 6 7 >> "$out/cli_targets_api.md" 2> /dev/null
  done
  for e in 0.5 1; do cli /tmp/loans "$out/loans" $e 0 1 2 3 4 5 6 7; done
  for e in 0.5 1; do python "$base" /tmp/loans $e "$out"/loans/syn_${e}_s{0,1,2,3,4,5,6,7}.csv; done \
    > "$out/loans.md"
  python benchmarks/cli_draft_workflow.py --out "$out/dw" --seed 0 --skdp "$co" > "$out/readme_workflow.md"
) &
wait
