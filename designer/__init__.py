"""Manipulator Designer: design robot arms (serial, trees, closed loops, elastic joints) from DH tables."""

__version__ = "0.1.0"
