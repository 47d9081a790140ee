"""Numeric dynamics: recursive Newton-Euler with numpy, and compiled symbolic equations."""

from .recursive import (bias, christoffel, coriolis_coefficients, coriolis_matrix, gravity_torque,
                        kinetic_energy, lumped_bodies, mass_matrix, potential_energy, rnea)

__all__ = ["bias", "christoffel", "coriolis_coefficients", "coriolis_matrix", "gravity_torque",
           "kinetic_energy", "lumped_bodies", "mass_matrix", "potential_energy", "rnea"]
