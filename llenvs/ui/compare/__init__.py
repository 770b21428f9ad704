"""The Compare segmenters page.

Which trace and text, which segmenters, their cuts side by side, and their step values: which
step mattered under each segmenter, stored or run now.
"""

from llenvs.ui.compare._page import choose_text, chosen_trace, show_comparison
from llenvs.ui.compare._segmenter_values import choose_specs, segmenter_values_panel

__all__ = [
    "choose_specs",
    "choose_text",
    "chosen_trace",
    "segmenter_values_panel",
    "show_comparison",
]
