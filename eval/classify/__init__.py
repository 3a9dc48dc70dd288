"""Page-type classification harness (``python -m eval.classify --data DIR --out DIR``)."""
