"""The indexing pipeline: crawled pages -> segments, main text, page types, duplicate clusters,
and a search index (one machine: :func:`run_pipeline`; Spark: :mod:`webseg.pipeline.spark`)."""

from webseg.pipeline.process import PageProcessor, PipelineConfig
from webseg.pipeline.run import RunSummary, run_pipeline

__all__ = ["PageProcessor", "PipelineConfig", "RunSummary", "run_pipeline"]
