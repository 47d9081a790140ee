"""The project's visual meshes in the 3D view: one GL item per DH frame holding its meshes, moved with the frame.

Files load as a job on the worker pool (:func:`designer.urdf.meshes.load_meshes_job`; a Panda's
eleven DAE files take about 3 s with trimesh and pycollada) and are thinned to :data:`FACE_BUDGET`
triangles for the whole arm, shared out by mesh, to keep dragging a slider near the stick
figure's frame rate on a software renderer (benchmarks/bench_view3d.py --meshes ur5). Moving a
joint only sets each item's 4x4 transform; the triangles stay uploaded. A mesh that cannot be
loaded is listed in :attr:`MeshLayer.problems` and its link falls back to the stick figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QMatrix4x4
from shiboken6 import isValid

from .gl_solids import LIT_SHADER
from .worker import start_job

if TYPE_CHECKING:   # the model's modules import sympy, which the window's first picture does without (issue 29)
    from ..model import Manipulator
    from ..model.validation import Problem
    from ..model.visual import Visual

__all__ = ["FACE_BUDGET", "MIN_FACES", "MeshLayer"]

#: triangles for the whole arm (the UR5's files hold 85,000, the Panda's 250,000). Frame times on llvmpipe
#: measured side by side in one process (UR5, 1000x700, 2 cores under a load average of 12, without
#: culling): sticks 39 ms, meshes thinned to 18,000 triangles 61 ms, 32,000 75 ms, 61,000 99 ms
#: (benchmarks/bench_view3d.py --meshes ur5 --faces N measures it)
FACE_BUDGET = 20_000
MIN_FACES = 1_000
MESH_COLOR = (0.72, 0.74, 0.78, 1.0)
#: opaque, and the faces turned away from the camera not drawn: a closed mesh's back half is hidden
#: anyway, and a software renderer's time goes into filling pixels. Frame times side by side (1000x700,
#: llvmpipe, load average 2): UR5 sticks 5.7 ms, meshes 7.8 ms culled, 9.7 ms not; Panda 6.3, 9.3, 10.9 ms
_OPTIONS = {GL.GL_DEPTH_TEST: True, GL.GL_BLEND: False, GL.GL_CULL_FACE: True}


class MeshLayer(QObject):
    """The GL items of a model's visuals (``base_visual`` on frame 0, ``links[i].visual`` on frame i), one per frame."""

    loaded = Signal()            # every mesh of the current model is loaded or failed
    problemsChanged = Signal(list)

    def __init__(self, view: gl.GLViewWidget):
        super().__init__()
        self.view = view
        self.visible = True
        self._wanted: list[tuple[int, Visual]] = []   # (frame index, Visual)
        self._items: list[tuple[int, np.ndarray, gl.GLMeshItem]] = []
        self._generation = 0
        self.problems: list[Problem] = []
        self.pending = False
        self._worker: Any = None   # the loading job's worker (thread or process), None when idle

    def set_model(self, model: Manipulator | None) -> None:
        wanted = [] if model is None else [(0, v) for v in model.base_visuals] + [
            (i, v) for i, link in enumerate(model.links, start=1) for v in link.visuals]
        if wanted == self._wanted:
            return
        self._wanted = wanted
        self._generation += 1
        if self._worker is not None:
            self._worker.cancel()
        self._remove_items()
        self.problems = []
        if not wanted:
            self.pending = False
            self.problemsChanged.emit([])
            return
        self.pending = True
        budget = max(MIN_FACES, FACE_BUDGET // len(wanted))
        jobs = [(v.mesh, v.scale, budget) for _, v in wanted]
        generation = self._generation
        from ..urdf.meshes import load_meshes_job   # here: the URDF package is 50 ms of the window's start (issue 29)
        self._worker = start_job(lambda token: load_meshes_job(jobs, token),
                                 finished=lambda results: self._on_arrived(generation, results),
                                 failed=lambda message, _details: self._on_arrived(generation, [message] * len(jobs)))

    def _on_arrived(self, generation: int, results: list) -> None:
        if generation != self._generation:   # the model changed while loading
            return
        if not isValid(self.view):   # the window closed while loading: a late result is dropped
            return
        from ..model.validation import Problem, Severity

        self.pending = False
        self.problems = []
        parts: dict[int, list] = {}
        for (frame, visual), data in zip(self._wanted, results):
            where = "base_visual" if frame == 0 else f"links[{frame}].visual"
            if isinstance(data, str):
                self.problems.append(Problem(Severity.WARNING, where,
                                             f"{data}; drawn as a stick"))
                continue
            parts.setdefault(frame, []).append((visual, data))
        # one item per frame, its meshes moved into the frame once: each item costs about half a
        # millisecond of Python per frame drawn (the Panda's eleven meshes sit on eight frames)
        for frame, items in parts.items():
            verts, faces, colors, offset = [], [], [], 0
            for visual, data in items:
                M = visual.matrix()
                verts.append(data.vertices @ M[:3, :3].T.astype(np.float32) + M[:3, 3].astype(np.float32))
                faces.append(data.faces + offset)
                offset += len(data.vertices)
                colors.append(np.tile(np.asarray(visual.color or data.color or MESH_COLOR, np.float32),
                                      (len(data.faces), 1)))
            mesh = gl.MeshData(vertexes=np.vstack(verts), faces=np.vstack(faces), faceColors=np.vstack(colors))
            item = gl.GLMeshItem(meshdata=mesh, smooth=False, shader=LIT_SHADER, glOptions=_OPTIONS)
            item.setVisible(self.visible)
            self.view.addItem(item)
            self._items.append((frame, np.eye(4), item))
        self.problemsChanged.emit(list(self.problems))
        self.loaded.emit()
        self._place_last()

    def drawn_frames(self) -> set[int]:
        """Frame indices (0: the base, i: link i) that have at least one mesh on screen."""
        return {frame for frame, _, _ in self._items} if self.visible else set()

    def face_count(self) -> int:
        return sum(len(item.opts["meshdata"].faces()) for _, _, item in self._items)

    def set_visible(self, on: bool) -> None:
        self.visible = bool(on)
        for _, _, item in self._items:
            item.setVisible(self.visible)

    def place(self, frames: np.ndarray) -> None:
        """Put each mesh on its frame: ``frames`` (n+1, 4, 4) are DH frames 0..n in the scene."""
        self._frames = frames
        for frame, local, item in self._items:
            if frame < len(frames):
                item.setTransform(QMatrix4x4(*(frames[frame] @ local).ravel().tolist()))

    def _place_last(self) -> None:
        frames = getattr(self, "_frames", None)
        if frames is not None:
            self.place(frames)

    def _remove_items(self) -> None:
        for _, _, item in self._items:
            self.view.removeItem(item)
        self._items = []
