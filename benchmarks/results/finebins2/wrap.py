import os
import sys
import runpy
import skdp._domain.fine_bins as fb

for kv in os.environ.get("FB", "").split(","):
    if kv:
        k, v = kv.split("=")
        cur = getattr(fb, k)
        setattr(
            fb,
            k,
            None
            if v == "None"
            else (v == "True")
            if isinstance(cur, bool)
            else type(cur)(v)
            if cur is not None
            else v,
        )
print(
    "<!-- fine_bins",
    {
        k: getattr(fb, k)
        for k in ("MERGE_RULE", "MERGE_C", "MERGE_AFTER", "MERGE_ENDS", "MERGE_INT_ONLY")
        if hasattr(fb, k)
    },
    "-->",
)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
