"""Command-line tools behind the ``sluice`` command."""
