"""Project format version 3, closed chains: reading and writing a link's parent, actuated flag and
branching parameters and the loops (docs/project-format.md, "Closed chains, version 3").

Kept apart from :mod:`designer.project.io` so that other version-3 additions merge cleanly; the
reader functions take io's ``_Reader`` (``self``) and report each problem by field through it.
"""

from __future__ import annotations

import json
from typing import Any

from ..model.expr import format_expr
from ..model.extras import Pose
from ..model.manipulator import Link
from ..model.mechanism import CutJoint, Loop

__all__ = ["V3_CLOSED_LINK_KEYS", "V3_CLOSED_TOP_KEYS", "closed_chain_link", "read_loop", "read_loops",
           "closed_chain_link_json", "loop_json"]

V3_CLOSED_LINK_KEYS = {"parent", "actuated", "gamma", "b"}
V3_CLOSED_TOP_KEYS = {"loops"}
#: at most this many loops (as many as links)
MAX_LOOPS = 64


def closed_chain_link(self, data: dict, where: str) -> dict | None:
    """The link's parent, actuated flag and branching parameters gamma, b (None on a problem)."""
    out: dict[str, Any] = {}
    ok = True
    if data.get("parent") is not None:
        parent = data["parent"]
        if isinstance(parent, bool) or not isinstance(parent, int):
            self.fail(f"{where}.parent", "must be a link number (0 the base, or an earlier link)")
            ok = False
        else:
            out["parent"] = parent   # range checked by validate(), which knows the link's place
    if "actuated" in data:
        if not isinstance(data["actuated"], bool):
            self.fail(f"{where}.actuated", "must be true or false")
            ok = False
        else:
            out["actuated"] = data["actuated"]
    for key in ("gamma", "b"):
        if key in data:
            value = self.expr(data[key], f"{where}.{key}")
            ok = ok and value is not None
            out[key] = value
    return out if ok else None

def read_loop(self, data, k: int) -> Loop | None:
    where = f"loops[{k}]"
    if not isinstance(data, dict):
        self.fail(where, "must be an object")
        return None
    unknown = set(data) - {"name", "joint", "link_i", "link_j", "frame_i", "frame_j"}
    if unknown:
        self.fail(where, "unknown field(s) " + ", ".join(sorted(map(str, unknown))))
    links = []
    for key in ("link_i", "link_j"):
        value = data.get(key)
        if key not in data:
            self.fail(f"{where}.{key}", "missing (a link number, 0 the base)")
        elif isinstance(value, bool) or not isinstance(value, int):
            self.fail(f"{where}.{key}", "must be a link number (0 the base)")
        else:
            links.append(value)
    joint = data.get("joint", "R")
    if joint not in [c.value for c in CutJoint]:
        self.fail(f"{where}.joint", "must be \"R\" (revolute about the frames' z), \"S\" (ball) or "
                  f"\"F\" (fixed), not {json.dumps(joint)}")
        joint = "R"   # a stand-in, so that validate() still checks the loop's links (the file is refused)
    frames = [self.pose(data.get(key), f"{where}.{key}") for key in ("frame_i", "frame_j")]
    name = self.text(data.get("name"), f"{where}.name")
    if len(links) != 2:
        return None
    return Loop(links[0], links[1], frames[0] or Pose(), frames[1] or Pose(), CutJoint(joint), name)

def read_loops(self, data) -> tuple[Loop, ...]:
    if data is None:
        return ()
    if not isinstance(data, list):
        self.fail("loops", "must be a list")
        return ()
    if len(data) > MAX_LOOPS:
        self.fail("loops", f"more than {MAX_LOOPS} loops")
        return ()
    loops = [read_loop(self, d, k) for k, d in enumerate(data, start=1)]
    return tuple(loop for loop in loops if loop is not None)


def closed_chain_link_json(link: Link) -> dict:
    """A link's version-3 closed-chain fields, only those that differ from the serial default."""
    out: dict[str, Any] = {}
    if link.parent is not None:
        out["parent"] = link.parent
    if not link.actuated:
        out["actuated"] = False
    if link.gamma != 0:
        out["gamma"] = format_expr(link.gamma)
    if link.b != 0:
        out["b"] = format_expr(link.b)
    return out


def loop_json(loop: Loop, pose_json) -> dict:
    out: dict[str, Any] = {}
    if loop.name:
        out["name"] = loop.name
    out.update({"joint": loop.joint.value, "link_i": loop.link_i, "link_j": loop.link_j,
                "frame_i": pose_json(loop.frame_i), "frame_j": pose_json(loop.frame_j)})
    return out
