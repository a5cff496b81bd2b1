"""The dealer display: a local web page fed live by the controller (view.py: what is shown;
server.py: how it gets there)."""
