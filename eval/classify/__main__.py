"""``python -m eval.classify --data DIR --out DIR`` (see :mod:`eval.classify.harness`)."""

from eval.classify.harness import main

raise SystemExit(main())
