"""One module per parity suite; each defines ``rows()`` (see ``validation/_table.py``)."""
