import os

# scipy's array-API support must be switched on before scipy is imported
# (needed when sklearn.set_config(array_api_dispatch=True) is used in tests).
os.environ.setdefault("SCIPY_ARRAY_API", "1")
