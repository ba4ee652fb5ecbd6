"""Content: the typed model of cards, items and the checklist (`model`), the loader that checks
it (`loader`, which needs PyYAML) and a cache of the checked model (`cache`).

Import the submodules directly; this package imports nothing so that reading the cache stays
free of the YAML parser.
"""
