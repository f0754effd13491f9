import os

# scipy's array-API support must be switched on before scipy is imported
# (needed when sklearn.set_config(array_api_dispatch=True) is used in tests).
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from hypothesis import settings  # noqa: E402

# Property tests explore the same examples on every run (reproducible CI);
# set HYPOTHESIS_PROFILE=explore to search afresh.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
