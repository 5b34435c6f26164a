"""sluice.pipeline: DALI's nvidia.dali.pipeline.

Pipeline (_pipeline.py) and pipeline_def (_decorator.py), with the JSON document a pipeline is
sent to the engine as (_document.py); `experimental.pipeline_def` adds debug mode.
"""

from sluice._conditionals import do_not_convert  # noqa: F401
from sluice.pipeline import experimental  # noqa: F401
from sluice.pipeline._decorator import pipeline_def  # noqa: F401
from sluice.pipeline._pipeline import Pipeline  # noqa: F401
