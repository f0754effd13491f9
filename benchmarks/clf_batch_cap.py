"""The classifier's batch cap at large n (issue 31): timings against LogisticRegression, and
utility by rows per step.

Run (one BLAS thread, ``nice -n 10`` on a shared machine):

* ``python benchmarks/clf_batch_cap.py time --trees main=/work/main branch=. --rounds 4
  --out FILE.jsonl``: per round and cell (1e7 x 3 and 1e6 x 3, float64 and float32), the
  default ``PrivateMinimaxClassifier`` of each tree and ``LogisticRegression()``, each in a
  fresh ``benchmarks/scale.py --child`` process (its data, warm-up, CPU / wall seconds and
  peak extra RSS), the order reversed every other round;
* ``python benchmarks/clf_batch_cap.py utility --n 1e7 --d 3 --batches none 160000 --eps 1 0.3
  --seeds 5``: the default fit's log-loss and accuracy on the last 1e5 rows of scale.py's
  data, ``none`` for the tree's default rate and a number ``B`` for
  ``solver_options={'sampling_rate': B / n}`` (``B = 0.016 n``: the rate before the cap);
  ``--classes 4`` instead draws a 4-class table with one class of about 3% (accuracy and
  worst-class accuracy; ``LogisticRegression(class_weight='balanced')`` as the reference).
"""

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CELLS = [(10**7, "float64"), (10**7, "float32"), (10**6, "float64"), (10**6, "float32")]


def timings(trees, rounds, out, tmp):
    """Alternate the trees' default classifier and LogisticRegression, fresh child each."""
    env0 = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    first = next(iter(trees))
    with open(out, "a") as fh:
        for r in range(rounds):
            for n, dtype in CELLS:
                order = [(t, "skdp_clf") for t in trees] + [(first, "LogisticRegression")]
                for tree, method in (order[::-1] if r % 2 else order):
                    rec = _child(method, n, dtype, tmp, dict(env0, PYTHONPATH=trees[tree]))
                    rec.update(tree=tree, round=r,
                               at=time.strftime("%H:%M:%S", time.gmtime()))
                    fh.write(json.dumps(rec) + "\n")
                    fh.flush()


def _child(method, n, dtype, tmp, env):
    load = os.getloadavg()[0]
    cmd = [sys.executable, os.path.join(HERE, "scale.py"), "--child", method, str(n), "3", dtype,
           "--tmp", tmp, "--no-traced"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=280)
    if out.returncode != 0:
        return dict(method=method, n=n, dtype=dtype, load1=load, status=out.stderr[-300:])
    return dict(json.loads(out.stdout.strip().splitlines()[-1]), load1=load)


def _scale_data(n, d, dtype, tmp):
    sys.path.insert(0, HERE)
    import scale

    paths = scale.generate(n, d, dtype, tmp)
    return np.load(paths["X"]), np.load(paths["labels"])


def _four_classes(n, d):
    """Rows as scale.py's; 4 classes from a softmax of random linear scores, one about 3%."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n, d)) / np.sqrt(2 * d)
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    scores = X @ (rng.standard_normal((4, d)) * 3 * np.sqrt(2)).T + [0.0, 0.0, -0.5, -4.0]
    probs = np.exp(scores - scores.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    return X, (probs.cumsum(axis=1) > rng.random(n)[:, None]).argmax(axis=1)


def utility(n, d, dtype, batches, epsilons, seeds, classes, tmp):
    from threadpoolctl import threadpool_limits

    from skdp import PrivateMinimaxClassifier

    warnings.simplefilter("ignore")
    X, y = _four_classes(n, d) if classes == 4 else _scale_data(n, d, dtype, tmp)
    Xt, yt = X[-100_000:].astype(float), y[-100_000:]
    labels = list(range(max(classes, 2)))
    with threadpool_limits(1):
        if classes == 4:
            from sklearn.linear_model import LogisticRegression

            ref = LogisticRegression(class_weight="balanced", max_iter=300).fit(X, y)
            print(json.dumps(dict(reference="LogisticRegression balanced",
                                  **_scores(ref.predict(Xt), yt, labels))), flush=True)
        for eps in epsilons:
            for batch in batches:
                for seed in range(seeds):
                    params = dict(epsilon=eps, delta=1e-6, feature_bound=1.0, random_state=seed)
                    if batch is not None:
                        params.update(solver="dpsgd_poisson",
                                      solver_options={"sampling_rate": batch / n})
                    est = PrivateMinimaxClassifier(**params)
                    cpu = time.process_time()
                    est.fit(X, y, classes=labels)
                    cpu = time.process_time() - cpu
                    rec = dict(n=n, d=d, dtype=dtype, classes=classes, B=batch, eps=eps,
                               seed=seed, cpu=round(cpu, 3), solver=est.solver_)
                    if classes == 4:
                        rec.update(_scores(est.predict(Xt), yt, labels))
                    else:
                        z = Xt @ est.coef_[0] + est.intercept_[0]
                        rec.update(loss=float(np.mean(np.logaddexp(0, z) - yt * z)),
                                   acc=float(np.mean((z > 0) == yt)))
                    print(json.dumps(rec), flush=True)


def _scores(pred, y, labels):
    return dict(acc=float(np.mean(pred == y)),
                worst=min(float(np.mean(pred[y == c] == c)) for c in labels))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["time", "utility"])
    parser.add_argument("--trees", nargs="+", default=[f"here={os.path.dirname(HERE)}"],
                        help="NAME=PATH: the trees put on PYTHONPATH (time)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--out", default="clf_batch_cap.jsonl")
    parser.add_argument("--tmp", default="/tmp")
    parser.add_argument("--n", type=float, default=1e7)
    parser.add_argument("--d", type=int, default=3)
    parser.add_argument("--dtype", default="float64")
    parser.add_argument("--classes", type=int, default=2, choices=[2, 4])
    parser.add_argument("--batches", nargs="+", default=["none"])
    parser.add_argument("--eps", type=float, nargs="+", default=[1.0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    if args.mode == "time":
        trees = dict(t.split("=", 1) for t in args.trees)
        timings({k: os.path.abspath(v) for k, v in trees.items()}, args.rounds, args.out,
                args.tmp)
    else:
        batches = [None if b == "none" else float(b) for b in args.batches]
        utility(int(args.n), args.d, args.dtype, batches, args.eps, args.seeds, args.classes,
                args.tmp)


if __name__ == "__main__":
    main()
