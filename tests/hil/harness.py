"""The rig (simulators/rig.py) under the name the HIL tests use."""

from simulators.rig import Rig as Table

__all__ = ["Table"]
