"""Every number of a URDF and of an MJCF file, replaced by a value at the edge of floating point,
gives a one-line message or a checked import, never a traceback (import-urdf, import-mjcf)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.cli_lines import run_message_or_success

URDF = """<robot name="fuzz"><link name="base"/>
<link name="l1"><inertial><origin xyz="0.01 0.02 0.1" rpy="0.1 0 0"/><mass value="2"/>
<inertia ixx="0.02" iyy="0.03" izz="0.025" ixy="0.001" ixz="0" iyz="0"/></inertial></link>
<link name="l2"><inertial><origin xyz="0.2 0 0" rpy="0 0 0"/><mass value="1.5"/>
<inertia ixx="0.01" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0 0.1" rpy="0 0 0"/>
<axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="50" velocity="2"/>
<dynamics damping="0.1" friction="0.2"/></joint>
<joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0 0.1 0.3" rpy="1.570796325 0 0"/>
<axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="20" velocity="2"/></joint></robot>"""

MJCF = """<mujoco model="fuzz"><worldbody><body name="l1" pos="0 0 0.1" euler="0 0 0.3">
<joint name="j1" axis="0 0 1" range="-3 3" armature="0.01" damping="0.1" frictionloss="0.2"/>
<inertial pos="0.01 0.02 0.1" mass="2" diaginertia="0.02 0.03 0.025"/>
<body name="l2" pos="0 0.1 0.3" quat="0.7071068 0.7071068 0 0"><joint name="j2" axis="0 0 1"/>
<inertial pos="0.2 0 0" mass="1.5" fullinertia="0.01 0.02 0.02 0 0 0"/></body></body></worldbody>
<actuator><motor joint="j1" gear="100" ctrlrange="-0.5 0.5"/></actuator></mujoco>"""

EDGES = ["1e308", "-1e308", "1.7976931348623157e308", "1e300", "1e50", "1e10", "1e-308", "5e-324", "-0", "1e-300",
         "nan", "inf", "-inf", "1e999", "0"]


def _numbers(text: str) -> list[re.Match]:
    return list(re.finditer(r"(?<![\w.])-?\d+(\.\d+)?(e-?\d+)?(?![\w.])", text))


@pytest.mark.parametrize("text,command,suffix", [(URDF, "import-urdf", ".urdf"), (MJCF, "import-mjcf", ".xml")],
                         ids=["urdf", "mjcf"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_edge_values_in_any_number_give_a_message_not_a_traceback(text, command, suffix, data, tmp_path, capsys):
    if command == "import-mjcf":
        pytest.importorskip("mujoco")
    spots = _numbers(text)
    picks = data.draw(st.lists(st.tuples(st.integers(0, len(spots) - 1), st.sampled_from(EDGES)),
                               min_size=1, max_size=2, unique_by=lambda p: p[0]))
    out = text
    for k, value in sorted(picks, key=lambda p: -spots[p[0]].start()):
        m = spots[k]
        out = out[:m.start()] + value + out[m.end():]
    path = tmp_path / ("robot" + suffix)
    path.write_text(out)
    run_message_or_success([command, str(path), "--out", str(tmp_path / "p.json")], capsys)
