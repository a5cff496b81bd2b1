"""A payload's bounds as a whole, before any field is read: kept apart from the models, so that
the command line (`floor serve --max-message`) reads them without loading pydantic."""

from typing import Final

MAX_MESSAGE: Final = 256 * 1024  # the largest payload: the shipped broker's limit too
MAX_DEPTH: Final = 32  # a round's body nests 4 deep; a day's summary 6
MAX_DIGITS: Final = 24  # a number's characters: 2**63 has 19 digits
