"""``python -m bench``: see :mod:`bench.cli`; ``python -m bench console``: see
:mod:`bench.console`."""

from __future__ import annotations

import sys

from bench.cli import main

if __name__ == "__main__":
    if sys.argv[1:2] == ["console"]:
        from bench import console

        sys.exit(console.main(sys.argv[2:]))
    sys.exit(main())
