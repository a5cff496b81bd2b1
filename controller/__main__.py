"""`python -m controller ...` is `tablectl ...`: the command line (controller/commands/main.py),
loaded inside the one way out, so that even a Ctrl-C while it loads is one line."""

import sys
from typing import NoReturn

EXIT_INTERRUPTED = 130  # as controller.commands.common says it, before that is loaded


def run() -> NoReturn:
    try:
        from controller.commands.main import main
    except KeyboardInterrupt:
        sys.stderr.write("tablectl: interrupted\n")
        raise SystemExit(EXIT_INTERRUPTED) from None
    raise SystemExit(main())


if __name__ == "__main__":
    run()
