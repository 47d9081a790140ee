"""How explore names joints: 1..n on a serial arm, a closed chain's actuated joints by their link numbers.

A closed chain's eval and torques name its actuated joints by their links (q1, q2, q4, q6 on the
palletizer, whose joints 3 and 5 are passive); explore's metric texts (``coupling[2,4]``), columns
and tables use the same names, so that a number means the same joint in every output.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["joint_numbers", "joint_label", "joint_position", "model_joint_numbers"]


def joint_numbers(arm) -> tuple[int, ...]:
    """How explore names the joints of ``arm``: 1..n for a serial arm, a closed chain's actuated joints by
    their link numbers (1, 2, 4, 6 for the palletizer), as eval and torques name them."""
    return tuple(getattr(arm, "joint_numbers", range(1, arm.n + 1)))


def joint_label(i: int, numbers: Sequence[int] = ()) -> int:
    """The name of the 0-based joint i: its number in ``numbers``, else i + 1."""
    return int(numbers[i]) if numbers else i + 1


def joint_position(number: int, numbers: Sequence[int], what: str) -> int:
    """The 0-based place of the joint named ``number`` (1-based, in ``numbers`` when given); ValueError
    naming ``what`` and the joints there are."""
    names = list(numbers)
    if number in names:
        return names.index(number)
    raise ValueError(f"{what}: no joint {number} (the joints are {', '.join(map(str, names))})")


def model_joint_numbers(model) -> tuple[int, ...]:
    """:func:`joint_numbers` of a project's arm: its actuated links (1-based), 1..n for a serial arm."""
    return tuple(k for k, link in enumerate(model.links, start=1) if link.actuated)
