"""torque_bound against Pinocchio's rnea over every sign of the rated accelerations (and speeds)."""

from __future__ import annotations

import itertools

import numpy as np
import pinocchio as pin
import pytest

from designer.explore.metrics import Ratings, compute
from designer.model.manipulator import Convention
from tests.support.pin_reference import pin_model, random_arm


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_torque_bound_is_the_worst_signed_acceleration(seed):
    rng = np.random.default_rng(seed)
    n = 4
    arm = random_arm(rng, n, Convention.STANDARD if seed % 2 else Convention.MODIFIED)
    model = pin_model(arm)
    data = model.createData()
    acc = rng.uniform(1, 10, n)
    speed = rng.uniform(0.5, 3, n)
    q = rng.uniform(-np.pi, np.pi, (3, n))
    at_rest = compute(arm, q, "torque_bound", Ratings.of(n, acceleration=acc))
    moving = compute(arm, q, "torque_bound", Ratings.of(n, acceleration=acc, speed=speed))
    for k in range(len(q)):
        signs = np.array(list(itertools.product([1.0, -1.0], repeat=n)))
        worst = np.max([np.abs(pin.rnea(model, data, q[k], np.zeros(n), s * acc)) for s in signs], axis=0)
        assert np.allclose(at_rest[k], worst, rtol=1e-9)
        fastest = np.max([np.abs(pin.rnea(model, data, q[k], c * speed, s * acc))
                          for s in signs for c in signs], axis=0)
        assert np.all(moving[k] >= fastest * (1 - 1e-9))
        assert np.all(moving[k] >= at_rest[k])
