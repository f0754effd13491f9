"""What several solver families use, below them all: no family imports another's module
for it (``tests/project/test_import_graph.py``)."""
