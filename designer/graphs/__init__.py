"""Rewriting sympy expression graphs that share their parts: common subexpressions in linear time
(:mod:`.cse`) and the peephole passes after it (:mod:`.peephole`).

Below the derivations, which name their intermediate steps with it (:mod:`designer.dynamics.standard_ne`)
and count operations the way the generated code has them (:func:`designer.dynamics.count_ops_cse`), and
below code generation, which writes what it returns. Needs only sympy and :mod:`designer.jobs`.
"""
