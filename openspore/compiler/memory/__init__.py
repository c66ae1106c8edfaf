"""Static memory planning (SOMAS): tensor lifetimes from the schedule, offsets in one arena per graph.

lifetimes.py (what is planned, and the lower bound), heuristics.py (greedy placements, the best kept),
exact.py (a constraint model under a time limit, warm-started), plan.py (per-graph plans and their report).
"""
from .plan import GraphPlan, check_plan, plan_graph, plan_memory

__all__ = ["GraphPlan", "check_plan", "plan_graph", "plan_memory"]
