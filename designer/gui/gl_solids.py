"""Many solids drawn as one OpenGL mesh item, each placed by its own 4x4 matrix (for the 3D view).

pyqtgraph spends about half a millisecond of Python per item and frame; one item for all the
solids keeps the frame rate of a software renderer up.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
from pyqtgraph.opengl import shaders
from pyqtgraph.opengl.items.GLMeshItem import DirtyFlag

__all__ = ["Solids", "HIDDEN", "LIT_SHADER"]


# a head light plus a soft key light: pyqtgraph's "shaded" leaves faces turned away almost black
_LIT = shaders.ShaderProgram("designer_lit", [
    shaders.VertexShader("""
        uniform mat4 u_mvp;
        uniform mat3 u_normal;
        attribute vec4 a_position;
        attribute vec3 a_normal;
        attribute vec4 a_color;
        varying vec4 v_color;
        varying vec3 v_normal;
        void main() {
            v_normal = normalize(u_normal * a_normal);
            v_color = a_color;
            gl_Position = u_mvp * a_position;
        }
    """),
    shaders.FragmentShader("""
        #ifdef GL_ES
        precision mediump float;
        #endif
        varying vec4 v_color;
        varying vec3 v_normal;
        void main() {
            vec3 n = normalize(v_normal);
            float key = max(dot(n, normalize(vec3(0.5, 0.7, 0.6))), 0.0);
            float light = 0.38 + 0.42 * abs(n.z) + 0.3 * key;
            gl_FragColor = vec4(min(v_color.rgb * light, vec3(1.0)), v_color.a);
        }
    """),
])


LIT_SHADER = _LIT   # the mesh items of gui/meshes.py are lit the same way

HIDDEN = np.diag([1e-9, 1e-9, 1e-9, 1.0])  # a part scaled to a point is not drawn


class Solids(gl.GLMeshItem):
    """Many solids drawn as one mesh; :meth:`place` moves each by its own 4x4 matrix."""

    def __init__(self, translucent: bool = False):
        super().__init__(shader=_LIT, smooth=True, glOptions="translucent" if translucent else "opaque")
        self._pending = DirtyFlag(0)
        self._part = np.zeros(0, dtype=np.int64)
        self._unit_verts = self._unit_normals = np.zeros((0, 3))

    def set_parts(self, meshes: list, colors: list) -> None:
        """One (vertices, normals, faces) unit mesh and one RGBA colour per part."""
        offsets = np.cumsum([0] + [len(m[0]) for m in meshes])
        self._unit_verts = np.vstack([m[0] for m in meshes])
        self._unit_normals = np.vstack([m[1] for m in meshes])
        self._part = np.repeat(np.arange(len(meshes)), [len(m[0]) for m in meshes])
        self.faces = np.vstack([m[2] + o for m, o in zip(meshes, offsets)]).astype(np.uint32)
        self.colors = np.repeat(np.asarray(colors, np.float32), [len(m[0]) for m in meshes], axis=0)
        self.vertexes = None
        self._pending |= DirtyFlag.FACES | DirtyFlag.COLOR

    def place(self, matrices: np.ndarray) -> None:
        """Move part k by ``matrices[k]`` (4x4, may scale); normals follow the inverse transpose."""
        A, t = matrices[:, :3, :3], matrices[:, :3, 3]
        verts = np.einsum("vij,vj->vi", A[self._part], self._unit_verts) + t[self._part]
        # a part scaled to nothing (a point mass of zero mass, a link of zero length) has no inverse: it shows as a
        # point, its normals are those of the unit part
        flat = ~(np.abs(np.linalg.det(A)) > 1e-30)
        inverse = np.linalg.inv(np.where(flat[:, None, None], np.eye(3), A))
        normals = np.einsum("vji,vj->vi", inverse[self._part], self._unit_normals)
        normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
        self.vertexes = verts.astype(np.float32)
        self.normals = normals.astype(np.float32)
        self._pending |= DirtyFlag.POSITION | DirtyFlag.NORMAL
        self.update()

    def parseMeshData(self) -> DirtyFlag:
        bits, self._pending = self._pending, DirtyFlag(0)
        return bits
