"""Models for the control engineer: linearized and discrete-time state-space models."""

from .linearize import LinearModel, DiscreteModel, linearize

__all__ = ["LinearModel", "DiscreteModel", "linearize"]
