"""Every error class of ours derives from DesignerError (and so is still a ValueError); the CLI catches them."""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import designer
from designer.errors import DesignerError
from designer.jobs import Cancelled

# Not a mistake in what we were given: the signal a cancelled job ends with.
NOT_ERRORS = {Cancelled}   # and its kinds (the window's abandoned steps): a cancel is control flow
# the xacro child process's own errors (its evaluator's refusals, eval/exec refused): those modules run alone
# (python -I, no designer imported) and their refusals reach the program as the child's one line, a UrdfError
CHILD_ONLY = {"designer.urdf.xacro_worker", "designer.urdf.xacro_eval"}


def exception_classes(with_gui: bool) -> list[type[BaseException]]:
    """Every exception class defined in a module of designer/ (designer.gui only when with_gui)."""
    found = []
    for info in pkgutil.walk_packages(designer.__path__, "designer."):
        if info.name == "designer.__main__" or info.name in CHILD_ONLY or \
                (info.name.startswith("designer.gui") and not with_gui):
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            # a private class (jobs.process._NoProcess) is control flow caught inside its module, never shown
            own = issubclass(cls, BaseException) and cls.__module__ == module.__name__
            if own and not cls.__name__.startswith("_"):
                found.append(cls)
    return found


def test_the_core_errors_are_designer_errors():
    classes = {c for c in exception_classes(with_gui=False) if not issubclass(c, tuple(NOT_ERRORS))} - {DesignerError}
    names = {cls.__name__ for cls in classes}
    # the ones this test was written against: a rename or a move must not drop one silently
    assert {"MissingParameterError", "ExpressionError", "NotANumber", "SingularConfigurationError", "SimulationError",
            "ProjectError", "MetricError", "IKError", "UserError", "UrdfError"} <= names
    for cls in classes:
        assert issubclass(cls, DesignerError), f"{cls.__module__}.{cls.__name__} is not a DesignerError"
        assert issubclass(cls, ValueError)


def test_the_gui_errors_are_designer_errors():
    pytest.importorskip("PySide6")
    classes = {c for c in exception_classes(with_gui=True) if not issubclass(c, tuple(NOT_ERRORS))} - {DesignerError}
    assert "ExploreInputError" in {cls.__name__ for cls in classes}
    for cls in classes:
        assert issubclass(cls, DesignerError), f"{cls.__module__}.{cls.__name__} is not a DesignerError"


def test_the_cli_reports_any_designer_error_in_one_line(capsys, monkeypatch):
    """A core error a command forgot to wrap still ends as one line on stderr and status 2, no traceback."""
    from designer import cli
    from designer.numeric import SingularConfigurationError

    def fails(args):
        raise SingularConfigurationError(np.array([0.0, 1.5]), 1e17)

    class Parser:  # stands in for argparse: a command whose function raises
        def parse_args(self, argv):
            return argparse.Namespace(func=fails)

    monkeypatch.setattr(cli, "build_parser", Parser)
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: mass matrix singular at q = [0, 1.5]") and err.count("\n") == 1


def test_a_python_error_is_not_reported_as_a_user_mistake(monkeypatch):
    """A bug (a plain ValueError from our code) is not a DesignerError: the CLI lets it through."""
    from designer import cli

    def fails(args):
        raise ValueError("a bug")

    class Parser:
        def parse_args(self, argv):
            return argparse.Namespace(func=fails)

    monkeypatch.setattr(cli, "build_parser", Parser)
    with pytest.raises(ValueError, match="a bug"):
        cli.main([])
