"""Entry point of ``python -m eval.templates`` (see :mod:`eval.templates.harness`)."""

import sys

from eval.templates.harness import main

sys.exit(main())
