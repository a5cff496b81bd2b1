"""`said`: a sentence for people, marked for the catalogs (issue 39).

The core says everything in English: the journal, the logs and the floor keep it so, for the
audit. A screen shows it in its reader's language: `controller.i18n` finds the sentence's
template in the catalog and translates it with its parts. So a sentence is one template with
named parts, `said("seat {seat}: {wager} below the minimum {minimum}", seat=2, ...)`, never
glued from pieces: the template is what `pybabel extract` takes (keyword `said`) and what a
translator reorders. Parts are plain `{name}`: no format spec, no attribute, no index.
"""

from __future__ import annotations


def said(template: str, /, **parts: object) -> str:
    """The English sentence: `template` with its parts."""
    return template.format(**parts) if parts else template
