"""The project's drive data as the default of the explore inputs (rated torque and speed, gear, rotor).

An empty field takes the project's value (:func:`designer.model.drives.drive_values`); what
the user types overrides it. The placeholder of each field says which value an empty field
stands for, so the user sees it without being asked.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QLineEdit

from ...explore.metrics import explored_drive_values
from ...model import Manipulator

__all__ = ["fill", "show", "drive_values"]


def drive_values(model: Manipulator) -> dict:
    """The project's drive data of the joints the metrics number: a closed chain's actuated joints
    (its drive data are per tree joint: a passive bearing's would be read as a motor's), as the core's
    explore commands read them."""
    return explored_drive_values(model)


def fill(values: dict[str, np.ndarray | None], model: Manipulator | None) -> dict[str, np.ndarray | None]:
    """``values`` with each None that the project's drive data gives replaced by it."""
    if model is None:
        return values
    drives = drive_values(model)
    return {what: drives.get(what) if v is None and drives.get(what) is not None else v for what, v in values.items()}


def show(edits: dict[str, QLineEdit], model: Manipulator, fallback: dict[str, str]) -> None:
    """Placeholders: the project's value of each field when it has one, else ``fallback[what]``."""
    drives = drive_values(model)
    for what, edit in edits.items():
        value = drives.get(what)
        if value is None:
            edit.setPlaceholderText(fallback[what])
        else:
            kind = f"{drives['torque_kind']} torque, " if what == "torque" else ""
            edit.setPlaceholderText(f"from the project ({kind}drive data): " + ", ".join(f"{v:g}" for v in value))
