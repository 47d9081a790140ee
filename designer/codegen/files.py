"""The files ``codegen`` writes, the same from the command line and from the window's File > Export.

C: ``X.c`` and its header ``X.h`` (:mod:`.c_library`); Python: one module; MATLAB/Octave: a folder
of ``<prefix>_<function>.m`` files (:mod:`.matlab_code`). Every language gets tau, M, G, the bias
h, the Coriolis matrix C(q, qd) and the regressor (:func:`.control_plan.control_plan`).

``codegen --elastic`` adds ``elastic_forward(q, theta, qd, thetad, tau_m, p) -> (q'', theta'')`` of the
reduced elastic-joint model (docs/elastic.md): the link side solved with the module's own
``mass_matrix``, ``gravity`` and ``bias`` (a Cholesky solve, the rigid joints' N^2 Jm on M's diagonal),
the motor side Jm theta'' = tau_m - tau_s/N; the drive numbers written in as constants, except a
stiffness or damping named by a parameter, read from p. A closed chain's code does the same over its
M_a, G_a, h_a, the actuated joints being the elastic ones (a passive joint with a stiffness is refused)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np
import sympy as sp

from ..dynamics.results import Equations
from ..jobs import NEVER, CancelToken
from ..model.drives import drive_values, elastic_links, numeric_drives, passive_stiffness
from ..model.manipulator import Manipulator
from .plan import BASIC_FUNCTIONS, CodeForm, CodePlan, plan_code

__all__ = ["LANGUAGES", "FUNCTIONS", "PARAMETER_SETS", "GRAPHS", "graphs_for", "parse_functions", "full_plan",
           "code_files", "generate_files", "elastic_constants", "elastic_python", "elastic_c", "NEEDS"]

LANGUAGES = ("c", "python", "matlab")
#: the inertial inputs of the generated code: mass, COM and inertia of each link, or the base parameters
PARAMETER_SETS = ("standard", "base")


#: every function ``codegen`` can write, in the order it writes them
FUNCTIONS = BASIC_FUNCTIONS + ("coriolis_matrix", "regressor")


#: the compact graph each function is generated from (the Coriolis matrix differentiates M; the
#: regressor is built from the model, not from a derivation)
GRAPHS = {"tau": "tau", "mass_matrix": "M", "gravity": "G", "bias": "h", "coriolis_matrix": "M"}


def graphs_for(only: tuple[str, ...] | None) -> set[str]:
    """The compact graphs (of tau, M, G, h) that the functions ``only`` (None: all) read."""
    return set(GRAPHS.values()) if only is None else {GRAPHS[f] for f in only if f in GRAPHS}


def parse_functions(text: str) -> tuple[str, ...]:
    """The names of a comma-separated list (``tau,mass_matrix``), checked against :data:`FUNCTIONS`
    (``M``, ``G``, ``h``, ``C``, ``Y`` accepted for short); a ValueError names an unknown one."""
    chosen = []
    for word in filter(None, (w.strip() for w in text.split(","))):
        name = SHORT.get(word, word)
        if name not in FUNCTIONS:
            raise ValueError(f"unknown function {word!r}: choose from {', '.join(FUNCTIONS)} "
                             f"(or {', '.join(SHORT)})")
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        raise ValueError("no function named: give e.g. tau,mass_matrix")
    return tuple(name for name in FUNCTIONS if name in chosen)


SHORT = {"M": "mass_matrix", "G": "gravity", "h": "bias", "C": "coriolis_matrix", "Y": "regressor"}


def full_plan(eq: Equations, form: CodeForm | str = CodeForm.COMPACT, drives: bool = False,
              token: CancelToken = NEVER, only: Collection[str] | None = None) -> CodePlan:
    """tau, M, G, h (``form``, with the drive terms on request), the Coriolis matrix and the
    regressor (with the drive terms: and the drive parameters' columns); ``only``: those of
    :data:`FUNCTIONS` named (default all)."""
    from .control_plan import control_plan
    chosen = FUNCTIONS if only is None else tuple(only)
    if "closed_compact" in eq.extras:   # the compact form of any closed chain: every function, over its steps
        return plan_code(eq, form, drives, token=token, only=chosen)
    if "loop_quantities" in eq.extras:
        raise ValueError("a nonlinear loop's closed form reads loop quantities (qp, W, dW): its code is the "
                         "compact form's")
    return control_plan(eq, form, drives, chosen, token)   # a serial arm's, or a linear closure's closed forms


def code_files(plan: CodePlan, lang: str, target: str | Path, prefix: str | None = None,
               header: str | Path | None = None) -> dict[str, str]:
    """{path: text} of ``plan`` in ``lang``: for C ``target`` and the header (default ``target``
    with .h); for MATLAB one file per function in the folder ``target``; for Python ``target``."""
    target = Path(target)
    if lang == "python":
        from .python_code import emit_python
        return {str(target): emit_python(plan)}
    if lang == "matlab":
        from .matlab_code import emit_matlab
        return {str(target / name): text for name, text in emit_matlab(plan, prefix).items()}
    if lang != "c":
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGUAGES)}")
    from .c_library import emit_c_library
    header_path = Path(header) if header else target.with_suffix(".h")
    source, text = emit_c_library(plan, prefix, header_path.name)
    return {str(target): source, str(header_path): text}


def generate_files(eq: Equations, lang: str, target: str, prefix: str | None = None,
                   drives: bool = False) -> dict[str, str]:
    """:func:`code_files` of :func:`full_plan` (compact forms): what ``codegen --lang LANG --out
    TARGET [--drives]`` writes for the equations ``eq``."""
    return code_files(full_plan(eq, drives=drives), lang, target, prefix)


#: the rigid functions the elastic forward dynamics calls
NEEDS = ("mass_matrix", "gravity", "bias")


def named_entries(model: Manipulator, parameters: Sequence[str]) -> dict[str, list[tuple[int, int]]]:
    """Per field (stiffness, damping): (joint, index in ``parameters``) of each joint whose value is a parameter's
    bare name (``k2``) that the generated code reads from p; an expression of names stays a constant."""
    out: dict[str, list[tuple[int, int]]] = {"stiffness": [], "damping": []}
    for i, link in enumerate(model.links[j] for j in elastic_links(model)):
        for field, entries in out.items():
            v = None if link.drive is None else getattr(link.drive, field)
            if isinstance(v, sp.Symbol) and v.name in parameters:
                entries.append((i, list(parameters).index(v.name)))
    return out


def elastic_constants(model: Manipulator) -> dict[str, list]:
    """Per joint: stiffness (0 for a rigid joint), damping, gear ratio, rotor inertia; the elastic
    joints (0-based) and the reflected inertia of the rigid ones; a closed chain's actuated joints. Raises
    ValueError without elastic joints or with a passive one."""
    passive = passive_stiffness(model)
    if passive:
        raise ValueError(f"--elastic: passive joint(s) {', '.join(map(str, passive))} of the closed chain have a drive "
                         "stiffness; only the actuated joints (the motors' gearboxes) can be elastic")
    links = list(elastic_links(model))
    values = drive_values(model)
    k = None if values["stiffness"] is None else values["stiffness"][links]
    if k is None or not np.isfinite(k).any():
        raise ValueError("--elastic: no joint has a drive stiffness (drive data 'stiffness', N m/rad)")
    n = len(links)
    gear = values["gear"][links] if values["gear"] is not None else np.ones(n)
    rotor = values["rotor"][links] if values["rotor"] is not None else np.zeros(n)
    drives = [numeric_drives(model)[i] for i in links]
    damping = [0.0 if d is None or d.damping is None else float(d.damping) for d in drives]
    elastic = [i for i in range(n) if np.isfinite(k[i])]
    missing = [links[i] + 1 for i in elastic if not rotor[i] > 0]
    if missing:
        raise ValueError(f"--elastic: elastic joint(s) {', '.join(map(str, missing))} need the rotor inertia "
                         "(drive data 'motor_inertia')")
    return {"stiffness": [float(v) if np.isfinite(v) else 0.0 for v in k], "damping": [float(v) for v in damping],
            "gear": [float(v) for v in gear], "rotor": [float(v) for v in rotor], "elastic": elastic,
            "reflected": [0.0 if i in elastic else float(gear[i] ** 2 * rotor[i]) for i in range(n)]}


def _py_list(v) -> str:
    return "(" + ", ".join(repr(x) for x in v) + ("," if len(v) == 1 else "") + ")"


def elastic_python(model: Manipulator, parameters: Sequence[str] = ()) -> str:
    """Python source to append to the generated module (it uses the module's numpy and functions); a stiffness
    or damping named by one of ``parameters`` (the module's PARAMETERS) is read from p."""
    c = elastic_constants(model)
    named = named_entries(model, parameters)
    reads = "".join(f"\n    {'k' if field == 'stiffness' else 'd'}[{i}] = pv[{k}]"
                    for field, entries in named.items() for i, k in entries)
    if reads:
        reads = "\n    pv = _params(p)" + reads
    return f'''

# -- the elastic-joint model (reduced model, docs/elastic.md); drive data of the project --------------
ELASTIC_JOINTS = {_py_list(c["elastic"])}
STIFFNESS = {_py_list(c["stiffness"])}
DAMPING = {_py_list(c["damping"])}
GEAR = {_py_list(c["gear"])}
ROTOR = {_py_list(c["rotor"])}
REFLECTED = {_py_list(c["reflected"])}


def elastic_forward(q, theta, qd, thetad, tau_m, p=None):
    """(q'', theta'') of one state: theta, thetad the motor angles and rates of ELASTIC_JOINTS (motor
    side), tau_m the {len(c["gear"])} motor torques (motor side)."""
    q, qd = numpy.asarray(q, dtype=float), numpy.asarray(qd, dtype=float)
    theta, thetad = numpy.asarray(theta, dtype=float), numpy.asarray(thetad, dtype=float)
    tau = numpy.asarray(tau_m, dtype=float) * numpy.asarray(GEAR)
    k, d = list(STIFFNESS), list(DAMPING){reads}
    spring = numpy.empty(len(ELASTIC_JOINTS))
    for j, i in enumerate(ELASTIC_JOINTS):
        spring[j] = (k[i] * (theta[j] / GEAR[i] - q[i]) + d[i] * (thetad[j] / GEAR[i] - qd[i]))
        tau[i] = spring[j]
    M = mass_matrix(q, p) + numpy.diag(REFLECTED)
    qdd = numpy.linalg.solve(M, tau - gravity(q, p) - bias(q, qd, p))
    thetadd = numpy.array([(tau_m[i] - spring[j] / GEAR[i]) / ROTOR[i] for j, i in enumerate(ELASTIC_JOINTS)])
    return qdd, thetadd
'''


def _c_array(v) -> str:
    return "{" + ", ".join(repr(float(x)) for x in v) + "}"   # shortest exact: 0.066, not 0.066000000000000003


def elastic_c(model: Manipulator, prefix: str, parameters: Sequence[str] = ()) -> tuple[str, str]:
    """(source, header) text to append to the generated C library named ``prefix``; a stiffness or damping named
    by one of ``parameters`` (the library's p order) is read from p."""
    c = elastic_constants(model)
    named = named_entries(model, parameters)
    reads = "".join(f"\n    {'k' if field == 'stiffness' else 'd'}[{i}] = p[{k}];"
                    for field, entries in named.items() for i, k in entries)
    n, m = len(c["gear"]), len(c["elastic"])
    elastic = "{" + ", ".join(str(i) for i in c["elastic"]) + "}"
    header = (f"\n/* elastic joints (docs/elastic.md): q'' and theta'' of the reduced model; theta, thetad hold the\n"
              f" * {m} elastic joints' motor angles (motor side), tau_m the {n} motor torques. Returns 0, or -1 when\n"
              f" * M + N^2 Jm is not positive definite. */\n"
              f"#define {prefix.upper()}_N_ELASTIC {m}\n"
              f"int {prefix}_elastic_forward(const double *q, const double *theta, const double *qd, "
              "const double *thetad, const double *tau_m, const double *p, double *qdd, double *thetadd);\n")
    source = f"""
/* -- the elastic-joint model (reduced model); drive data of the project ------------------------- */
static const int elastic_joints[{m}] = {elastic};
static const double stiffness[{n}] = {_c_array(c["stiffness"])};
static const double damping[{n}] = {_c_array(c["damping"])};
static const double gear[{n}] = {_c_array(c["gear"])};
static const double rotor[{n}] = {_c_array(c["rotor"])};
static const double reflected[{n}] = {_c_array(c["reflected"])};

int {prefix}_elastic_forward(const double *q, const double *theta, const double *qd, const double *thetad,
                             const double *tau_m, const double *p, double *qdd, double *thetadd)
{{
    double M[{n * n}], g[{n}], h[{n}], tau[{n}], spring[{m}], k[{n}], d[{n}];
    int i, j, r;
    for (i = 0; i < {n}; i++) {{ tau[i] = gear[i] * tau_m[i]; k[i] = stiffness[i]; d[i] = damping[i]; }}{reads}
    for (j = 0; j < {m}; j++) {{
        i = elastic_joints[j];
        spring[j] = k[i] * (theta[j] / gear[i] - q[i]) + d[i] * (thetad[j] / gear[i] - qd[i]);
        tau[i] = spring[j];
    }}
    {prefix}_mass_matrix(q, p, M);
    {prefix}_gravity(q, p, g);
    {prefix}_bias(q, qd, p, h);
    for (i = 0; i < {n}; i++) {{ M[i * {n} + i] += reflected[i]; qdd[i] = tau[i] - g[i] - h[i]; }}
    /* Cholesky M = L L^T in place (lower triangle), then two triangular solves */
    for (j = 0; j < {n}; j++) {{
        double s = M[j * {n} + j];
        for (r = 0; r < j; r++) s -= M[j * {n} + r] * M[j * {n} + r];
        if (!(s > 0.0)) return -1;
        M[j * {n} + j] = sqrt(s);
        for (i = j + 1; i < {n}; i++) {{
            double t = M[i * {n} + j];
            for (r = 0; r < j; r++) t -= M[i * {n} + r] * M[j * {n} + r];
            M[i * {n} + j] = t / M[j * {n} + j];
        }}
    }}
    for (i = 0; i < {n}; i++) {{
        for (r = 0; r < i; r++) qdd[i] -= M[i * {n} + r] * qdd[r];
        qdd[i] /= M[i * {n} + i];
    }}
    for (i = {n} - 1; i >= 0; i--) {{
        for (r = i + 1; r < {n}; r++) qdd[i] -= M[r * {n} + i] * qdd[r];
        qdd[i] /= M[i * {n} + i];
    }}
    for (j = 0; j < {m}; j++) {{
        i = elastic_joints[j];
        thetadd[j] = (tau_m[i] - spring[j] / gear[i]) / rotor[i];
    }}
    return 0;
}}
"""
    return source, header
