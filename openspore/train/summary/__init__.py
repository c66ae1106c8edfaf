"""MindSpore summaries (`mindspore.train.summary`): `SummaryRecord`, the summary event file format, and the
graph and lineage messages MindInsight reads."""
from .summary_record import SummaryRecord

__all__ = ["SummaryRecord"]
