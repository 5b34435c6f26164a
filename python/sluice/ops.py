"""Legacy operator classes: ``ops.CoinFlip(probability=0.5)()``, ``ops.readers.File(...)``.

Filled from the engine's schemas when sluice is imported.
"""
