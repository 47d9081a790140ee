"""Pickling that gives sympy results back exactly, for results sent between processes.

sympy pickles an expression as its class and arguments and rebuilds it by
calling the class, which evaluates again: ``Mul(2, x + y, evaluate=False)``
comes back as ``2*x + 2*y``. The derivations build such products on purpose
(numbers are not distributed over large sums), so :func:`dumps` rebuilds
``Add``, ``Mul`` and ``Pow`` from their arguments as they were. It also
handles what plain pickle refuses in our results: read-only mappings, sympy
1.14's polynomial rings (their ``__getstate__`` changes the dict it iterates
over) and floating-point domains (their number class is made per field).
"""

from __future__ import annotations

import copyreg
import io
import pickle
import sys
from types import MappingProxyType
from typing import Any

__all__ = ["dumps", "loads"]


def _mapping(d: dict) -> MappingProxyType:
    return MappingProxyType(d)


def _assoc(cls, args):
    return cls._from_args(args)   # as they were: no flattening, no distributing of numbers


def _power(base, exp):
    import sympy
    return sympy.Pow(base, exp, evaluate=False)


def _ring(symbols, domain, order):
    from sympy.polys.rings import PolyRing
    return PolyRing(symbols, domain, order)


def _real_field(precision, tolerance):
    from sympy.polys.domains import RealField
    return RealField(prec=precision, tol=tolerance)


def _ring_element(ring, terms):
    to = ring.domain.from_sympy
    return ring.from_dict({monom: to(c) for monom, c in terms})


def _reduce_ring_element(p):
    # coefficients as sympy numbers: a RealField's mpf class is made per field and cannot be pickled
    to = p.ring.domain.to_sympy
    return _ring_element, (p.ring, [(monom, to(c)) for monom, c in p.items()])


def _dispatch_table() -> dict:
    table = copyreg.dispatch_table.copy()
    table[MappingProxyType] = lambda m: (_mapping, (dict(m),))
    if "sympy" in sys.modules:  # only results that hold sympy objects need these
        import sympy
        from sympy.polys.domains import RealField
        from sympy.polys.rings import PolyElement, PolyRing
        table[sympy.Add] = lambda e: (_assoc, (sympy.Add, e.args))
        table[sympy.Mul] = lambda e: (_assoc, (sympy.Mul, e.args))
        table[sympy.Pow] = lambda e: (_power, e.args)
        # sympy 1.14's PolyRing.__getstate__ changes the dict it iterates over
        table[PolyRing] = lambda r: (_ring, (r.symbols, r.domain, r.order))
        table[PolyElement] = _reduce_ring_element
        table[RealField] = lambda d: (_real_field, (d.precision, float(d.tolerance)))   # its mpf class, too
    return table


def dumps(obj: Any) -> bytes:
    """Pickle ``obj`` so that :func:`loads` gives back equal sympy trees, node for node."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _dispatch_table()
    pickler.dump(obj)
    return buffer.getvalue()


def loads(data: bytes) -> Any:
    return pickle.loads(data)
