"""`python -m controller ...` is `tablectl ...`."""

from controller.commands.main import main

if __name__ == "__main__":
    raise SystemExit(main())
