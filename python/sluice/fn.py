"""Functional operator API: ``fn.readers.file(...)``, ``fn.decoders.image(...)``, ...

Filled from the engine's schemas when sluice is imported; ``help(fn.<op>)`` shows each
operator's documentation and arguments.
"""
