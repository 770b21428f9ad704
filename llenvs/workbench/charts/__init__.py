"""The chart specs the workbench's views draw (Vega-Lite, Plotly, inline SVG), without Streamlit."""

from llenvs.workbench.charts._calibration_chart import calibration_figure
from llenvs.workbench.charts._outline_chart import outline_svg
from llenvs.workbench.charts._segment_chart import (
    LABEL_MARKS,
    SCORE_COLOURS,
    SELECTED,
    label_marks,
    layer_names,
    segment_figure,
    selected_segment,
    x_axis,
)
from llenvs.workbench.charts._segmenter_values_chart import pair_rows, segmenter_values_figure
from llenvs.workbench.charts._steerability_chart import steerability_figure
from llenvs.workbench.charts._step_matrix_chart import matrix_figure, suppression_figure
from llenvs.workbench.charts._step_values_chart import (
    OUR_IMPORTANCE,
    importance_colour,
    step_values_figure,
)

__all__ = [
    "LABEL_MARKS",
    "OUR_IMPORTANCE",
    "SCORE_COLOURS",
    "SELECTED",
    "calibration_figure",
    "importance_colour",
    "label_marks",
    "layer_names",
    "matrix_figure",
    "outline_svg",
    "pair_rows",
    "segment_figure",
    "segmenter_values_figure",
    "selected_segment",
    "steerability_figure",
    "step_values_figure",
    "suppression_figure",
    "x_axis",
]
