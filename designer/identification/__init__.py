"""Identification: the joint-torque regressor tau = Y(q, qd, qdd) pi (:mod:`.regressor`), the base
parameters, the identifiable combinations of the standard ones (:mod:`.base_params`), and code
with the base parameters as inputs (:mod:`.code_plan`).

Above the numeric layer and code generation (it writes code through :mod:`designer.codegen`); the
parameter-vector layout it shares with the derivations is :mod:`designer.dynamics.inertial`.
"""
