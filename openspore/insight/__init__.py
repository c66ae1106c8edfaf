"""MindInsight's parts: the debugger engine (dumps, watchpoint rules, offline analysis, online sessions).

`mindinsight.debugger` imports map onto `openspore.insight.debugger`.
"""
