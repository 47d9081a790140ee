"""Manipulator Designer: design serial robot arms from their Denavit-Hartenberg tables."""

__version__ = "0.1.0"
