"""Choosing a design: motor-gearbox pairs sized along a cycle (:mod:`.sizing`, docs/catalogs.md) and the
optimizer over parameters and discrete choices with explore's metrics as objective and constraints
(:mod:`.problem`, docs/optimize.md). Any mechanism (serial or closed, rigid or elastic) through
``numeric.mechanism.load_dynamics`` and ``explore.joints.explore_arm``: nothing here asks which kind it is."""
