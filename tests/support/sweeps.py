"""Setting up the Explore panel's Sweep view in GUI tests (imports Qt through the view)."""

from __future__ import annotations


def one_axis_sweep(view, name: str, start: float, stop: float, count: int, samples: int) -> None:
    """Sweep parameter ``name`` alone from ``start`` to ``stop`` in ``count`` designs, ``samples`` poses each."""
    view.params[0].setCurrentText(name)
    view.starts[0].setValue(start)
    view.stops[0].setValue(stop)
    view.counts[0].setValue(count)
    view.params[1].setCurrentText("(none)")
    view.samples.setValue(samples)
