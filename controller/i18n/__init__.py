"""The screens in the languages of the people who read them (issue 39): the catalogs, their
extraction and checks, and the translation of the core's English sentences (`said`)."""
