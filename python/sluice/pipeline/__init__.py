"""sluice.pipeline: DALI's nvidia.dali.pipeline.

Pipeline (_pipeline.py, with its properties, metadata and serialization in _metadata.py) and
pipeline_def (_decorator.py), with the JSON document a pipeline is sent to the engine as
(_document.py) and the checks of its outputs (_outputs.py); `experimental.pipeline_def` adds
debug mode.
"""

from sluice._conditionals import do_not_convert  # noqa: F401
from sluice.data_node import DataNode  # noqa: F401
from sluice.pipeline import experimental  # noqa: F401
from sluice.pipeline._decorator import pipeline_def  # noqa: F401
from sluice.pipeline._metadata import OperatorConcurrency, StreamPolicy  # noqa: F401
from sluice.pipeline._pipeline import Pipeline  # noqa: F401
