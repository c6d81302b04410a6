"""Hearth's benchmark runner (issue 6): create and delete stacks of given shapes and sizes
through the engine in-process or through the API, and compare with Heat 27 when
``../shared/anchor/bench_heat.py`` is there. Run ``python -m bench --help``."""
