"""`python -m controller ...` is `tablectl ...`."""

from controller.commands.main import main

raise SystemExit(main())
