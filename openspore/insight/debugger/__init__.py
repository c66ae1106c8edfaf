"""The debugger engine: dumps in MindSpore's layout, watchpoint rules (online and offline), code <-> graph.

The offline API keeps `mindinsight.debugger`'s names: `DumpAnalyzer`, `Node`, `DebuggerTensor`, `Watchpoint`,
`WatchpointHit` and the condition classes, plus the rules MindInsight does not ship.
"""
from .analyzer import DumpAnalyzer
from .catalog import CONDITIONS, make_condition, recommend, tuning_hints
from .conditions import (ConditionBase, InitialWeightCondition, OperatorOverflowCondition, TensorAllZeroCondition,
                         TensorChangeAboveThresholdCondition, TensorChangeBelowThresholdCondition,
                         TensorOverflowCondition, TensorRangeCondition, TensorTooLargeCondition,
                         TensorTooSmallCondition, TensorUnchangedCondition)
from .engine import Watchpoint, WatchpointHit
from .rules import (DeadReluCondition, FirstNonFiniteCondition, LossNotDecreasingCondition,
                    UpdateRatioOutOfBandCondition)
from .tensors import DebuggerTensor, Node

__all__ = ["DumpAnalyzer", "Node", "DebuggerTensor", "Watchpoint", "WatchpointHit", "ConditionBase",
           "TensorTooLargeCondition", "TensorTooSmallCondition", "TensorRangeCondition", "TensorOverflowCondition",
           "OperatorOverflowCondition", "TensorAllZeroCondition", "TensorUnchangedCondition",
           "TensorChangeBelowThresholdCondition", "TensorChangeAboveThresholdCondition", "InitialWeightCondition",
           "LossNotDecreasingCondition", "DeadReluCondition", "FirstNonFiniteCondition",
           "UpdateRatioOutOfBandCondition", "CONDITIONS", "make_condition", "recommend", "tuning_hints"]
