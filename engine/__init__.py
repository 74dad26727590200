"""kartu's game engine: pure rules and the room runtime.

Nothing in this package performs I/O, reads a clock or uses the global
``random`` module. Chance comes in as an :class:`engine.rng.Rng`, time as an
integer ``now`` in epoch milliseconds. A test (tests/engine/test_purity.py)
keeps it that way.
"""
