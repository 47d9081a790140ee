"""The views helper's widgets (3D arm, joint sliders, coupling plots), with stand-ins until they land."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QWidget

from .joint_sliders import JointSliders
from .view3d import ArmView

try:
    from .coupling_plots import CouplingPanel
except ImportError:  # temporary
    class CouplingPanel(QLabel):
        def __init__(self, parent=None):
            super().__init__("Coupling plots are not available yet.", parent)

        def set_model(self, model) -> None:
            pass

        def set_joint_values(self, q) -> None:
            pass

__all__ = ["make_views"]


def make_views(parent: QWidget):
    """(ArmView, JointSliders, CouplingPanel) children of ``parent``."""
    return ArmView(parent), JointSliders(parent), CouplingPanel(parent)
