"""The names and header texts of a closed chain's base-parameter code (:mod:`.closed_code_plan` for a linear
closure, :mod:`.compact_base_plan` otherwise) and of its base parameters (:mod:`.closed_base`)."""

from __future__ import annotations

__all__ = ["BASE_DOC", "base_name", "grouping_text"]

BASE_DOC = {"coriolis_matrix": "Coriolis matrix C(q, qd), h = C(q, qd) qd, dM/dt - 2C skew-symmetric; row-major",
            "regressor": "joint-torque regressor Y(q, qd, qdd) of the base parameters, tau = Y beta; row-major"}


def base_name(name: str, combo: dict) -> str:
    """A base parameter's name: the standard parameter it starts from, with R when others are grouped into it."""
    return name if len(combo) == 1 else f"{name.rstrip('0123456789')}R{name[len(name.rstrip('0123456789')):]}"


def grouping_text(betas, base) -> str:
    """The header's list of the grouped base parameters: ``ZZR1 = ZZ1 + 0.25 m2; ...``."""
    def term(k: str, c: float) -> str:
        return k if abs(c - 1) < 1e-12 else f"{c:.6g} {k}"
    return "; ".join(f"{b.name} = " + " + ".join(term(k, c) for k, c in combo.items())
                     for b, (_, combo) in zip(betas, base) if len(combo) > 1)
